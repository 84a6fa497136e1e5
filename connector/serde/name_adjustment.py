"""`schema.name.adjustment.mode` / `field.name.adjustment.mode`: making names valid for Avro.

Rules as the reference runs of Debezium 3.6.3 show them (tests/fixtures/golden/types-*names):

* `none` leaves names alone (the default since Debezium 2.0);
* `avro` replaces each character Avro does not allow with `_`; a leading digit gets a `_` in front
  (`a-b` → `a_b`, `1st` → `_1st`, `ünï` → `_n_`, table `odd-name` → schema `…odd_name.Value`);
* `avro_unicode` replaces each such character, and `_` itself, with `_uXXXX` (UTF-16 unit, lower-case
  hex): `a-b` → `a_u002db`, `1st` → `_u0031st`, `d_int` → `d_u005fint`.

Schema names may contain `.` (namespace separators); field names may not.
"""

from __future__ import annotations

from connector.config.modes import FieldNameAdjustmentMode, SchemaNameAdjustmentMode

__all__ = ["adjust_schema_name", "adjust_field_name"]


def _first_ok(ch: str) -> bool:
    return ch == "_" or ("A" <= ch <= "Z") or ("a" <= ch <= "z")


def _next_ok(ch: str, dots: bool) -> bool:
    return _first_ok(ch) or ("0" <= ch <= "9") or (dots and ch == ".")


def _unicode_escape(ch: str) -> str:
    units = ch.encode("utf-16-be")
    return "".join(f"_u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))


def _avro(name: str, dots: bool) -> str:
    out = []
    for i, ch in enumerate(name):
        if (i == 0 and _first_ok(ch)) or (i > 0 and _next_ok(ch, dots)):
            out.append(ch)
        elif i == 0 and "0" <= ch <= "9":
            out.append("_" + ch)
        else:
            out.append("_")
    return "".join(out)


def _avro_unicode(name: str, dots: bool) -> str:
    out = []
    for i, ch in enumerate(name):
        valid = _first_ok(ch) if i == 0 else _next_ok(ch, dots)
        out.append(ch if valid and ch != "_" else _unicode_escape(ch))
    return "".join(out)


def adjust_schema_name(name: str, mode: SchemaNameAdjustmentMode) -> str:
    if mode is SchemaNameAdjustmentMode.AVRO:
        return _avro(name, dots=True)
    if mode is SchemaNameAdjustmentMode.AVRO_UNICODE:
        return _avro_unicode(name, dots=True)
    return name


def adjust_field_name(name: str, mode: FieldNameAdjustmentMode) -> str:
    if mode is FieldNameAdjustmentMode.AVRO:
        return _avro(name, dots=False)
    if mode is FieldNameAdjustmentMode.AVRO_UNICODE:
        return _avro_unicode(name, dots=False)
    return name
