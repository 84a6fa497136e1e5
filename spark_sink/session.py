"""The Spark session the mirror CLI runs in, with defaults that suit local mode.

Two things go wrong when ``python -m spark_sink.mirror`` starts Spark itself with Spark's defaults:

* Spark starts its Python workers as ``python3`` from PATH, not as the interpreter running the
  mirror. Run as ``.venv/bin/python -m spark_sink.mirror`` without an activated venv, the workers
  then lack ``spark_sink`` and pyarrow (``[PYTHON_DATA_SOURCE_ERROR] ... No module named
  'spark_sink'``). In local mode the workers run on this machine, so the running interpreter is
  the right one; on a cluster it may not exist on the executors, so it is only defaulted locally.
* ``spark.sql.shuffle.partitions`` is 200: every window and join of a micro-batch becomes 200
  tasks, which on a laptop's few cores costs more than the work (issue 25: 149 s instead of 44 s).
  Locally it defaults to the number of cores Spark was given.

Whatever the user set (environment, ``--conf``, ``spark-defaults.conf``) wins over both defaults.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Mapping

from pyspark.sql import SparkSession

__all__ = ["DEFAULT_MASTER", "local_cores", "local_environment", "mirror_session"]

DEFAULT_MASTER = "local[*]"
SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions"
_LOCAL = re.compile(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?$")


def local_cores(master: str) -> int | None:
    """Cores of a ``local``/``local[N]``/``local[*]``/``local[N,F]`` master, None for any other master."""
    match = _LOCAL.match(master.strip())
    if not match:
        return None
    if match.group(1) in (None, "*"):
        return 1 if match.group(1) is None else (os.cpu_count() or 1)
    return int(match.group(1))


def local_environment(master: str, environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """Environment variables to add in local mode (none for a cluster), those the user did not set:
    Spark's Python workers (and the driver) run this interpreter, and the driver binds to the
    loopback address (nothing outside this machine needs to reach a local Spark)."""
    if local_cores(master) is None:
        return {}
    wanted = {"PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
              "SPARK_LOCAL_IP": "127.0.0.1"}
    return {name: value for name, value in wanted.items() if not environ.get(name)}


def mirror_session(master: str | None = None, conf: Mapping[str, str] | None = None,
                   app_name: str = "binlog-cdc mirror") -> SparkSession:
    """A session for the mirror. `master` None keeps whatever spark-submit or ``spark.master`` chose
    (``local[*]`` if nothing did); `conf` is applied as given (``--conf KEY=VALUE``)."""
    conf = dict(conf or {})
    if os.environ.get("PYSPARK_GATEWAY_PORT"):
        # Started by spark-submit: the JVM, its master and the workers' Python are spark-submit's.
        builder = SparkSession.builder.appName(app_name)
    else:
        chosen = master or conf.get("spark.master") or DEFAULT_MASTER
        os.environ.update(local_environment(chosen))
        builder = SparkSession.builder.master(chosen).appName(app_name)
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    cores = local_cores(spark.sparkContext.master)
    # A runtime SQL setting: set after start, so a value from spark-defaults.conf (which the
    # builder cannot see) counts as the user's too.
    if cores is not None and not spark.sparkContext.getConf().contains(SHUFFLE_PARTITIONS):
        spark.conf.set(SHUFFLE_PARTITIONS, str(cores))
    return spark
