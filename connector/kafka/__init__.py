"""Kafka: the only producer (delivery callbacks, backpressure, transactions), producer configuration
and the Kafka errors."""
