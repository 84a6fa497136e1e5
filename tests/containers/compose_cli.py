"""Find a Docker Compose v2 CLI to run `compose config` with; fetch Debian's build if there is none.

`docker compose config` parses, interpolates and validates a compose file against the Compose
Specification without talking to an engine, so it runs on machines without Docker. In order:
the `docker compose` plugin, a `docker-compose` v2 on PATH, a copy unpacked earlier under
$COMPOSE_SID_DIR (default ~/.cache/compose-sid), or, where apt-get and dpkg-deb exist, Debian
sid's `docker-compose` package (Compose v2, a Go binary needing only libc) downloaded into that
directory with a private apt configuration; nothing is installed into the system. Run
`python -m tests.containers.compose_cli` to fetch it ahead of time.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

_PLUGIN = Path("usr/libexec/docker/cli-plugins/docker-compose")


class ComposeUnavailable(RuntimeError):
    """No Compose v2 CLI here and no way to fetch one (no apt-get/dpkg-deb); the message says why."""


class ComposeFetchFailed(ComposeUnavailable):
    """Fetching Debian's Compose failed although apt-get is there: a broken recipe, not a missing tool."""


def cache_dir() -> Path:
    return Path(os.environ.get("COMPOSE_SID_DIR") or Path.home() / ".cache" / "compose-sid")


def _is_v2(cmd: list[str]) -> bool:
    try:
        r = subprocess.run(cmd + ["version"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return False
    # "Docker Compose version v2.29.1" upstream, "Docker Compose version 2.40.3-3" from Debian
    match = re.search(r"version v?(\d+)\.", r.stdout)
    return r.returncode == 0 and match is not None and int(match.group(1)) >= 2


def compose_command(fetch: bool = True) -> list[str]:
    """The command prefix to run compose with, e.g. ["docker", "compose"]; ComposeUnavailable if none."""
    if shutil.which("docker") and _is_v2(["docker", "compose"]):
        return ["docker", "compose"]
    standalone = shutil.which("docker-compose")
    if standalone and _is_v2([standalone]):
        return [standalone]
    cached = cache_dir() / "root" / _PLUGIN
    if cached.exists() and _is_v2([str(cached)]):
        return [str(cached)]
    if not fetch:
        raise ComposeUnavailable("no Docker Compose v2 CLI found (docker compose, docker-compose, or a cached copy)")
    _fetch_from_debian(cache_dir())
    if not _is_v2([str(cached)]):
        raise ComposeFetchFailed(f"{cached} was unpacked from Debian sid but does not run here")
    return [str(cached)]


def _debian_mirror() -> str:
    sources = Path("/etc/apt/sources.list.d/debian.sources")
    if sources.exists():
        for line in sources.read_text().splitlines():
            if line.startswith("URIs:"):
                return line.split()[1]
    return "http://deb.debian.org/debian"


def _fetch_from_debian(base: Path) -> None:
    if not (shutil.which("apt-get") and shutil.which("dpkg-deb")):
        raise ComposeUnavailable("no Docker Compose v2 CLI found, and no apt-get/dpkg-deb to fetch Debian's")
    for sub in ("lists/partial", "cache/archives/partial", "debs/partial", "root"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    (base / "sources.list").write_text(f"deb {_debian_mirror()} sid main\n")
    (base / "status").touch()
    options = [f"-o{k}={v}" for k, v in {
        "Dir::Etc::sourcelist": base / "sources.list", "Dir::Etc::sourceparts": "/nonexistent",
        "Dir::State::Lists": base / "lists", "Dir::Cache": base / "cache", "Dir::State::status": base / "status",
        "Dir::Cache::archives": base / "debs", "APT::Install-Recommends": "false", "Debug::NoLocking": "1",
        "APT::Sandbox::User": "root" if os.geteuid() == 0 else "",
    }.items() if v != ""]
    # `download` fetches the one package (its only dependency is libc6, which bookworm's satisfies)
    for args in (["update"], ["download", "docker-compose"]):
        r = subprocess.run(["apt-get", *options, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                           cwd=base / "debs")
        if r.returncode != 0:
            raise ComposeFetchFailed(f"apt-get {' '.join(args)} failed (Debian sid docker-compose):\n{r.stderr[-2000:]}")
    debs = sorted((base / "debs").glob("docker-compose_*.deb"))
    if not debs:
        raise ComposeFetchFailed(f"apt-get downloaded no docker-compose package into {base / 'debs'}")
    r = subprocess.run(["dpkg-deb", "-x", str(debs[-1]), str(base / "root")], capture_output=True, text=True)
    if r.returncode != 0:
        raise ComposeFetchFailed(f"dpkg-deb -x {debs[-1]} failed: {r.stderr}")


if __name__ == "__main__":
    try:
        print(" ".join(compose_command()))
    except ComposeUnavailable as exc:
        sys.exit(str(exc))
