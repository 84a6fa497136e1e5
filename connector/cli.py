"""`binlog-cdc`: run | validate | offsets show. Parses arguments and calls the daemon; no logic here."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from connector.config.fields import FIELDS
from connector.config.loaders import load_config
from connector.errors import BinlogCdcError, ConfigError


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


def cmd_run(args: argparse.Namespace) -> int:
    from connector.daemon import run
    from connector.shutdown import ShutdownToken

    loaded = _load(args)
    token = ShutdownToken()
    token.install()
    return run(loaded, token, Path(args.status_file) if args.status_file else None)


def cmd_validate(args: argparse.Namespace) -> int:
    from connector.binlog import connection as dbconn
    from connector.daemon import connection_params

    loaded = _load(args)
    for warning in loaded.warnings:
        print(f"warning: {warning}")
    settings = loaded.settings()
    conn = dbconn.connect(connection_params(settings))
    try:
        info = dbconn.server_info(conn)
        dbconn.check_server(info)
        dbconn.check_privileges(conn, settings.database.user)
        status = dbconn.binlog_status(conn)
    finally:
        conn.close()
    print(f"ok: {info.flavor} {info.version}, binlog at {status.position}, gtid_mode={info.gtid_mode}")
    return 0


def cmd_offsets_show(args: argparse.Namespace) -> int:
    from connector.daemon import make_offset_store

    settings = _load(args).settings()
    store = make_offset_store(settings)
    try:
        offset = store.load()
    finally:
        store.close()
    entries = [] if offset is None else [{"key": [settings.name, {"server": settings.topics.prefix}], "value": offset}]
    print(json.dumps(entries, indent=2))
    return 0


def cmd_properties(args: argparse.Namespace) -> int:
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

    val_p = sub.add_parser("validate", help="check the configuration and the server settings and privileges")
    with_config(val_p)
    val_p.set_defaults(func=cmd_validate)

    off_p = sub.add_parser("offsets", help="inspect stored offsets")
    off_sub = off_p.add_subparsers(dest="offsets_command", required=True)
    show_p = off_sub.add_parser("show", help="print the stored offsets as JSON")
    with_config(show_p)
    show_p.set_defaults(func=cmd_offsets_show)

    props_p = sub.add_parser("properties", help="list every supported property with its default")
    props_p.set_defaults(func=cmd_properties)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=getattr(logging, str(args.log_level).upper(), logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        return args.func(args)
    except BinlogCdcError as exc:
        logging.getLogger("binlog-cdc").error("%s", exc)
        return 2


if __name__ == "__main__":
    sys.exit(main())
