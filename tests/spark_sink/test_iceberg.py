"""IcebergTarget (spark_sink/iceberg.py) on a local SQL catalog without Spark (the batch's rows handed over as
Arrow): the ordering guard, deletes, soft deletes, TRUNCATE, composite keys, added columns and the batch skip. The
mirror writes Iceberg end to end in test_lake_features.py::test_iceberg_target."""
from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pyiceberg")

from spark_sink.iceberg import IcebergTarget, local_catalog  # noqa: E402

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


class _Rows:
    """Stands in for the batch's DataFrame: IcebergTarget only calls toArrow()."""

    def __init__(self, rows: list[dict]) -> None:
        names = dict.fromkeys(k for r in rows for k in r)  # from_pylist takes the first row's columns only
        self.table = pa.Table.from_pylist([{"__partition": 0, "__timestamp": T0 + dt.timedelta(seconds=r["__offset"]),
                                            "__source_file": "bin.000001", "__source_pos": r["__offset"],
                                            "__source_row": 0, **dict.fromkeys(names), **r} for r in rows])

    def toArrow(self) -> pa.Table:  # noqa: N802
        return self.table


def _state(target: IcebergTarget, *columns: str) -> dict:
    return {tuple(r[k] for k in ("a", "b")): tuple(r[c] for c in columns)
            for r in target.table().scan().to_arrow().to_pylist()}


def test_guard_deletes_truncate_and_batches(tmp_path) -> None:
    target = IcebergTarget(local_catalog(str(tmp_path)), "db.t")
    keys = ["a", "b"]

    def apply(batch_id, rows, truncate=False, soft_delete=False) -> None:
        target.apply(_Rows(rows), keys, truncate=truncate, batch_id=batch_id, soft_delete=soft_delete)

    apply(0, [{"a": 1, "b": "x", "v": 1, "__op": "c", "__offset": 1},
              {"a": 1, "b": "y", "v": 2, "__op": "c", "__offset": 2},
              {"a": 2, "b": "x", "v": 3, "__op": "c", "__offset": 3}])
    assert _state(target, "v") == {(1, "x"): (1,), (1, "y"): (2,), (2, "x"): (3,)}
    # an older change of (1, x) loses; a newer one of (1, y) with a new column wins; (2, x) deleted
    apply(1, [{"a": 1, "b": "x", "v": 9, "__op": "u", "__offset": 0},
              {"a": 1, "b": "y", "v": 5, "w": "new", "__op": "u", "__offset": 4},
              {"a": 2, "b": "x", "v": 3, "__op": "d", "__offset": 5}])
    assert _state(target, "v", "w") == {(1, "x"): (1, None), (1, "y"): (5, "new")}
    assert target.has_batch(1) and not target.has_batch(2)
    apply(2, [{"a": 1, "b": "x", "v": 1, "__op": "d", "__offset": 6}], soft_delete=True)
    assert _state(target, "__op") == {(1, "x"): ("d",), (1, "y"): ("u",)}
    apply(3, [{"a": 3, "b": "z", "v": 7, "__op": "c", "__offset": 8}], truncate=True)
    assert _state(target, "v") == {(3, "z"): (7,)}
    snapshots = len(target.table().snapshots())
    assert target.has_batch(3) and len(target.table().snapshots()) == snapshots
