"""The mirror CLI run as a user runs it: ``.venv/bin/python -m spark_sink.mirror`` from a plain shell, i.e. a child
process whose environment has no PYSPARK_PYTHON and whose PATH does not lead to the venv (issue 25: Spark then
started its Python workers as the system's ``python3``, which has no spark_sink). The other Spark tests set
PYSPARK_PYTHON themselves and cannot see this."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("deltalake")

from deltalake import DeltaTable  # noqa: E402

from spark_sink.session import compiled_spark_home, local_cores, local_environment  # noqa: E402

from . import expected, golden  # noqa: E402

pytestmark = pytest.mark.spark

VENV_BIN = Path(sys.executable).parent


def user_shell_env() -> dict[str, str]:
    """The environment of a plain shell: no activated venv, no PYSPARK_* variables."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYSPARK_", "SPARK_")) and k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                  if p and Path(p).resolve() != VENV_BIN.resolve())
    return env


def run_cli(args: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spark_sink.mirror", *args], cwd=cwd, env=user_shell_env(),
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow  # a Spark JVM: started early, so it does not run alone at the end
def test_cli_runs_from_a_plain_shell(kafka_bootstrap, prefix, workdir) -> None:
    python3 = shutil.which("python3", path=user_shell_env()["PATH"])
    assert python3 is None or Path(python3).resolve().parent != VENV_BIN.resolve()  # the setting of the bug
    golden.produce(kafka_bootstrap, [r.renamed(prefix) for r in golden.load("basic")])
    argv = ["--bootstrap-servers", kafka_bootstrap, "--topics-pattern", rf"{prefix}\.inventory\..*",
            "--target", str(workdir / "lake"), "--checkpoint", str(workdir / "ckpt"), "--drain",
            "--master", "local[2]"]
    done = run_cli(argv, workdir)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "spark.sql.shuffle.partitions=2" in done.stderr  # the local-mode default: the cores given
    rows = DeltaTable(str(workdir / "lake" / "inventory" / "customers")).to_pyarrow_table().to_pylist()
    columns = expected.CUSTOMERS_COLUMNS
    assert {r["id"]: tuple(r[c] for c in columns[1:]) for r in rows} == expected.CUSTOMERS_FINAL
    # That the user's --conf wins over this default is checked by the failover test's second CLI run
    # (test_failover_lake.py), which restarts from its checkpoint as a second run here did: a Spark JVM less.


def test_local_mode_defaults() -> None:
    assert local_cores("local") == 1 and local_cores("local[3]") == 3 and local_cores("local[2,4]") == 2
    assert local_cores("local[*]") == (os.cpu_count() or 1)
    assert local_cores("yarn") is None and local_cores("spark://host:7077") is None
    assert local_cores("local-cluster[2,1,1024]") is None
    home = compiled_spark_home()
    assert local_environment("local[*]", {}) == {"PYSPARK_PYTHON": sys.executable, "SPARK_HOME": str(home),
                                                 "PYSPARK_DRIVER_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    assert local_environment("local[*]", {"PYSPARK_PYTHON": "/opt/py", "SPARK_LOCAL_IP": "10.0.0.1",
                                          "SPARK_HOME": "/opt/spark"}) == {"PYSPARK_DRIVER_PYTHON": sys.executable}
    assert local_environment("yarn", {}) == {}


def test_workers_import_the_compiled_pyspark() -> None:
    """Spark puts $SPARK_HOME/python/lib/pyspark.zip first on its workers' path; in the mirror's Spark home that
    entry is the installed package (compiled modules), not a zip Python compiles at every worker start."""
    import pyspark
    home = compiled_spark_home()
    assert home is not None and (home / "jars").resolve() == (Path(pyspark.__file__).parent / "jars").resolve()
    lib = home / "python" / "lib"
    path = os.pathsep.join([str(lib / "pyspark.zip"), *map(str, lib.glob("py4j-*.zip"))])
    where = subprocess.run([sys.executable, "-c", "import pyspark.worker_util as m; print(m.__file__, m.__cached__)"],
                           env={**user_shell_env(), "PYTHONPATH": path}, capture_output=True, text=True, check=True)
    module, cached = where.stdout.split()
    assert module.startswith(str(lib / "pyspark.zip" / "pyspark")) and Path(cached).exists(), where.stdout
