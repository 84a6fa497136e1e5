"""MariaDB 10.11 from Debian (`mariadbd`, `mariadb-install-db`, `mariadb` on PATH).

Profiles:
* defaults  - what users run (infra.md): log_bin, ROW, FULL row image, FULL row metadata;
              checksums (CRC32) and ANNOTATE_ROWS events stay on, as MariaDB ships them.
* reference - exactly /work/shared/reference/run_reference.py's MariaDB: the four MariaDB
              "disguise" settings (version string 5.5.5-<ver>-log, binlog_checksum=NONE,
              binlog_annotate_row_events=OFF; the DDL filter lives on the connector side),
              gtid_domain_id=0, gtid_strict_mode=ON, time zone +00:00, and the user created
              the same way, so that a workload's binlog positions equal the goldens'.
"""
from __future__ import annotations

import re
import subprocess
from typing import ClassVar

from tests.support.dbserver import DatabaseServer, Profile, ServerError, is_root

# Option order follows the harness's mariadb.cnf so the two files can be diffed by eye.
_COMMON_HEAD = ("skip-name-resolve",)
_REFERENCE_ONLY = (
    "binlog_annotate_row_events=OFF",  # mirrors MySQL's binlog_rows_query_log_events=OFF
    "binlog_checksum=NONE",            # the GTID->BEGIN rewrite for MySQL-protocol replicas needs it
    "log_slave_updates=ON",
    "gtid_domain_id=0",
    "gtid_strict_mode=ON",
)
_TAIL = (
    "expire_logs_days=1",
    "character-set-server=utf8mb4",
    "collation-server=utf8mb4_general_ci",
)
_REFERENCE_TAIL = ("default-time-zone='+00:00'",)
_RESOURCES = ("innodb_buffer_pool_size=128M", "innodb_log_file_size=16M", "performance_schema=OFF")


class MariaDBServer(DatabaseServer):
    flavour: ClassVar[str] = "mariadb"
    binlog_basename: ClassVar[str] = "mariadb-bin"
    binlog_status_sql: ClassVar[str] = "SHOW MASTER STATUS"

    def version(self) -> str:
        out = subprocess.run(["mariadbd", "--version"], capture_output=True, text=True).stdout
        m = re.search(r"Ver\s+(\d+\.\d+\.\d+)", out)
        return m.group(1) if m else "10.11.0"

    def version_string(self) -> str | None:
        """What the server reports to clients (the reference profile disguises it)."""
        return f"5.5.5-{self.version()}-log" if self.profile is Profile.REFERENCE else None

    def _write_cnf(self) -> None:
        # A private tmpdir: with the shared /tmp, CI saw an ALTER fail with "Error on delete of
        # '/tmp/#sql-temptable-...'" (errcode 2) while other tests ran beside it.
        tmpdir = self.rundir / "tmp"
        tmpdir.mkdir(parents=True, exist_ok=True)
        lines = ["[mariadbd]", f"datadir={self.datadir}", f"socket={self.socket}", f"pid-file={self.pidfile}",
                 f"tmpdir={tmpdir}", f"port={self.port}", "bind-address=127.0.0.1", *_COMMON_HEAD,
                 f"log_error={self.error_log}"]
        if is_root():
            lines.append("user=root")
        if self.profile is Profile.REFERENCE:
            # parses as < 8 (Debezium >= 3.6 falls back to SHOW MASTER STATUS) and has no "MariaDB",
            # so a MySQL-protocol replica gets GTID events rewritten into BEGIN queries
            lines.append(f"version={self.version_string()}")
        lines += ["server_id=1", f"log_bin={self.datadir / self.binlog_basename}", "binlog_format=ROW",
                  "binlog_row_image=FULL", "binlog_row_metadata=FULL"]
        if self.profile is Profile.REFERENCE:
            lines += [*_REFERENCE_ONLY, *_TAIL, *_REFERENCE_TAIL]
        else:
            lines += list(_TAIL)
        lines += [*_RESOURCES, *self.extra_options]
        self.cnf.write_text("\n".join(lines) + "\n")

    def _initialize(self) -> None:
        r = subprocess.run(["mariadb-install-db", f"--defaults-file={self.cnf}",
                            "--auth-root-authentication-method=normal", "--skip-test-db"],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            raise ServerError("mariadb-install-db failed:\n" + r.stdout[-3000:] + r.stderr[-3000:]
                              + "\nerror log:\n" + self.error_log_tail())

    def _server_cmd(self) -> list[str]:
        return ["mariadbd", f"--defaults-file={self.cnf}"]

    def client_cmd(self) -> list[str]:
        return ["mariadb", "--no-defaults", f"--socket={self.socket}", "-uroot",
                "--default-character-set=utf8mb4", "--batch", "--skip-column-names"]
