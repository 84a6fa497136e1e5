"""Operations: Prometheus metrics under Debezium's names, /health, and the status file."""
