#!/usr/bin/env python3
"""Fetch Oracle MySQL 9 from Debian sid into a private directory (nothing is installed).

    python3 scripts/fetch_mysql.py [DIR]      fetch if needed, print what DIR holds (JSON)

DIR defaults to $MYSQL_SID_DIR, else ~/.cache/mysql-sid. The layout is the one of the
reference harness's `mysql_sid.py` (DIR/root = the unpacked packages, DIR/manifest.json
= "this copy is complete"), so the harness and the test bed share one copy.

Why this detour: Debian 12 has no MySQL server package; sid ships Oracle MySQL
(`mysql-server-core`), but its binaries need sid's newer glibc. apt-get therefore runs
with its own sources list (`deb <this machine's mirror> sid main`), an empty dpkg status
(so the whole dependency closure, glibc included, is downloaded), its own lists and
caches, and --download-only; every .deb is unpacked with `dpkg-deb -x`, and binaries run
through the unpacked dynamic loader (`MySQLDist.cmd`).

Failures raise FetchError with apt's output: sid moves, so a broken download must be
loud, never a silent skip. Standard library only (runs before the venv exists).
"""
from __future__ import annotations

import fcntl
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable

PACKAGES = ("mysql-server-core", "mysql-client-core")
MANIFEST = "manifest.json"


class FetchError(RuntimeError):
    """The sid download or unpacking failed; the message carries apt's output."""


def default_dir() -> str:
    return os.environ.get("MYSQL_SID_DIR") or os.path.expanduser("~/.cache/mysql-sid")


