"""post.processors: Debezium's two spellings, its one processor class, every option checked at start
(connector/config/post_processors.py); the processor itself runs in tests/integration/pipeline/test_reselect.py
and the goldens reselect / reselect-mysql."""
from __future__ import annotations

import logging

import pytest

from connector.config.loaders import load_server_properties
from connector.config.post_processors import RESELECT_TYPE, post_processors
from connector.errors import ConfigError
from connector.transforms.config import transform_settings

BASE = {
    "debezium.sink.type": "kafka",
    "debezium.sink.kafka.producer.bootstrap.servers": "127.0.0.1:9092",
    "debezium.source.database.hostname": "db",
    "debezium.source.database.user": "u",
    "debezium.source.database.server.id": "1",
    "debezium.source.topic.prefix": "p",
    "debezium.source.offset.storage.file.filename": "/tmp/o.dat",
    "debezium.source.schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
    "debezium.source.schema.history.internal.file.filename": "/tmp/h.jsonl",
}


def load(extra: dict[str, str]):
    loaded = load_server_properties({**BASE, **{f"debezium.source.{k}": v for k, v in extra.items()}})
    return loaded, loaded.settings(transform_settings)


def problems(extra: dict[str, str]) -> list[str]:
    try:
        load(extra)
    except ConfigError as exc:
        return exc.problems
    return []


def test_debezium_36_spelling_with_every_option():
    loaded, settings = load({"post.processors": "r", "post.processors.r.type": RESELECT_TYPE,
                             "post.processors.r.reselect.columns.include.list": r"inv\.items:.*,inv\.t:C",
                             "post.processors.r.reselect.null.values": "false",
                             "post.processors.r.reselect.use.event.key": "true",
                             "post.processors.r.reselect.error.handling.mode": "FAIL"})
    assert loaded.warnings == []
    (r,) = settings.post_processors
    assert (r.name, r.null_values, r.unavailable_values, r.use_event_key, r.fail_on_error) == (
        "r", False, True, True, True)
    # full match on `db.table:column`, case-insensitive, as Debezium's Predicates.includes
    assert r.selects("inv.items:note") and r.selects("INV.T:c") and not r.selects("inv.t:cc")


def test_the_exclude_list_deselects_and_the_include_list_wins_over_it():
    raw = {"post.processors": "a,b", "post.processors.a.type": RESELECT_TYPE,
           "post.processors.a.reselect.columns.exclude.list": r"inv\.t:secret",
           "post.processors.b.type": RESELECT_TYPE,
           "post.processors.b.reselect.columns.include.list": r"inv\.t:x",
           "post.processors.b.reselect.columns.exclude.list": r"inv\.t:x"}
    a, b = post_processors(raw, [])
    assert not a.selects("inv.t:secret") and a.selects("inv.t:other")
    assert b.selects("inv.t:x") and not b.selects("inv.t:y")


def test_the_deprecated_spelling_works_with_debeziums_warning(caplog):
    with caplog.at_level(logging.WARNING):
        loaded, settings = load({"post.processors": "reselector", "reselector.type": RESELECT_TYPE,
                                 "reselector.reselect.use.event.key": "true"})
    assert settings.post_processors[0].use_event_key
    assert loaded.warnings == []  # reselector.* are not unknown properties
    assert "deprecated spelling" in caplog.text


@pytest.mark.parametrize("extra, expected", [
    ({"post.processors": "r"}, "post.processors lists r but post.processors.r.type is not set"),
    ({"post.processors": "r", "post.processors.r.type": "com.acme.MyProcessor"},
     "post.processors.r.type=com.acme.MyProcessor: a post processor is a Java class"),
    ({"post.processors": "r", "post.processors.r.type": RESELECT_TYPE, "post.processors.r.reselect.nul.values": "x"},
     "post.processors.r.reselect.nul.values: not an option of ReselectColumnsPostProcessor"),
    ({"post.processors": "r", "post.processors.r.type": RESELECT_TYPE,
      "post.processors.r.reselect.error.handling.mode": "skip"},
     "post.processors.r.reselect.error.handling.mode='skip': must be warn or fail"),
    ({"post.processors": "r", "post.processors.r.type": RESELECT_TYPE,
      "post.processors.r.reselect.null.values": "yes"}, "post.processors.r.reselect.null.values='yes': must be"),
    ({"post.processors": "r", "post.processors.r.type": RESELECT_TYPE,
      "post.processors.r.reselect.columns.include.list": "inv.t:(x"}, "post.processors.r.reselect.columns.include"),
    ({"post.processors": "r", "post.processors.r.type": RESELECT_TYPE, "encode.workers": "2"},
     "encode.workers=2 renders rows in worker processes, which do not run post.processors"),
])
def test_every_wrong_setting_stops_the_start_by_name(extra, expected):
    found = problems(extra)
    assert len(found) == 1 and found[0].startswith(expected), found
