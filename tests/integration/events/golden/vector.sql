-- MySQL 9 VECTOR columns (FloatVector). python-mysql-replication 1.0.17 cannot parse the TABLE_MAP of such a
-- table (ValueError: 0 is not a valid MetadataFieldType), so only the snapshot is replayed in tests.
CREATE DATABASE vecdb;
USE vecdb;
CREATE TABLE v (id INT PRIMARY KEY, emb VECTOR(3), emb2 VECTOR(2) NOT NULL DEFAULT (TO_VECTOR('[0,0]')));
INSERT INTO v VALUES (1, TO_VECTOR('[1.5, -2.25, 3.4028235e38]'), TO_VECTOR('[1,2]')), (2, NULL, TO_VECTOR('[0.1,1e-10]'));
-- @@STREAM@@
USE vecdb;
INSERT INTO v VALUES (3, TO_VECTOR('[0.5, 1.1, -0.0]'), TO_VECTOR('[3,4]'));
