"""GTIDs as values (MySQL GTID sets, tagged or not; MariaDB GTID positions; the source filter): a leaf package,
imported by binlog/, offsets/, streaming/ and schema_history/ alike, importing nothing of theirs."""
