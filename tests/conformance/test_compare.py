"""compare.py / normalize.py on the real-Debezium goldens (no servers needed)."""
from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conformance.compare import compare_dirs, first_difference, read_jsonl
from tests.conformance.normalize import (mask_cloudevent_ts, mask_flat_source_ts, mask_notification, mask_watermarks,
                                         normalize_events, normalize_history, normalize_offsets)
from tests.conformance.output import summarize
from tests.conformance.reference import reference_dir

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden"
# A golden with a DERIVED file was computed from a harness run (its README says how), so the checks of
# the harness's own line format and normaliser below apply to raw recordings only.
GOLDENS = sorted(p.name for p in GOLDEN.iterdir() if (p / "events.jsonl").exists() and not (p / "DERIVED").exists())


def copy_golden(name: str, dest: Path) -> Path:
    shutil.copytree(GOLDEN / name, dest)
    return dest


def rewrite_events(d: Path, edit) -> None:
    lines = read_jsonl(d / "events.jsonl")
    lines = edit(lines)
    (d / "events.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


@pytest.mark.parametrize("name", GOLDENS)
def test_golden_equals_itself_and_matches_its_run_info(name):
    assert compare_dirs(GOLDEN / name, GOLDEN / name) == []
    if not (GOLDEN / name / "run_info.json").exists():
        pytest.skip("no run_info.json (the recorded Debezium run was aborted)")
    info = json.loads((GOLDEN / name / "run_info.json").read_text())
    summary = summarize(read_jsonl(GOLDEN / name / "events.jsonl"))
    assert (summary["records"], summary["by_topic"], summary["by_kind"]) == (
        info["records"], info["by_topic"], info["by_kind"])


def test_cross_topic_order_is_free_but_topic_order_is_not(tmp_path):
    d = copy_golden("basic", tmp_path / "a")
    # move every schema-change record to the end: other topics' order is untouched
    rewrite_events(d, lambda ls: [x for x in ls if x["topic"] != "dbserver1"] + [x for x in ls if x["topic"] == "dbserver1"])
    assert compare_dirs(GOLDEN / "basic", d) == []

    def swap_two_customers(ls):
        idx = [i for i, x in enumerate(ls) if x["topic"] == "dbserver1.inventory.customers"][:2]
        ls[idx[0]], ls[idx[1]] = ls[idx[1]], ls[idx[0]]
        return ls
    rewrite_events(d, swap_two_customers)
    mismatches = compare_dirs(GOLDEN / "basic", d)
    assert mismatches and mismatches[0].where.startswith("events[dbserver1.inventory.customers][0]")


def test_value_change_key_order_and_missing_record_are_reported(tmp_path):
    d = copy_golden("basic", tmp_path / "a")

    def damage(ls):
        ls[20]["value"]["payload"]["op"] = "x"
        ls[21]["key"]["payload"] = dict(reversed(list(ls[21]["key"]["payload"].items())) or [("id", 0)])
        ls[21]["key"]["schema"] = dict(reversed(list(ls[21]["key"]["schema"].items())))
        return ls[:-1]
    rewrite_events(d, damage)
    text = "\n".join(m.render() for m in compare_dirs(GOLDEN / "basic", d))
    assert ".value.payload.op" in text and '"x"' in text
    assert "(key order)" in text
    assert "(record count)" in text


def test_offsets_and_history_are_compared(tmp_path):
    d = copy_golden("basic", tmp_path / "a")
    offsets = json.loads((d / "offsets.json").read_text())
    offsets[0]["value"]["pos"] += 1
    (d / "offsets.json").write_text(json.dumps(offsets))
    (d / "schema_history.jsonl").write_text("".join((d / "schema_history.jsonl").read_text().splitlines(True)[:-1]))
    where = {m.where: m.path for m in compare_dirs(GOLDEN / "basic", d)}
    assert where["offsets.json"] == "[0].value.pos"
    assert where["schema_history.jsonl"] == "(document count)"


def test_numbers_are_not_equal_to_booleans_or_floats():
    assert first_difference({"a": 1}, {"a": True}) == (".a", 1, True)
    assert first_difference([1.0], [1]) == ("[0]", 1.0, 1)


@functools.cache
def reference_normalizer(ref: Path) -> ModuleType:
    """The harness's normalize_events.py, loaded once per process: run as a script per file it was ~330
    interpreter starts a suite run (96 s of a worker). It puts its own directory first on sys.path to import
    its neighbour avro_wire; the path is restored, so the harness's files never shadow other modules."""
    saved_path, saved_bytecode = list(sys.path), sys.dont_write_bytecode
    try:
        spec = importlib.util.spec_from_file_location("dbz_reference_normalize_events", ref / "normalize_events.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path[:], sys.dont_write_bytecode = saved_path, saved_bytecode
    return module


@pytest.mark.parametrize("name", GOLDENS)
def test_masking_agrees_with_reference_normalizer(name):
    ref = reference_dir()
    if ref is None:
        pytest.skip("the shared reference harness (../shared/reference) is not present")

    normalizer = reference_normalizer(ref)

    def reference(path: Path) -> list:
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown):
            normalizer.main(str(path), None, False)  # what `normalize_events.py PATH` prints
        out = shown.getvalue()
        return json.loads(out) if path.suffix == ".json" else [json.loads(x) for x in out.splitlines() if x]

    def ours(value) -> list:
        return json.loads(json.dumps(value, sort_keys=True))  # the reference sorts keys

    d = GOLDEN / name
    # beyond the reference's rules, ours also masks incremental-snapshot watermarks (random chunk ids)
    # , a Flatten-ed change event's source timestamps, a notification's random id and timestamp and a
    # CloudEvent's time
    expected = [mask_cloudevent_ts(mask_notification(mask_flat_source_ts(mask_watermarks(e))))
                for e in reference(d / "events.jsonl")]
    assert ours(normalize_events(read_jsonl(d / "events.jsonl"))) == expected
    if (d / "offsets.json").exists():
        assert ours(normalize_offsets(json.loads((d / "offsets.json").read_text()))) == reference(d / "offsets.json")
    if (d / "schema_history.jsonl").exists():
        assert ours(normalize_history(read_jsonl(d / "schema_history.jsonl"))) == reference(d / "schema_history.jsonl")


def _notification(data: dict) -> dict:
    return {"topic": "n", "key": {"id": "k"},  # schemas.enable=false: the payloads themselves
            "value": {"id": "k", "type": "TABLE_SCAN_COMPLETED", "aggregate_type": "Initial Snapshot",
                      "additional_data": data, "timestamp": 1}}


def test_notification_keys_sharing_a_bucket_compare_in_either_order():
    """`status` and `data_collections` share a HashMap bucket: Debezium's order of the two is per-JVM random;
    every other key keeps its place (a different bucket order is still a difference)."""
    head = {"scanned_collection": "a.t", "connector_name": "c", "total_rows_scanned": "3"}
    one = _notification({**head, "status": "SUCCEEDED", "data_collections": "a.t"})
    other = _notification({**head, "data_collections": "a.t", "status": "SUCCEEDED"})
    masked = [list(mask_notification(e)["value"]["additional_data"]) for e in (one, other)]
    assert masked[0] == masked[1]
    moved = _notification({"connector_name": "c", "scanned_collection": "a.t", "total_rows_scanned": "3",
                           "status": "SUCCEEDED", "data_collections": "a.t"})
    assert list(mask_notification(moved)["value"]["additional_data"]) != masked[0]