def _log(msg: str) -> None:
    print(f"[fetch-mysql {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def debian_mirror() -> str:
    """The main Debian archive this machine's apt uses ($DBZ_REF_DEBIAN_MIRROR overrides)."""
    env = os.environ.get("DBZ_REF_DEBIAN_MIRROR")
    if env:
        return env.rstrip("/")
    candidates: list[tuple[str, str]] = []
    for path in ["/etc/apt/sources.list.d/debian.sources", *sorted(glob.glob("/etc/apt/sources.list.d/*.sources"))]:
        try:
            text = open(path, encoding="utf-8").read()
        except OSError:
            continue
        for stanza in re.split(r"\n\s*\n", text):
            fields = dict(re.findall(r"^([A-Za-z-]+):[ \t]*(.*)$", stanza, re.M))
            if "deb" in fields.get("Types", "").split() and fields.get("Enabled", "yes").lower() != "no":
                candidates += [(uri, fields.get("Suites", "")) for uri in fields.get("URIs", "").split()]
    for path in ["/etc/apt/sources.list", *sorted(glob.glob("/etc/apt/sources.list.d/*.list"))]:
        try:
            lines = open(path, encoding="utf-8").read().splitlines()
        except OSError:
            continue
        for line in lines:
            m = re.match(r"^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line)
            if m:
                candidates.append((m.group(1), m.group(2)))
    # the main archive, not the security archive or a third-party repository
    for uri, suites in candidates:
        if uri.rstrip("/").endswith("/debian") and "security" not in suites:
            return uri.rstrip("/")
    if candidates:
        return candidates[0][0].rstrip("/")
    raise FetchError("no Debian mirror found in /etc/apt sources; set DBZ_REF_DEBIAN_MIRROR")


@dataclass(frozen=True)
class MySQLDist:
    """An unpacked sid MySQL: paths, and argv builders that use its own loader."""

    base: str
    loader: str
    library_path: str

    @classmethod
    def open(cls, base: str) -> "MySQLDist":
        base = os.path.abspath(base)
        loaders = sorted(glob.glob(os.path.join(base, "root/usr/lib/*-linux-gnu/ld-linux*.so.*")))
        if not loaders:
            raise FetchError(f"no dynamic loader under {base}/root/usr/lib")
        triplet_dir = os.path.dirname(loaders[0])
        libdirs = [triplet_dir, os.path.join(base, "root/lib", os.path.basename(triplet_dir)),
                   os.path.join(base, "root/usr/lib")]
        return cls(base, loaders[0], os.pathsep.join(d for d in libdirs if os.path.isdir(d)))

    @property
    def usr(self) -> str:
        return os.path.join(self.base, "root", "usr")

    @property
    def mysqld(self) -> str:
        return os.path.join(self.usr, "sbin", "mysqld")

    @property
    def mysql(self) -> str:
        return os.path.join(self.usr, "bin", "mysql")

    @property
    def share(self) -> str:
        return os.path.join(self.usr, "share", "mysql")

    @property
    def plugin_dir(self) -> str:
        return os.path.join(self.usr, "lib", "mysql", "plugin")

    def cmd(self, binary: str, *args: str) -> list[str]:
        """argv running `binary` (a path inside root) with root's loader and libraries."""
        return [self.loader, "--library-path", self.library_path, binary, *args]

    def version_line(self) -> str:
        r = subprocess.run(self.cmd(self.mysqld, "--version"), capture_output=True, text=True)
        return (r.stdout or r.stderr).strip()

    def version(self) -> str | None:
        m = re.search(r"Ver\s+(\d+\.\d+\.\d+)", self.version_line())
        return m.group(1) if m else None

    def manifest(self) -> dict:
        try:
            with open(os.path.join(self.base, MANIFEST)) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}


def ensure(base: str | None = None, log: Callable[[str], None] = _log) -> MySQLDist:
    """Return the MySQLDist in `base`, downloading and unpacking it first if incomplete."""
    base = os.path.abspath(base or default_dir())
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the harness and parallel test sessions may fetch at once
        if not (os.path.exists(os.path.join(base, MANIFEST))
                and os.path.exists(os.path.join(base, "root/usr/sbin/mysqld"))):
            _download(base, log)
        return MySQLDist.open(base)


def _apt_options(base: str) -> list[str]:
    opts: list[str] = []
    for k, v in (("Dir::Etc::sourcelist", os.path.join(base, "sources.list")),
                 ("Dir::Etc::sourceparts", "/nonexistent"), ("Dir::Etc::preferences", "/nonexistent"),
                 ("Dir::Etc::preferencesparts", "/nonexistent"), ("Dir::State::Lists", os.path.join(base, "lists")),
                 ("Dir::Cache", os.path.join(base, "cache")), ("Dir::State::status", os.path.join(base, "status")),
                 ("Dir::Cache::archives", os.path.join(base, "debs")), ("APT::Install-Recommends", "false"),
                 ("Acquire::Languages", "none"), ("Debug::NoLocking", "1")):
        opts += ["-o", f"{k}={v}"]
    if os.geteuid() == 0:
        opts += ["-o", "APT::Sandbox::User=root"]  # the _apt user cannot write into root's home
    return opts


def _download(base: str, log: Callable[[str], None]) -> None:
    for tool in ("apt-get", "dpkg-deb"):
        if not shutil.which(tool):
            raise FetchError(f"{tool} not found; it is needed to fetch MySQL from Debian sid")
    mirror = debian_mirror()
    log(f"fetching {', '.join(PACKAGES)} from {mirror} sid into {base} (one-off, ~410 MB unpacked)")
    for sub in ("root", "debs", "lists", "cache"):
        shutil.rmtree(os.path.join(base, sub), ignore_errors=True)
    for sub in ("lists/partial", "cache/archives/partial", "debs/partial", "root"):
        os.makedirs(os.path.join(base, sub), exist_ok=True)
    with open(os.path.join(base, "sources.list"), "w") as f:
        f.write(f"deb {mirror} sid main\n")
    open(os.path.join(base, "status"), "w").close()  # empty dpkg status: fetch the full closure
    opts = _apt_options(base)
    for argv in (["apt-get", *opts, "update"], ["apt-get", *opts, "install", "--download-only", "-y", *PACKAGES]):
        r = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            raise FetchError(f"{argv[0]} {' '.join(argv[-3:])} failed (rc={r.returncode}):\n"
                             f"{r.stdout[-3000:]}{r.stderr[-3000:]}")
    debs = sorted(glob.glob(os.path.join(base, "debs", "*.deb")))
    if not debs:
        raise FetchError("apt-get downloaded no .deb files")
    packages = {}
    for deb in debs:
        subprocess.run(["dpkg-deb", "-x", deb, os.path.join(base, "root")], check=True)
        fields = subprocess.run(["dpkg-deb", "-f", deb, "Package", "Version"], capture_output=True,
                                text=True, check=True).stdout
        f = dict(re.findall(r"^(\S+):\s*(.*)$", fields, re.M))
        packages[f.get("Package", os.path.basename(deb))] = f.get("Version", "?")
    dist = MySQLDist.open(base)
    line = dist.version_line()
    if not dist.version():
        raise FetchError(f"unpacked mysqld does not run: {line}")
    manifest = {"suite": "sid", "requested": list(PACKAGES), "mysqld_version": line,
                "fetched_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "packages": packages}
    tmp = os.path.join(base, MANIFEST + ".tmp")
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
    os.replace(tmp, os.path.join(base, MANIFEST))
    for sub in ("lists", "cache", "debs"):  # only root/ is needed from now on
        shutil.rmtree(os.path.join(base, sub), ignore_errors=True)
    log(f"{line} ready ({len(packages)} packages unpacked)")


def main(argv: list[str]) -> int:
    try:
        dist = ensure(argv[1] if len(argv) > 1 else None)
    except (FetchError, OSError, subprocess.CalledProcessError) as e:
        _log(f"ERROR: cannot provide MySQL from Debian sid: {e}")
        return 1
    print(json.dumps({"dir": dist.base, "mysqld": dist.version_line(),
                      "mysql-server-core": dist.manifest().get("packages", {}).get("mysql-server-core")}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
