"""What every private database server of the test bed has in common.

A server lives in its own work directory (datadir, socket, pid file, logs), listens on
127.0.0.1 only, on an OS-assigned port unless one is given, and is a context manager whose
exit stops it (SIGTERM, then SIGKILL) so that no process outlives a test session. The
flavours (mariadb.py, mysql.py) supply the option file, initialisation and the client.
"""
from __future__ import annotations

import atexit
import enum
import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any, ClassVar

import pymysql

from tests.support.datadir_templates import initialise_from_template, template_key
from tests.support.ports import free_port
from tests.support.waiting import PROCESS_BOUND_S, wait_until

DBZ_USER = "debezium"
DBZ_PASSWORD = "dbz"
# the reference harness's grants, which are also what Debezium's documentation asks for
DBZ_GRANTS = "SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, LOCK TABLES"


class Profile(str, enum.Enum):
    DEFAULTS = "defaults"    # what users run: binlog in ROW/FULL/FULL, everything else the server's default
    REFERENCE = "reference"  # exactly the real-Debezium harness's set-up, so binlog positions match its goldens


class ServerError(RuntimeError):
    """A server did not initialise or start, or SQL failed; the message has the log tail."""


def disk_note(where: Path) -> str:
    """Free space where a server writes: a full disk shows up as servers that cannot start."""
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        return f"(free space in {where} unknown)"
    return f"{free / 2**30:.1f} GiB free in {where}"


