"""The configuration `binlog-cdc run` logs at start, as Debezium's task start does, with the values of
sensitive properties masked: Debezium's default pattern (tests/unit/config/test_config.py), or
custom.sanitize.pattern, which replaces it."""
from __future__ import annotations

import re
import uuid

import pytest

from tests.conformance.config import write_properties
from tests.support.connector_config import connector_properties
from tests.support.connector_process import run_until_streaming

pytestmark = pytest.mark.timeout(240)


def _logged(tmp_path, server, broker, database: str, **extra: str) -> dict[str, str]:
    tmp_path.mkdir()
    props = connector_properties(tmp_path, server, broker, database, "lc" + uuid.uuid4().hex[:8], **extra)
    props["debezium.source.schema.history.internal.kafka.sasl.jaas.config"] = "user=u pass=p"
    config = tmp_path / "c.properties"
    write_properties(config, props)
    log = run_until_streaming(config, tmp_path).run_log()
    block = log.split("Starting MySqlConnectorTask with configuration:\n", 1)[1]
    return dict(re.findall(r"^   (\S+) = (.*)$", block.split("\n2")[0], re.MULTILINE))


def test_custom_sanitize_pattern_masks_what_it_names_and_replaces_the_default(mariadb, broker, unique_database,
                                                                              tmp_path):
    database = unique_database(mariadb)
    logged = _logged(tmp_path / "b", mariadb, broker, database, custom_sanitize_pattern=r".*password$|database\.user")
    assert logged["database.password"] == "********" and logged["database.user"] == "********"
    assert logged["database.hostname"] == "127.0.0.1"
    # the custom pattern replaces Debezium's default: what it does not name is logged as set
    assert logged["schema.history.internal.kafka.sasl.jaas.config"] == "user=u pass=p"
