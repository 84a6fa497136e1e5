"""Debezium's notifications (`notification.enabled.channels`): what snapshots tell about their progress."""
__all__: list[str] = []
