"""Column value converters: per column, the Connect field schema plus binlog and snapshot value functions."""

from connector.converters.base import ColumnConverter, Kind, UnsupportedColumnType, ValueSettings
from connector.converters.registry import resolve
from connector.converters.snapshot_conv import pymysql_conversions

__all__ = ["ColumnConverter", "Kind", "UnsupportedColumnType", "ValueSettings", "resolve", "pymysql_conversions"]
