"""`binlog-cdc`: run | validate | offsets show. Parses arguments and calls the daemon; no logic here.

`main` is the one place where failures become exit codes (connector.errors.ExitCode, README "Running it"):
every error ends in one log line and its code, never in a raw traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import traceback
from pathlib import Path

import pymysql
from confluent_kafka import KafkaException

from connector.config.fields import FIELDS
from connector.config.loaders import load_config
from connector.errors import BinlogCdcError, ConfigError, ExitCode, KafkaConfigError, SourceConnectionError
from connector.transforms.config import transform_settings

log = logging.getLogger("binlog-cdc")


def _producer_overrides(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError([f"--producer {item!r}: expected KEY=VALUE"])
        out[key.strip()] = value
    return out


def _load(args: argparse.Namespace):
    return load_config(args.config, bootstrap=args.kafka, producer_overrides=_producer_overrides(args.producer))


def _check_kafka(loaded) -> None:
    """Kafka client settings (security included) are checked before anything connects."""
    from connector.kafka.producer_config import producer_config_problems

    problems = producer_config_problems(loaded.settings(transform_settings).kafka.producer)
    if problems:
        raise ConfigError([f"Kafka producer: {p}" for p in problems])


def cmd_run(args: argparse.Namespace) -> int:
    from connector.daemon import run
    from connector.ops.heap import return_big_buffers_to_the_os
    from connector.shutdown import ShutdownToken

    return_big_buffers_to_the_os()  # a long-lived service: RSS must come down after big rows (BLOBs)
    loaded = _load(args)
    _check_kafka(loaded)
    token = ShutdownToken()
    token.install()
    return run(loaded, token, Path(args.status_file) if args.status_file else None)


def cmd_validate(args: argparse.Namespace) -> int:
    """Configuration, server settings and privileges (fatal), then what a start would find (reported):
    the stored offset and whether its binlog is still there, the binlog expiry, a server-id clash."""
    import time

    from connector.binlog import connection as dbconn
    from connector.binlog.reader import binlog_file_start_time
    from connector.daemon import connection_params, make_offset_store, snapshot_policy
    from connector.streaming.purge_monitor import SERVER_ID_OFFSET

    from connector.config.refusals import refused_properties

    loaded = _load(args)
    for warning in loaded.warnings:
        print(f"warning: {warning}")
    # known properties whose behaviour is not implemented; settings() then stops on them (and on transforms)
    for problem in refused_properties(loaded.source):
        print(f"refused: {problem}")
    settings = loaded.settings(transform_settings)
    _check_kafka(loaded)
    snapshot_policy(settings)  # snapshot modes that cannot run fail here as at start
    params = connection_params(settings)
    store = make_offset_store(settings)
    try:
        stored = store.load()
    finally:
        store.close()
    conn = dbconn.connect(params)
    problems = 0
    try:
        info = dbconn.server_info(conn)
        dbconn.check_server(info)
        dbconn.check_privileges(conn, settings.database.user)
        status = dbconn.binlog_status(conn)
        print(f"ok: {info.flavor} {info.version}, binlog at {status.position}, gtid_mode={info.gtid_mode}")
        replicas = dbconn.replica_server_ids(conn)
        if replicas is None:
            print("note: cannot list the server's replicas (no privilege); database.server.id clashes not checked")
        elif settings.database.server_id in replicas:
            problems += 1
            print(f"problem: another replica is connected with database.server.id={settings.database.server_id}; "
                  f"two replicas with one server id make the server drop one of them (pick a unique id)")
        if stored is None:
            print(f"offsets: none stored; the connector will start with snapshot.mode={settings.snapshot.mode.value}")
        else:
            print(f"offsets: {json.dumps(stored, separators=(',', ':'))}")
            est = dbconn.purge_estimate(
                conn, str(stored.get("file")), time.time(),
                lambda f: binlog_file_start_time(params, settings.database.server_id + SERVER_ID_OFFSET, f))
            if not est.available:
                problems += 1
                print(f"problem: the stored position {stored.get('file')}:{stored.get('pos')} was purged (oldest "
                      f"binlog {est.oldest_file}); a start fails unless snapshot.mode=when_needed")
            elif est.seconds_left is None:
                print("binlog expiry: off (binlogs are never purged automatically)")
            else:
                print(f"binlog expiry: {est.expire_seconds:.0f} s; the stored position's binlog may be purged in "
                      f"about {est.seconds_left:.0f} s")
    finally:
        conn.close()
    return 1 if problems else 0


def cmd_offsets_set(args: argparse.Namespace) -> int:
    """Like Debezium's `set-binlog-position` signal, for a stopped connector: the next start streams from
    FILE:POS (and, on a GTID server, treats GTIDS as already done). The schema history is left as it is."""
    from connector.binlog import connection as dbconn
    from connector.gtids.sets import GtidSet
    from connector.offsets.position import SourceOffset
    from connector.daemon import connection_params, make_offset_store

    settings = _load(args).settings(transform_settings)
    try:
        gtids = str(GtidSet.parse(args.gtids)) if args.gtids else None
    except ValueError as exc:
        raise ConfigError([f"--gtids: {exc}"]) from None
    if args.pos < 4:
        raise ConfigError([f"--pos {args.pos}: a binlog position is at least 4 (after the magic header)"])
    if not args.no_check:
        conn = dbconn.connect(connection_params(settings))
        try:
            info = dbconn.server_info(conn)
            sizes = dict(dbconn.binary_logs(conn))
        finally:
            conn.close()
        if args.file not in sizes:
            raise ConfigError([f"--file {args.file}: not on the server (binlogs: {', '.join(sizes) or 'none'})"])
        if args.pos > sizes[args.file]:
            raise ConfigError([f"--pos {args.pos}: beyond the end of {args.file} ({sizes[args.file]} bytes)"])
        if info.gtid_mode and gtids is None:
            print("warning: the server has GTIDs; without --gtids the offset records no completed GTID set",
                  file=sys.stderr)
    offset = SourceOffset(file=args.file, pos=args.pos, server_id=args.server_id or 0, gtids=gtids)
    store = make_offset_store(settings)
    try:
        previous = store.load()
        store.save(offset.to_map())
    finally:
        store.close()
    print(json.dumps({"previous": previous, "new": offset.to_map()}, indent=2))
    print("the schema history was not changed: if DDL lies between the two positions, start once with "
          "snapshot.mode=recovery", file=sys.stderr)
    return 0


def cmd_offsets_show(args: argparse.Namespace) -> int:
    from connector.daemon import make_offset_store

    settings = _load(args).settings(transform_settings)
    store = make_offset_store(settings)
    try:
        offset = store.load()
    finally:
        store.close()
    entries = [] if offset is None else [{"key": [settings.name, {"server": settings.topics.prefix}], "value": offset}]
    print(json.dumps(entries, indent=2))
    return 0


def cmd_properties(args: argparse.Namespace) -> int:
    if args.markdown:
        from connector.config.docs import configuration_markdown
        sys.stdout.write(configuration_markdown())
        return 0
    for f in FIELDS:
        default = "" if f.default is None else f.default
        req = " (required)" if f.required else ""
        print(f"{f.name}{req}\n    default: {default}\n    {f.doc}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="binlog-cdc", description="Debezium-compatible MySQL/MariaDB CDC to Kafka")
    parser.add_argument("--log-level", default="INFO", help="DEBUG, INFO, WARNING, ERROR")
    sub = parser.add_subparsers(dest="command", required=True)

    def with_config(p: argparse.ArgumentParser) -> None:
        p.add_argument("config", help="Debezium Server application.properties, or Kafka Connect connector JSON")
        p.add_argument("--kafka", help="bootstrap servers (overrides the file)")
        p.add_argument("--producer", action="append", default=[], metavar="KEY=VALUE",
                       help="Kafka producer property (repeatable)")

    run_p = sub.add_parser("run", help="snapshot (if needed), then stream changes to Kafka until SIGTERM")
    with_config(run_p)
    run_p.add_argument("--status-file", help="keep a JSON status file here (phase, position, counters)")
    run_p.set_defaults(func=cmd_run)

    val_p = sub.add_parser("validate", help="check the configuration, the server settings and privileges, the "
                                             "stored offset, binlog expiry and server-id clashes (exit 1 on a "
                                             "problem, 2 on a fatal one)")
    with_config(val_p)
    val_p.set_defaults(func=cmd_validate)

    off_p = sub.add_parser("offsets", help="inspect stored offsets")
    off_sub = off_p.add_subparsers(dest="offsets_command", required=True)
    show_p = off_sub.add_parser("show", help="print the stored offsets as JSON")
    with_config(show_p)
    show_p.set_defaults(func=cmd_offsets_show)
    set_p = off_sub.add_parser("set", help="move the stored position (stop the connector first)")
    with_config(set_p)
    set_p.add_argument("--file", required=True, help="binlog file name, e.g. mysql-bin.000003")
    set_p.add_argument("--pos", required=True, type=int, help="position of an event start in that file")
    set_p.add_argument("--gtids", help="GTID set of the transactions already done (MySQL GTID servers)")
    set_p.add_argument("--server-id", type=int, help="server_id to record in the offset (informational)")
    set_p.add_argument("--no-check", action="store_true", help="do not check the position against the server")
    set_p.set_defaults(func=cmd_offsets_set)

    props_p = sub.add_parser("properties", help="list every supported property with its default")
    props_p.add_argument("--markdown", action="store_true", help="print docs/CONFIGURATION.md (a Markdown table)")
    props_p.set_defaults(func=cmd_properties)
    return parser


# Library errors that escaped the code that should have typed them: still a known kind of failure, so they
# get that kind's exit code and fix rather than "internal error".
_LIBRARY_ERRORS: tuple[tuple[type[BaseException], type[BinlogCdcError], str], ...] = (
    (pymysql.err.OperationalError, SourceConnectionError, "check that the database server is reachable"),
    (pymysql.err.InterfaceError, SourceConnectionError, "check that the database server is reachable"),
    (KafkaException, KafkaConfigError, "check the Kafka producer properties and that the brokers are reachable"),
)


def _typed(exc: BaseException) -> BinlogCdcError | None:
    if isinstance(exc, BinlogCdcError):
        return exc
    for library, kind, fix in _LIBRARY_ERRORS:
        if isinstance(exc, library):
            return kind(f"{type(exc).__name__}: {exc}", fix=fix)
    return None


def _raised_at(exc: BaseException) -> str:
    """file:line of the innermost frame, so the one-line summary of an internal error locates it."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    last = frames[-1]
    return f"{Path(last.filename).name}:{last.lineno} in {last.name}"


def exit_code(exc: BaseException) -> ExitCode:
    """The documented exit code of a failure (connector/errors.py)."""
    typed = _typed(exc)
    if typed is None:
        return ExitCode.INTERNAL
    return ExitCode.RETRIABLE if typed.retriable else ExitCode.TERMINAL


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=getattr(logging, str(args.log_level).upper(), logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:  # Ctrl-C outside `run`, which handles signals itself
        return 128 + 2
    except BrokenPipeError:  # `binlog-cdc properties | head`: the reader left, which is no failure of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the interpreter's final flush is quiet
        return 0
    except Exception as exc:  # the last resort: every failure ends here as one line and its exit code
        log.debug("traceback of the failure reported below", exc_info=exc)
        typed = _typed(exc)
        if typed is not None:
            log.error("%s", typed)
        else:
            log.error("internal error: %s: %s (raised at %s); this is a bug: run with --log-level DEBUG for the "
                      "traceback and report it", type(exc).__name__, " ".join(str(exc).split()), _raised_at(exc))
        return int(exit_code(exc))


if __name__ == "__main__":
    sys.exit(main())
