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

* Spark puts ``$SPARK_HOME/python/lib/pyspark.zip`` first on its Python workers' path. Python
  compiles modules imported from a zip on every start (no bytecode cache): a worker took 27-32 s
  to import pyspark from it on a loaded 2-core host, 9-11 s from the installed package, and Spark
  gives a worker a fixed 10 s to connect back ("Python worker failed to connect back"). Locally,
  ``SPARK_HOME`` defaults to a private copy of the pip-installed Spark home (symlinks) whose
  ``pyspark.zip`` entry is the installed package's directory, so workers use its compiled modules.

Whatever the user set (environment, ``--conf``, ``spark-defaults.conf``) wins over these defaults.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Mapping

from pyspark.sql import SparkSession

__all__ = ["DEFAULT_MASTER", "local_cores", "local_environment", "compiled_spark_home", "mirror_session"]

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
    added = {name: value for name, value in wanted.items() if not environ.get(name)}
    if not environ.get("SPARK_HOME"):
        home = compiled_spark_home()
        if home is not None:
            added["SPARK_HOME"] = str(home)
    return added


def compiled_spark_home(cache: Path | None = None) -> Path | None:
    """A Spark home equal to pip-installed pyspark's (symlinks), except that its ``pyspark.zip``
    path entry is the installed package's directory (compiled modules): see the module docstring.
    None when pyspark is not a pip install laid out as expected (then Spark's own home is used)."""
    import pyspark
    package = Path(pyspark.__file__).resolve().parent
    if not (package / "jars").is_dir() or not (package / "python" / "lib" / "pyspark.zip").exists():
        return None
    cache = cache or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "spark_sink"
    home = cache / f"spark-home-{pyspark.__version__}-{hashlib.sha1(str(package).encode()).hexdigest()[:10]}"
    if (home / "python" / "lib" / "pyspark.zip").exists():
        return home
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".spark-home-", dir=cache))
    for entry in package.iterdir():
        if entry.name != "python":
            (staging / entry.name).symlink_to(entry)
    lib = staging / "python" / "lib"
    lib.mkdir(parents=True)
    (lib / "pyspark.zip").symlink_to(package.parent)  # a directory on sys.path: `import pyspark` finds the package
    for py4j in (package / "python" / "lib").glob("py4j-*.zip"):
        (lib / py4j.name).symlink_to(py4j)
    try:
        staging.rename(home)  # atomic: a concurrent mirror either sees the whole home or makes its own
    except OSError:
        import shutil
        shutil.rmtree(staging, ignore_errors=True)
    return home


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
