"""The one error tree (connector/errors.py): every error Terminal or Retriable, one-line rendering, and the
exit code `binlog-cdc` ends with for each kind of failure."""
from __future__ import annotations

import logging

import pymysql
import pytest

import connector.errors as errors
import schema_history.errors
from connector import cli
from connector.binlog.payload import PayloadError
from connector.errors import (
    BinlogCdcError,
    ConfigError,
    ExitCode,
    KafkaBackpressureTimeout,
    KafkaDeliveryError,
    OffsetFlushTimeout,
    OffsetStoreError,
    OffsetStoreUnusable,
    RetriableError,
    SchemaError,
    SinkError,
    SourceError,
    TerminalError,
    Where,
)
from connector.kafka.errors import KafkaConfigError as KafkaConfigErrorReexported
from connector.offsets.store import OffsetStoreError as OffsetStoreErrorReexported
from connector.serde.schema_registry import SchemaRegistryUnavailable

CATEGORIES = {BinlogCdcError, TerminalError, RetriableError, SourceError, SinkError, OffsetStoreError}


def _tree(cls: type) -> list[type]:
    out = [cls]
    for sub in cls.__subclasses__():
        out.extend(_tree(sub))
    return out


def test_every_error_is_exactly_one_of_terminal_and_retriable() -> None:
    classes = set(_tree(BinlogCdcError))
    assert {PayloadError, SchemaRegistryUnavailable, schema_history.errors.DdlParseError} <= classes
    for cls in classes - CATEGORIES:
        assert issubclass(cls, TerminalError) != issubclass(cls, RetriableError), cls
        assert cls.retriable == issubclass(cls, RetriableError), cls


def test_every_name_is_importable_from_connector_errors_and_the_old_modules_reexport() -> None:
    for name in errors.__all__:
        assert getattr(errors, name) is not None
    assert KafkaConfigErrorReexported is errors.KafkaConfigError
    assert OffsetStoreErrorReexported is OffsetStoreError
    assert issubclass(schema_history.errors.SchemaHistoryError, SchemaError)
    assert issubclass(OffsetFlushTimeout, OffsetStoreError) and issubclass(OffsetStoreUnusable, OffsetStoreError)
    assert issubclass(KafkaBackpressureTimeout, SinkError) and issubclass(KafkaDeliveryError, SinkError)


def test_renders_cause_where_statement_fix_on_one_line() -> None:
    exc = SchemaError("cannot parse DDL (bad)", where=Where("mariadb-bin.000003", 1577, "inventory.t"),
                      statement="CREATE TABLE t\n  (id INET4)", fix="set\nx=true")
    assert str(exc) == ("cannot parse DDL (bad) at mariadb-bin.000003:1577 table inventory.t: "
                        "CREATE TABLE t (id INET4). Fix: set x=true")
    long = SchemaError("c", statement="x" * 1000)
    assert str(long) == "c: " + "x" * errors.STATEMENT_CHARS + "..."
    assert str(KafkaDeliveryError("t", 0, "boom")).startswith("delivery to t[0] failed: boom. Fix: ")
    assert str(OffsetStoreUnusable("gone", where=Where(topic="offs"))) == "gone topic offs"


def test_config_error_lists_every_problem_in_one_line() -> None:
    exc = ConfigError(["a is required", "b='x' must be\n a number"])
    assert exc.problems == ["a is required", "b='x' must be a number"]
    assert str(exc) == "invalid configuration (2 problems): a is required; b='x' must be a number"


@pytest.mark.parametrize(("exc", "code"), [
    (ConfigError(["x"]), ExitCode.TERMINAL),
    (PayloadError("corrupt"), ExitCode.TERMINAL),
    (schema_history.errors.DdlParseError("bad", "CREATE TABLE"), ExitCode.TERMINAL),
    (KafkaBackpressureTimeout("slow"), ExitCode.RETRIABLE),
    (SchemaRegistryUnavailable("down"), ExitCode.RETRIABLE),
    (pymysql.err.OperationalError(2013, "Lost connection"), ExitCode.RETRIABLE),
    (ZeroDivisionError("division by zero"), ExitCode.INTERNAL),
])
def test_exit_codes(exc: BaseException, code: ExitCode) -> None:
    assert cli.exit_code(exc) == code


def test_an_internal_error_ends_in_one_summary_line_and_exit_4(monkeypatch, caplog) -> None:
    def broken(args: object) -> int:
        return {}["missing"]

    monkeypatch.setattr(cli, "cmd_properties", broken)
    with caplog.at_level(logging.INFO):
        assert cli.main(["properties"]) == ExitCode.INTERNAL
    errors_logged = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors_logged) == 1 and errors_logged[0].exc_info is None
    line = errors_logged[0].getMessage()
    assert line.startswith("internal error: KeyError: 'missing' (raised at test_errors.py:")
    assert "in broken" in line and "--log-level DEBUG" in line and "\n" not in line


def test_a_terminal_error_ends_in_its_line_and_exit_2(monkeypatch, caplog) -> None:
    def refused(args: object) -> int:
        raise SchemaError("TABLE_MAP does not match", where=Where("f.000001", 4, "d.t"), fix="recover")

    monkeypatch.setattr(cli, "cmd_properties", refused)
    with caplog.at_level(logging.INFO):
        assert cli.main(["properties"]) == ExitCode.TERMINAL
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == [
        "TABLE_MAP does not match at f.000001:4 table d.t. Fix: recover"]
