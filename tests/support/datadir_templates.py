"""Initialised data directories, made once and copied: `mariadb-install-db` takes ~3 s and MySQL's
`--initialize-insecure` ~8 s on the 2-core test machine, and the suite starts ~150 private servers.

A template is the data directory exactly as the flavour's initialisation left it, keyed by the server version
and the option file (with the instance's own paths and port taken out, since they do not change what
initialisation writes). A copy is what a fresh initialisation would give, except for what identifies an
instance: MySQL's `auto.cnf` (the server UUID, which GTIDs carry) is dropped so that the server makes a new one,
and the binlog index, which names files by absolute path, is rewritten for the new data directory.

Templates live in the system temp directory, shared by the xdist workers (a lock file serialises building one)
and by later sessions. An option file naming other paths is not templated: its key would be unique, so a template
would only cost a copy. TLS certificate paths are the exception: initialisation does not read them.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

ROOT_ENV = "BINLOG_CDC_DATADIR_TEMPLATES"  # "off" disables templates; a path moves them


def templates_root() -> Path | None:
    where = os.environ.get(ROOT_ENV, "")
    if where.lower() in ("off", "0", "no"):
        return None
    return Path(where) if where else Path(tempfile.gettempdir()) / f"binlog-cdc-datadir-templates-{os.getuid()}"


TLS_FILE_OPTIONS = ("ssl_ca=", "ssl_cert=", "ssl_key=", "ssl-ca=", "ssl-cert=", "ssl-key=")


def template_key(flavour: str, version: str, cnf_text: str, workdir: Path, port: int) -> str | None:
    """The key of this option file's template, or None when it names paths outside the instance."""
    normal = [line.replace(str(workdir), "@WORKDIR@") for line in cnf_text.splitlines()
              if not line.startswith("port=")]
    # Where the TLS files are does not change what initialisation writes (the server reads them when it starts):
    # a TLS server's template is keyed by which TLS options it has, not by the test's temp directory.
    normal = [line.split("=", 1)[0] + "=@TLS-FILE@" if line.startswith(TLS_FILE_OPTIONS) else line
              for line in normal]
    foreign = [line for line in normal if "/" in line and "@WORKDIR@" not in line
               and not line.startswith(("basedir=", "lc-messages-dir=", "character-sets-dir=", "plugin-dir="))]
    if foreign:
        return None
    digest = hashlib.sha256("\n".join([flavour, version, *normal]).encode()).hexdigest()[:20]
    return f"{flavour}-{version}-{digest}"


def initialise_from_template(key: str | None, datadir: Path, initialise: Callable[[], None]) -> None:
    """Fill the (empty) `datadir`: from the template `key`, building the template with `initialise` first when
    there is none yet; with `initialise` alone when there is no key or templates are off."""
    root = templates_root()
    if key is None or root is None:
        initialise()
        return
    root.mkdir(parents=True, exist_ok=True)
    template = root / key
    if not (template / ".complete").exists():
        with open(root / f"{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (template / ".complete").exists():
                initialise()
                _publish(datadir, template)
                return
    _copy(template, datadir)


def _publish(datadir: Path, template: Path) -> None:
    building = template.with_name(f"{template.name}.building-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    shutil.copytree(datadir, building, symlinks=True)
    (building / ".complete").write_text(str(datadir) + "\n")  # the data directory the index files name
    shutil.rmtree(template, ignore_errors=True)
    building.rename(template)


def _copy(template: Path, datadir: Path) -> None:
    built_in = Path((template / ".complete").read_text().strip())
    shutil.copytree(template, datadir, symlinks=True, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".complete", "auto.cnf"))
    for index in datadir.glob("*.index"):
        moved = [str(datadir / Path(line).name) if line.startswith(str(built_in)) else line
                 for line in index.read_text().splitlines()]
        index.write_text("".join(line + "\n" for line in moved))
