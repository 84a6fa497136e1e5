-- The connector's account, with the grants Debezium's MySQL connector documentation lists:
-- SELECT for snapshots, RELOAD for FLUSH TABLES WITH READ LOCK, SHOW DATABASES, LOCK TABLES for
-- the table-lock fallback, REPLICATION SLAVE to read the binlog, REPLICATION CLIENT for
-- SHOW BINARY LOG STATUS. The password must match debezium.source.database.password
-- (DEBEZIUM_SOURCE_DATABASE_PASSWORD in compose.yaml). Change both for anything but a laptop.
CREATE USER IF NOT EXISTS 'debezium'@'%' IDENTIFIED BY 'dbz';
GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, LOCK TABLES ON *.* TO 'debezium'@'%';
FLUSH PRIVILEGES;
