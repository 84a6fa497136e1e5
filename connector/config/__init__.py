"""Configuration: Debezium property names and defaults, parsed once into typed settings."""

from connector.config.loaders import LoadedConfig, load_config
from connector.config.secret import Secret
from connector.config.settings import Settings, build_settings

__all__ = ["LoadedConfig", "Secret", "Settings", "build_settings", "load_config"]
