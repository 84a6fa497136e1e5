"""Private MariaDB / MySQL 9 servers for the event-serialization tests.

Each server lives in a fresh directory the caller owns (pytest's temp dir), listens on an
OS-assigned port on 127.0.0.1 only and is stopped by the fixture that started it. MySQL comes from the reference harness's unpacked Debian-sid copy
(`~/.cache/mysql-sid`, or $MYSQL_SID_DIR); without it the MySQL tests skip with the reason.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.ports import free_port
from tests.support.waiting import wait_until



@dataclass
class Server:
    flavour: str  # "mariadb" | "mysql"
    workdir: Path
    port: int
    proc: subprocess.Popen | None = None
    loader: list[str] = field(default_factory=list)

    @property
    def sock(self) -> str:
        return str(self.workdir / "mysqld.sock")

    def client(self) -> list[str]:
        binary = "mariadb" if self.flavour == "mariadb" else self._mysql_bin("bin/mysql")
        return [*self.loader, binary, "--no-defaults", f"--socket={self.sock}", "-uroot",
                "--default-character-set=utf8mb4", "--batch", "--skip-column-names"]

    def sql(self, text: str) -> str:
        r = subprocess.run(self.client(), input=text.encode("utf-8"), capture_output=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"{self.flavour} SQL failed: {r.stderr.decode('utf-8', 'replace')}")
        return r.stdout.decode("utf-8")

    def connection_settings(self) -> dict:
        return {"unix_socket": self.sock, "user": "root", "password": ""}

    def _mysql_bin(self, rel: str) -> str:
        return str(Path(mysql_sid_dir()) / "root/usr" / rel)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)


def mysql_sid_dir() -> str:
    return os.environ.get("MYSQL_SID_DIR") or os.path.expanduser("~/.cache/mysql-sid")


def mysql_available() -> str | None:
    """None when MySQL 9 can run here, else the reason it cannot."""
    base = Path(mysql_sid_dir())
    if not (base / "manifest.json").exists():
        return f"no unpacked MySQL at {base} (run /work/shared/reference/mysql_sid.py)"
    return None


def _loader() -> list[str]:
    root = Path(mysql_sid_dir()) / "root"
    loaders = sorted(glob.glob(str(root / "usr/lib/*-linux-gnu/ld-linux*.so.*")))
    libdir = os.path.dirname(loaders[0])
    return [loaders[0], "--library-path", os.pathsep.join([libdir, str(root / "usr/lib")])]


def _wait_ready(server: Server, timeout: float = 60.0) -> None:
    def ready() -> bool:
        assert server.proc is not None
        if server.proc.poll() is not None:
            log = (server.workdir / "error.log").read_text(errors="replace")[-3000:]
            raise RuntimeError(f"{server.flavour} exited:\n{log}")
        return os.path.exists(server.sock) and subprocess.run(
            server.client() + ["-e", "SELECT 1"], capture_output=True).returncode == 0

    wait_until(ready, timeout, f"{server.flavour} in {server.workdir} to accept connections", interval=0.2)


def start_mariadb(workdir: Path) -> Server:
    port = free_port()
    shutil.rmtree(workdir, ignore_errors=True)
    (workdir / "data").mkdir(parents=True)
    cnf = workdir / "my.cnf"
    user = "user=root\n" if os.geteuid() == 0 else ""
    # MariaDB defaults otherwise (checksums on, annotate events on): values do not depend on them
    cnf.write_text(f"""[mariadbd]
datadir={workdir / 'data'}
socket={workdir / 'mysqld.sock'}
pid-file={workdir / 'mysqld.pid'}
port={port}
bind-address=127.0.0.1
skip-name-resolve
log_error={workdir / 'error.log'}
{user}server_id=1
log_bin={workdir / 'data' / 'mariadb-bin'}
binlog_format=ROW
binlog_row_image=FULL
binlog_row_metadata=FULL
character-set-server=utf8mb4
collation-server=utf8mb4_general_ci
default-time-zone='+00:00'
innodb_buffer_pool_size=32M
performance_schema=OFF
""")
    r = subprocess.run(["mariadb-install-db", f"--defaults-file={cnf}", "--auth-root-authentication-method=normal",
                        "--skip-test-db"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("mariadb-install-db failed: " + r.stderr)
    server = Server("mariadb", workdir, port)
    server.proc = subprocess.Popen(["mariadbd", f"--defaults-file={cnf}"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
    _wait_ready(server)
    return server


def start_mysql(workdir: Path) -> Server:
    port = free_port()
    shutil.rmtree(workdir, ignore_errors=True)
    (workdir / "tmp").mkdir(parents=True)
    usr = Path(mysql_sid_dir()) / "root/usr"
    cnf = workdir / "my.cnf"
    user = "user=root\n" if os.geteuid() == 0 else ""
    cnf.write_text(f"""[mysqld]
basedir={usr}
lc-messages-dir={usr / 'share/mysql'}
character-sets-dir={usr / 'share/mysql/charsets'}
plugin-dir={usr / 'lib/mysql/plugin'}
datadir={workdir / 'data'}
socket={workdir / 'mysqld.sock'}
pid-file={workdir / 'mysqld.pid'}
tmpdir={workdir / 'tmp'}
secure-file-priv={workdir / 'tmp'}
log-error={workdir / 'error.log'}
{user}port={port}
bind-address=127.0.0.1
skip-name-resolve
mysqlx=OFF
server-id=1
log-bin={workdir / 'data' / 'mysql-bin'}
binlog_format=ROW
binlog_row_image=FULL
binlog_row_metadata=FULL
gtid_mode=ON
enforce_gtid_consistency=ON
default-time-zone='+00:00'
performance_schema=OFF
innodb_buffer_pool_size=64M
""")
    loader = _loader()
    mysqld = str(usr / "sbin/mysqld")
    r = subprocess.run([*loader, mysqld, f"--defaults-file={cnf}", "--initialize-insecure"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("mysqld --initialize-insecure failed: " + r.stderr)
    server = Server("mysql", workdir, port, loader=loader)
    server.proc = subprocess.Popen([*loader, mysqld, f"--defaults-file={cnf}"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
    _wait_ready(server)
    return server
