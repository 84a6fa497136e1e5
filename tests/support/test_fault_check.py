"""The fault checker on made-up topics: each rule passes a good stream and catches its own fault."""
from __future__ import annotations

from tests.support.fault_check import (
    KillView,
    Report,
    Seen,
    check_exactly_once,
    check_final_state,
    check_key_order,
    check_replays,
)
from tests.support.fault_workload import Change, KeyHistory

T = "p.db.acct"


def rec(offset: int, run: str, key: int, op: str, ver: int, ts: int | None = None) -> Seen:
    after = None if op == "d" else {"id": key, "ver": ver}
    return Seen(T, 0, offset, ts if ts is not None else offset, run, "acct", key, op, ver, after)


def stream(*items: tuple[str, int, str, int]) -> list[Seen]:
    return [rec(i, run, key, op, ver) for i, (run, key, op, ver) in enumerate(items)]


HISTORIES = {("acct", 1): KeyHistory([Change("c", 1), Change("u", 3), Change("d", 3)]),
             ("acct", 2): KeyHistory([Change("c", 2), Change("u", 4)])}
GOOD = [("A", 1, "c", 1), ("A", 2, "c", 2), ("A", 1, "u", 3), ("A", 2, "u", 4), ("A", 1, "d", 3)]


def test_a_clean_stream_passes_every_check() -> None:
    report = Report()
    seen = stream(*GOOD)
    check_final_state(seen, {"acct": [{"id": 2, "ver": 4}]}, report)
    check_key_order(seen, HISTORIES, 0, report)
    check_replays(seen, report)
    assert report.violations == []


def test_a_replay_of_the_tail_after_a_restart_is_allowed() -> None:
    report = Report()
    seen = stream(*GOOD[:4], ("B", 1, "u", 3), ("B", 2, "u", 4), ("B", 1, "d", 3))
    check_replays(seen, report)
    check_key_order(seen, HISTORIES, 0, report)
    assert report.violations == [] and report.duplicates == 2 and report.replay_windows == 1


def test_a_run_that_died_inside_its_replay_may_stop_short() -> None:
    report = Report()
    check_replays(stream(*GOOD[:4], ("B", 2, "c", 2), ("C", 2, "c", 2), ("C", 1, "u", 3), ("C", 2, "u", 4),
                         ("C", 1, "d", 3)), report)
    assert report.violations == []


def test_duplicates_inside_a_run_or_skipping_or_out_of_order_replays_are_caught() -> None:
    within = Report()
    check_replays(stream(*GOOD[:3], ("A", 1, "u", 3)), within)
    assert [v.split(":")[0] for v in within.violations] == ["duplicate outside a replay window"]
    skipped = Report()
    check_replays(stream(*GOOD[:4], ("B", 1, "c", 1), ("B", 1, "d", 3)), skipped)
    assert [v.split(":")[0] for v in skipped.violations] == ["replay skipped records"]
    swapped = Report()
    check_replays(stream(*GOOD[:4], ("B", 2, "u", 4), ("B", 1, "u", 3)), swapped)
    assert [v.split(":")[0] for v in swapped.violations] == ["replay out of order"]


def test_loss_reordering_and_ghosts_are_caught() -> None:
    report = Report()
    seen = stream(("A", 1, "c", 1), ("A", 2, "c", 2), ("A", 2, "u", 4), ("A", 1, "d", 3))
    check_key_order(seen, HISTORIES, 0, report)
    assert any(v.startswith("lost: acct id=1") for v in report.violations)  # its update never arrived
    reordered = Report()
    check_key_order(stream(("A", 2, "r", 4), ("B", 2, "c", 2)), HISTORIES, 100, reordered)
    assert reordered.violations[0].startswith("reordered after a snapshot read: acct id=2")
    ghost = Report()
    check_final_state(stream(("A", 1, "r", 3), ("A", 2, "r", 4)), {"acct": [{"id": 2, "ver": 4}]}, ghost)
    assert ghost.violations == ["ghost: acct id=1 is in the topics but not in the table"]


def test_exactly_once_allows_only_replays_of_unfinished_transactions() -> None:
    # run A killed at t=10 with offsets 0-1 committed and 2-3 open; Tansu shows 2-3 once B starts
    recs = [rec(0, "A", 1, "c", 1, 1), rec(1, "A", 2, "c", 2, 2), rec(2, "A", 1, "u", 3, 3),
            rec(3, "A", 2, "u", 4, 4), rec(4, "B", 1, "u", 3, 20), rec(5, "B", 2, "u", 4, 21)]
    view = KillView(10, {(T, 0): 2})
    good = Report()
    check_exactly_once(recs, [view], good)
    assert good.violations == [] and good.unfinished == 2
    covered = Report()  # B started after A's open records: the offset A committed covered them
    check_exactly_once(recs[:4] + [rec(4, "B", 1, "d", 3, 20)], [view], covered)
    assert {v.split(":")[0] for v in covered.violations} == {
        "a committed offset covers a record of an unfinished transaction"}
    repeated = Report()  # B re-sent a record A had committed
    check_exactly_once(recs + [rec(6, "B", 1, "c", 1, 22)], [view], repeated)
    assert [v.split(":")[0] for v in repeated.violations] == ["exactly-once broken"]


def test_a_later_run_may_read_a_row_again_where_its_chunk_falls_but_one_run_not_twice() -> None:
    # run A read key 2 and changed key 1; B replays the change, then its remainder chunk reads key 2 again
    reread = stream(("A", 2, "r", 2), ("A", 1, "u", 3), ("B", 1, "u", 3), ("B", 2, "r", 4))
    report = Report()
    check_replays(reread, report)
    assert (report.violations, report.rereads, report.replay_windows) == ([], 1, 1)
    twice = Report()
    check_replays(stream(("A", 2, "r", 2), ("A", 1, "u", 3), ("A", 2, "r", 4)), twice)
    assert len(twice.violations) == 1 and "duplicate outside a replay window" in twice.violations[0]


def test_an_unfinished_snapshot_read_may_be_superseded_by_a_later_change_of_its_key() -> None:
    # A's open transaction held a chunk read of key 2; B's chunk left key 2 out because it changed: B's update
    recs = [rec(0, "A", 1, "c", 1, 1), rec(1, "A", 2, "r", 2, 2), rec(2, "B", 2, "u", 4, 20)]
    view = KillView(10, {(T, 0): 1})
    superseded = Report()
    check_exactly_once(recs, [view], superseded)
    assert superseded.violations == [] and superseded.unfinished == 1
    lost = Report()  # nothing from a later run stands for it
    check_exactly_once(recs[:2] + [rec(2, "B", 1, "u", 3, 20)], [view], lost)
    assert [v.split(":")[0] for v in lost.violations] == [
        "a committed offset covers a record of an unfinished transaction"]
