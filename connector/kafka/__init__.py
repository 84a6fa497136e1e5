"""Kafka: the only producer (writer: lifecycle, transactions; delivery: callbacks, back-pressure), topic
admin, producer configuration and the Kafka errors."""
