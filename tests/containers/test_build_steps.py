"""docker/build_steps.sh: the Dockerfile's build steps, run for real without Docker."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.containers.inventory import BUILD_STEPS


# ~15 s with a warm pip cache (step 2 downloads ~25 MB of wheels otherwise), so not marked slow.
@pytest.mark.timeout(900)
def test_build_steps_build_install_and_smoke_test_the_image_contents(tmp_path: Path) -> None:
    result = subprocess.run(["bash", str(BUILD_STEPS), str(tmp_path / "build")], capture_output=True, text=True,
                            timeout=850, stdin=subprocess.DEVNULL)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert "build steps OK" in result.stdout
    wheels = {p.name.split("-")[0].lower() for p in (tmp_path / "build" / "wheels").glob("*.whl")}
    assert {"binlog_cdc", "mysql_replication", "pymysql", "confluent_kafka", "sqlglot"} <= wheels
    venv_bin = tmp_path / "build" / "venv" / "bin"
    assert (venv_bin / "binlog-cdc").exists() and not (venv_bin / "pip").exists()
    assert "usage: binlog-cdc" in result.stdout, "the installed console script printed its help"
