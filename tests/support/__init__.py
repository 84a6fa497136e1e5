"""Test bed: private MariaDB / MySQL 9 / Tansu servers, workload files, Kafka read-back.

Modules: servers (the public facade), dbserver (lifecycle shared by the databases),
mariadb, mysql, tansu, kafka_dump, workload, ports.
"""
