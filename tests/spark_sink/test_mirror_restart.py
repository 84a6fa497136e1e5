"""The mirror restarts its query (from the checkpoint) only when Spark's fixed 10 s for a Python data-source worker
to connect back ran out; any other failure ends it."""
from __future__ import annotations

from spark_sink.mirror import WORKER_START_ATTEMPTS, worker_start_timed_out


def test_only_the_worker_connect_back_timeout_restarts_the_query():
    spark_message = ("[STREAM_FAILED] Query [id = 3b24ee32, runId = efff0025] terminated with exception: "
                     "Python worker failed to connect back. SQLSTATE: XXKST")
    assert worker_start_timed_out(RuntimeError(spark_message))
    assert not worker_start_timed_out(RuntimeError("[STREAM_FAILED] ... terminated with exception: "
                                                   "Cannot apply change: column `v` missing"))
    assert WORKER_START_ATTEMPTS >= 2
