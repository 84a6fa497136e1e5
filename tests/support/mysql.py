"""Oracle MySQL 9 from Debian sid, unpacked privately by scripts/fetch_mysql.py.

Both profiles are the reference harness's `--server mysql` set-up, because the harness
runs MySQL with its own defaults (gtid_mode=ON, CRC32 checksums, binary JSON): the only
difference is that `defaults` keeps the server's own time zone.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

from tests.support.dbserver import DBZ_PASSWORD, DBZ_USER, DatabaseServer, Profile, ServerError, is_root

_FETCH_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fetch_mysql.py"


def _fetch_module():
    """scripts/fetch_mysql.py is the one implementation of the sid recipe; it is a standalone
    script (it runs before the venv exists), so load it by path rather than as a package."""
    name = "binlog_cdc_fetch_mysql"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _FETCH_SCRIPT)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def mysql_dist(base: str | None = None):
    """The unpacked MySQL (fetching it on first use); raises fetch_mysql.FetchError."""
    return _fetch_module().ensure(base)


class MySQLServer(DatabaseServer):
    flavour: ClassVar[str] = "mysql"
    binlog_basename: ClassVar[str] = "mysql-bin"
    binlog_status_sql: ClassVar[str] = "SHOW BINARY LOG STATUS"  # SHOW MASTER STATUS is gone in 8.4+
    # CREATE USER is binlogged with a randomly salted hash, which would make every later
    # position vary from run to run: keep the user set-up out of the binlog (as the harness).
    user_setup_prefix: ClassVar[str] = "SET SESSION sql_log_bin = 0;\n"

    def __init__(self, workdir, port=None, profile=Profile.DEFAULTS, dist=None, extra_options=()):
        super().__init__(workdir, port, profile, extra_options)
        self.dist = dist if dist is not None else mysql_dist()
        self.tmpdir = self.rundir / "tmp"
        self.filesdir = self.workdir / "files"

    def version(self) -> str:
        return self.dist.version() or "?"

    def _write_cnf(self) -> None:
        self.tmpdir.mkdir(parents=True, exist_ok=True)
        self.filesdir.mkdir(parents=True, exist_ok=True)
        d = self.dist
        lines = ["[mysqld]", f"basedir={d.usr}", f"lc-messages-dir={d.share}",
                 f"character-sets-dir={Path(d.share) / 'charsets'}", f"plugin-dir={d.plugin_dir}",
                 f"datadir={self.datadir}", f"socket={self.socket}", f"pid-file={self.pidfile}",
                 f"tmpdir={self.tmpdir}", f"secure-file-priv={self.filesdir}", f"log-error={self.error_log}"]
        if is_root():
            lines.append("user=root")  # only allowed (and needed) when started as root
        lines += [f"port={self.port}", "bind-address=127.0.0.1", "skip-name-resolve", "mysqlx=OFF", "server-id=1",
                  f"log-bin={self.datadir / self.binlog_basename}", "binlog_format=ROW", "binlog_row_image=FULL",
                  "binlog_row_metadata=FULL", "gtid_mode=ON", "enforce_gtid_consistency=ON"]
        if self.profile is Profile.REFERENCE:
            lines.append("default-time-zone='+00:00'")
        # 16 MB of redo instead of 100: every test server's data directory is a copy (datadir_templates.py)
        lines += ["performance_schema=OFF", "innodb_buffer_pool_size=128M", "innodb_redo_log_capacity=16M",
                  *self.extra_options]
        self.cnf.write_text("\n".join(lines) + "\n")

    def _initialize(self) -> None:
        r = subprocess.run(self.dist.cmd(self.dist.mysqld, f"--defaults-file={self.cnf}", "--initialize-insecure"),
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            raise ServerError("mysqld --initialize-insecure failed:\n" + r.stdout + r.stderr + self.error_log_tail())

    def _server_cmd(self) -> list[str]:
        return self.dist.cmd(self.dist.mysqld, f"--defaults-file={self.cnf}")

    def client_cmd(self) -> list[str]:
        return self.dist.cmd(self.dist.mysql, "--no-defaults", f"--socket={self.socket}", "-uroot",
                             "--default-character-set=utf8mb4", "--batch", "--skip-column-names")

    def _after_users_created(self) -> None:
        # caching_sha2_password: a client without TLS and without RSA key retrieval (Connector/J
        # with ssl.mode=disabled) can only log in via the server's cache of the hash. One RSA
        # login per account fills it, exactly as the harness does.
        for where in (["--protocol=TCP", "-h127.0.0.1", f"-P{self.port}"], [f"--socket={self.socket}"]):
            r = subprocess.run(self.dist.cmd(self.dist.mysql, "--no-defaults", *where, f"-u{DBZ_USER}",
                                             f"-p{DBZ_PASSWORD}",
                                             "--ssl-mode=" + ("REQUIRED" if self.requires_tls else "DISABLED"),
                                             "--get-server-public-key",
                                             "--batch", "--skip-column-names", "-e", "SELECT CURRENT_USER()"),
                               capture_output=True, text=True, stdin=subprocess.DEVNULL)
            if r.returncode != 0:
                raise ServerError(f"login as {DBZ_USER} failed: {r.stderr.strip()}")

    def gtid_executed(self) -> str:
        return str(self.query("SELECT @@GLOBAL.gtid_executed")[0][0]).replace("\n", "")

    def server_uuid(self) -> str:
        return str(self.query("SELECT @@server_uuid")[0][0])