class DatabaseServer:
    flavour: ClassVar[str]
    binlog_basename: ClassVar[str]
    binlog_status_sql: ClassVar[str]
    # run before CREATE USER, in the same client session (MySQL keeps the user out of the binlog)
    user_setup_prefix: ClassVar[str] = ""

    def __init__(self, workdir: str | Path, port: int | None = None, profile: Profile | str = Profile.DEFAULTS,
                 extra_options: tuple[str, ...] = ()):
        self.workdir = Path(workdir).absolute()
        # Appended to the option file as given (e.g. ssl_cert=..., require_secure_transport=ON).
        self.extra_options = tuple(extra_options)
        self.profile = Profile(profile)
        self._fixed_port = port is not None
        self.port = port if port is not None else free_port()
        self.datadir = self.workdir / "data"
        self.rundir = self.workdir / "run"
        self.socket = self.rundir / "mysqld.sock"
        self.pidfile = self.rundir / "mysqld.pid"
        self.error_log = self.rundir / "error.log"
        self.cnf = self.workdir / "my.cnf"
        self.host = "127.0.0.1"
        self.user = DBZ_USER
        self.password = DBZ_PASSWORD
        self._proc: subprocess.Popen | None = None

    # ---------------------------------------------------------------- flavour hooks
    def version(self) -> str:
        raise NotImplementedError

    def _write_cnf(self) -> None:
        raise NotImplementedError

    def _initialize(self) -> None:
        raise NotImplementedError

    def _server_cmd(self) -> list[str]:
        raise NotImplementedError

    def client_cmd(self) -> list[str]:
        """argv of the command-line client as root over the socket (batch mode, utf8mb4)."""
        raise NotImplementedError

    def _after_users_created(self) -> None:
        pass

    @property
    def requires_tls(self) -> bool:
        return any(o.replace(" ", "").lower() in ("require_secure_transport=on", "require-secure-transport=on")
                   for o in self.extra_options)

    # ---------------------------------------------------------------- lifecycle
    def start(self) -> "DatabaseServer":
        for attempt in (1, 2):
            try:
                self._start_once()
                break
            except ServerError as exc:
                in_use = "already in use" in self.error_log_tail() or "Bind on TCP/IP port" in self.error_log_tail()
                # Seen rarely on a loaded 2-core machine: the system-table bootstrap fails once and works on retry.
                install_failed = "install-db failed" in str(exc) or "--initialize" in str(exc)
                if attempt == 2 or not (install_failed or (in_use and not self._fixed_port)):
                    raise
                if in_use:
                    self.port = free_port()  # someone took the free port between probe and bind
        atexit.register(self.stop)  # a crashed test session must not leave a server behind
        return self

    def _start_once(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)
        self.datadir.mkdir(parents=True)
        self.rundir.mkdir(parents=True)
        self._write_cnf()
        key = template_key(self.flavour, self.version(), self.cnf.read_text(), self.workdir, self.port)
        initialise_from_template(key, self.datadir, self._initialize)
        with open(self.rundir / "stdout.log", "w") as out:
            self._proc = subprocess.Popen(self._server_cmd(), stdout=out, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            wait_until(self._ready, PROCESS_BOUND_S, f"{self.flavour} on port {self.port}", interval=0.2)
        except (TimeoutError, ServerError) as e:
            self.stop()
            raise ServerError(f"{e}\n{disk_note(self.workdir)}\n{self.error_log_tail()}") from None
        self.run_sql(self.user_setup_prefix + "".join(
            f"CREATE USER '{DBZ_USER}'@'{h}' IDENTIFIED BY '{DBZ_PASSWORD}';\n" for h in ("127.0.0.1", "localhost"))
            + "".join(f"GRANT {DBZ_GRANTS} ON *.* TO '{DBZ_USER}'@'{h}';\n" for h in ("127.0.0.1", "localhost"))
            + "FLUSH PRIVILEGES;\n", what="user set-up")
        self._after_users_created()

    def _ready(self) -> bool:
        if self._proc is None or self._proc.poll() is not None:
            raise ServerError(f"{self.flavour} server exited during start-up")
        if not self.socket.exists():
            return False
        r = subprocess.run(self.client_cmd() + ["-e", "SELECT 1"], capture_output=True, stdin=subprocess.DEVNULL)
        return r.returncode == 0

    def _kill_dump_threads(self) -> None:
        """A binlog dump thread whose client vanished blocks MySQL's shutdown until its next
        heartbeat (~8 s); kill such threads first (harmless on MariaDB)."""
        try:
            out = subprocess.run(self.client_cmd() + ["-e", "SELECT id FROM information_schema.processlist "
                                                            "WHERE command LIKE 'Binlog Dump%'"],
                                 capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL).stdout
            for tid in out.split():
                subprocess.run(self.client_cmd() + ["-e", f"KILL {int(tid)}"], capture_output=True, timeout=10,
                               stdin=subprocess.DEVNULL)
        except (subprocess.SubprocessError, ValueError, OSError):
            pass  # best effort: stop() falls back to SIGKILL anyway

    def stop(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            self._kill_dump_threads()
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._proc = None
        atexit.unregister(self.stop)

    def kill(self) -> None:
        """SIGKILL: a crash, nothing flushed beyond what the server had written."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        self._proc = None
        atexit.unregister(self.stop)

    def discard(self) -> None:
        """Stop the server and free its disk: a data directory is 90-190 MB and the suite starts ~150 servers,
        which filled CI's disk when they stayed until the session ended. The binlog files (and the index) stay,
        being what tests read after a server is gone (tests/conformance/positions.py); so do the logs.
        A SIGKILL, not a shutdown: nothing here is read again but the binlog, which every commit has already
        written to the file (MySQL's clean shutdown took ~0.6 s per server, ~150 servers a suite run)."""
        self.kill()
        if self.datadir.is_dir():
            for entry in self.datadir.iterdir():
                if entry.name.startswith(self.binlog_basename + "."):
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)
        shutil.rmtree(self.rundir / "tmp", ignore_errors=True)

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def __enter__(self) -> "DatabaseServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.discard()

    # ---------------------------------------------------------------- SQL
    def run_sql(self, text: str, database: str | None = None, what: str = "SQL") -> str:
        """Feed a whole SQL text to the command-line client in one session, as root over the
        socket (how the harness loads workload sections). Returns stdout (tab-separated)."""
        argv = self.client_cmd() + ([database] if database else [])
        r = subprocess.run(argv, input=text.encode("utf-8"), capture_output=True)
        if r.returncode != 0:
            raise ServerError(f"{what} failed (rc={r.returncode}): {r.stderr.decode('utf-8', 'replace').strip()}")
        return r.stdout.decode("utf-8", "replace")

    def connect(self, database: str | None = None, *, root: bool = True, **kwargs: Any) -> pymysql.Connection:
        """A PyMySQL connection: root over the socket, or (root=False) the connector's user over TCP.

        Without TLS unless asked for (ssl* arguments): PyMySQL's default, preferred, loads the system's CA bundle
        into a new context per connection, ~120 ms of CPU, and the suite opens thousands."""
        if not any(name.startswith("ssl") for name in kwargs):
            kwargs["ssl_disabled"] = True
        if root:
            return pymysql.connect(unix_socket=str(self.socket), user="root", password="", database=database,
                                   charset="utf8mb4", autocommit=True, **kwargs)
        return pymysql.connect(host=self.host, port=self.port, user=self.user, password=self.password,
                               database=database, charset="utf8mb4", autocommit=True, **kwargs)

    def query(self, sql: str, args: Any = None, database: str | None = None) -> list[tuple]:
        with self.connect(database) as conn, conn.cursor() as cur:
            cur.execute(sql, args)
            return list(cur.fetchall())

    def binlog_position(self) -> tuple[str, int]:
        """(file, position) of the end of the binlog, i.e. where the next event will be written."""
        row = self.query(self.binlog_status_sql)[0]
        return row[0], int(row[1])

    def binlog_files(self) -> list[Path]:
        # by number: mariadb-bin.999999 comes before mariadb-bin.1000000
        return sorted(self.datadir.glob(self.binlog_basename + ".[0-9]*"), key=lambda p: int(p.suffix[1:]))

    def connector_properties(self) -> dict[str, str]:
        """The database.* properties a connector needs to reach this server."""
        return {"database.hostname": self.host, "database.port": str(self.port),
                "database.user": self.user, "database.password": self.password}

    # ---------------------------------------------------------------- diagnostics
    def error_log_tail(self, chars: int = 4000) -> str:
        try:
            return self.error_log.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return "(no error log)"

    def dump_diagnostics(self) -> str:
        """Everything worth reading when a test against this server failed."""
        lines = [f"{self.flavour} {self.profile.value} pid={self.pid} port={self.port} workdir={self.workdir}"]
        if self.running:
            try:
                lines.append(f"binlog at {self.binlog_position()}")
                lines += ["processlist:"] + ["  " + "\t".join(map(str, r)) for r in self.query("SHOW PROCESSLIST")]
            except (pymysql.MySQLError, OSError) as e:
                lines.append(f"(cannot query: {e})")
        lines += ["error log tail:", self.error_log_tail()]
        return "\n".join(lines)


def is_root() -> bool:
    return os.geteuid() == 0
