"""The lake equals ``SELECT *`` of the source database: the reference workload is run on a
real MariaDB / MySQL 9, real Debezium's golden records of that same workload are applied
through Spark, and the two are compared value by value."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("deltalake")

from deltalake import DeltaTable  # noqa: E402

from spark_sink import DeltaTarget, apply_changes, read_kafka  # noqa: E402
from tests.support.workload import Workload  # noqa: E402

from . import golden  # noqa: E402

pytestmark = pytest.mark.spark
TABLES = {"customers": "id", "orders": "order_number", "all_types": "id"}


def _run_workload(server, database: str) -> None:
    workload = Workload.load(golden.REFERENCE / "workloads" / "basic.sql")
    # unique_database created it already; the workload creates and then uses it
    rename = lambda sql: re.sub(r"\binventory\b", database, sql.replace("CREATE DATABASE inventory;", ""))  # noqa: E731
    server.run_sql(rename(workload.setup))
    for section in workload.sections:
        server.run_sql(rename(section))


def _select_star(server, database: str, table: str) -> tuple[list[str], list[tuple]]:
    with server.connect(database) as conn, conn.cursor() as cur:
        cur.execute("SET time_zone = '+00:00'")
        cur.execute(f"SELECT * FROM `{table}`")
        return [d[0] for d in cur.description], list(cur.fetchall())


def _as_lake(column: str, value):
    """A database value as the lake stores it (see docs/SPARK.md, type mapping)."""
    if isinstance(value, dt.timedelta):  # TIME → signed microseconds
        return (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
    if column == "c_set":  # SET → array of members
        return value.split(",") if value else []
    if column == "c_bigint_u" and value >= 2**63:  # bigint.unsigned.handling.mode=long wraps
        return value - 2**64
    if column == "c_timestamp" and value is not None:  # TIMESTAMP → UTC instant
        return value.replace(tzinfo=dt.timezone.utc)
    if column == "c_json" and value is not None:
        return value
    return value


def _lake_value(value):
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.timezone.utc)
    return value


@pytest.mark.parametrize("flavour, server_fixture", [("basic", "mariadb"), ("basic-mysql", "mysql")])
def test_lake_equals_select_star(request, spark, kafka_bootstrap, prefix, workdir, unique_database,
                                 flavour, server_fixture) -> None:
    server = request.getfixturevalue(server_fixture)
    database = unique_database(server)
    _run_workload(server, database)
    golden.produce(kafka_bootstrap, [r.renamed(prefix) for r in golden.load(flavour)])
    raw = read_kafka(spark, kafka_bootstrap, topic_pattern=rf"{prefix}\.inventory\.(customers|orders|all_types)",
                     streaming=False)
    apply_changes(raw, lambda topic: DeltaTarget(workdir / topic.rsplit(".", 1)[1]))
    for table, key in TABLES.items():
        columns, rows = _select_star(server, database, table)
        want = {row[columns.index(key)]: {c: _as_lake(c, v) for c, v in zip(columns, row)} for row in rows}
        lake = DeltaTable(str(workdir / table)).to_pyarrow_table().to_pylist()
        got = {r[key]: {c: _lake_value(r[c]) for c in columns} for r in lake}
        assert sorted(got) == sorted(want), table
        for k in want:
            for c in columns:
                w, g = want[k][c], got[k][c]
                if c == "c_float" and w is not None:  # FLOAT: MySQL returns a rounded double
                    assert g == pytest.approx(w, rel=1e-6), (table, k, c)
                elif c == "c_json" and w is not None and flavour == "basic-mysql":
                    import json
                    assert json.loads(g) == json.loads(w), (table, k, c)  # binlog JSON re-rendered
                else:
                    assert g == w, (table, k, c)
        assert all(isinstance(r[key], int) for r in lake)
    assert isinstance(want[1]["c_decimal"], Decimal)
