"""Column value converters: per column, the Connect field schema plus binlog and snapshot value functions."""

from connector.converters.base import ColumnConverter, DefaultValueError, Kind, UnsupportedColumnType, ValueSettings
from connector.converters.mappers import ColumnMapper, column_mapper_rules, mapper_lookup
from connector.converters.registry import resolve, unusable_column
from connector.converters.snapshot_conv import pymysql_conversions

__all__ = [
    "ColumnConverter",
    "ColumnMapper",
    "DefaultValueError",
    "Kind",
    "UnsupportedColumnType",
    "ValueSettings",
    "column_mapper_rules",
    "mapper_lookup",
    "pymysql_conversions",
    "resolve",
    "unusable_column",
]
