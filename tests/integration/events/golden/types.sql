-- Extra column types, defaults and edge values for the event-serialization tests.
-- Run with /work/shared/reference/run_reference.sh (both flavours); outputs are stored beside this file.

-- A fixed session clock makes CURRENT_TIMESTAMP defaults reproducible in replays.
SET TIMESTAMP = 1700000000;
CREATE DATABASE typedb;
USE typedb;

CREATE TABLE defaults_t (
  id            INT NOT NULL PRIMARY KEY COMMENT 'the id',
  d_int         INT DEFAULT 5,
  d_int_u       INT UNSIGNED NOT NULL DEFAULT 4294967295,
  d_bigint_u    BIGINT UNSIGNED DEFAULT 18446744073709551615,
  d_tiny1       TINYINT(1) DEFAULT 1,
  d_dec         DECIMAL(10,3) DEFAULT 1.5,
  d_dec_neg     DECIMAL(5,0) DEFAULT -42,
  d_float       FLOAT DEFAULT 1.1,
  d_double      DOUBLE DEFAULT 2.5e10,
  d_varchar     VARCHAR(20) DEFAULT 'it''s',
  d_char        CHAR(3) NOT NULL DEFAULT 'ab',
  d_date        DATE DEFAULT '2000-01-01',
  d_time        TIME(2) DEFAULT '-01:02:03.45',
  d_datetime    DATETIME DEFAULT '2020-01-02 03:04:05',
  d_datetime3   DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  d_ts          TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  d_ts6         TIMESTAMP(6) NULL DEFAULT '2001-02-03 04:05:06.789000',
  d_year        YEAR DEFAULT 1999,
  d_enum        ENUM('a','it''s','c') DEFAULT 'it''s',
  d_set         SET('x','y','z') DEFAULT 'x,z',
  d_bit5        BIT(5) DEFAULT b'10101',
  d_bit1        BIT(1) DEFAULT b'1',
  d_binary      BINARY(3) DEFAULT 'ab'
) COMMENT 'defaults table';

CREATE TABLE values_t (
  id            INT NOT NULL PRIMARY KEY,
  v_float       FLOAT,
  v_double      DOUBLE,
  v_dec65       DECIMAL(65,30),
  v_dec_small   DECIMAL(4,4),
  v_bit16       BIT(16),
  v_bit64       BIT(64),
  v_bit1        BIT(1),
  v_time0       TIME,
  v_time6       TIME(6),
  v_dt0         DATETIME,
  v_dt3         DATETIME(3),
  v_ts3         TIMESTAMP(3) NULL DEFAULT NULL,
  v_date        DATE,
  v_varbinary   VARBINARY(10),
  v_tinyblob    TINYBLOB,
  v_mediumtext  MEDIUMTEXT,
  v_text        VARCHAR(100),
  v_char        CHAR(6),
  v_enum        ENUM('a','it''s','c'),
  v_set         SET('x','y','z'),
  v_json        JSON,
  v_point       POINT,
  v_geom        GEOMETRY
);

CREATE TABLE nokey_t (
  a INT,
  b VARCHAR(10)
);

INSERT INTO defaults_t (id) VALUES (1);
INSERT INTO defaults_t (id, d_int, d_int_u, d_bigint_u, d_tiny1, d_dec, d_dec_neg, d_float, d_double, d_varchar,
                        d_char, d_date, d_time, d_datetime, d_datetime3, d_ts, d_ts6, d_year, d_enum, d_set,
                        d_bit5, d_bit1, d_binary)
VALUES (2, NULL, 0, 9223372036854775808, 0, -0.001, 0, -0.0, 1e-5, '', '', '1969-12-31', '838:59:59', '1970-01-01 00:00:00',
        '2024-05-06 07:08:09.123', '2030-01-01 00:00:00', NULL, 1901, 'a', '', b'0', b'0', 'xyz');

INSERT INTO values_t VALUES
  (1, 1.1, 1e-5, 12345678901234567890123456789012345.123456789012345678901234567890, -0.9999,
   b'1000000000000001', b'1111111111111111111111111111111111111111111111111111111111111111', b'1',
   '-00:00:01', '-00:00:00.000001', '1000-01-01 00:00:00', '2024-02-29 23:59:59.999', '1970-01-01 00:00:01.001', '0001-01-01',
   X'00', X'', 'a\0b\Zc\bd\te\nf\rg"h\\i/j', 'Zoë ☃ 😀 𝄞', 'ab  ', 'it''s', 'z,x',
   '{"s": "a\\"b\\\\c\\u0001é😀", "d": 1.5e300, "f": 0.1, "n": null, "neg": -5, "big": 18446744073709551615, "arr": [1.0, 2, true, false], "o": {}}',
   ST_GeomFromText('POINT(1.5 -2.25)'), ST_GeomFromText('LINESTRING(0 0, 1 1, 2 3)')),
  (2, 3.4028234e38, 1e22, -0.000000000000000000000000000001, 0.0001,
   b'0', b'0', b'0',
   '00:00:00', '-838:59:58.999999', '9999-12-31 23:59:59', '1969-12-31 23:59:59.999', '2038-01-19 03:14:07.999', '9999-12-31',
   X'FF00FF', X'0001', '', '', '', 'c', '',
   '[]', ST_GeomFromText('POINT(0 0)'), ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 0))')),
  (3, -1.17549435e-38, -123456789.123, 0, NULL, NULL, NULL, NULL,
   '-01:02:03', '-01:02:03.456', NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, 'x,y,z',
   '"just a string"', NULL, NULL);

INSERT INTO nokey_t VALUES (1, 'one'), (NULL, NULL);

-- names that Avro does not accept (schema.name.adjustment.mode / field.name.adjustment.mode runs)
CREATE TABLE `odd-name` (
  `id`   INT NOT NULL PRIMARY KEY,
  `a-b`  INT,
  `1st`  VARCHAR(5),
  `ünï`  DECIMAL(6,2) COMMENT 'unicode'
);
INSERT INTO `odd-name` VALUES (1, 2, 'x', 3.25);

-- zero temporal values in NOT NULL columns, YEAR 0 and the invalid-ENUM '' (non-strict session)
CREATE TABLE edge_t (
  id      INT NOT NULL PRIMARY KEY,
  z_date  DATE NOT NULL,
  z_dt    DATETIME(3) NOT NULL,
  z_ts    TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  z_year  YEAR,
  z_enum  ENUM('a','b'),
  z_latin VARCHAR(10) CHARACTER SET latin1
);
SET SESSION sql_mode = '';
INSERT INTO edge_t VALUES (1, '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', 0, 'zzz', 'café');
INSERT INTO edge_t VALUES (2, '2020-00-15', '2020-01-00 10:00:00', '2020-01-02 03:04:05', 70, 'b', '');
SET SESSION sql_mode = DEFAULT;

-- @@STREAM@@
SET TIMESTAMP = 1700000100;
USE typedb;

INSERT INTO defaults_t (id) VALUES (3);
INSERT INTO values_t VALUES
  (11, 1.1, 1e-5, 12345678901234567890123456789012345.123456789012345678901234567890, -0.9999,
   b'1000000000000001', b'1111111111111111111111111111111111111111111111111111111111111111', b'1',
   '-00:00:01', '-00:00:00.000001', '1000-01-01 00:00:00', '2024-02-29 23:59:59.999', '1970-01-01 00:00:01.001', '0001-01-01',
   X'00', X'', 'a\0b\Zc\bd\te\nf\rg"h\\i/j', 'Zoë ☃ 😀 𝄞', 'ab  ', 'it''s', 'z,x',
   '{"s": "a\\"b\\\\c\\u0001é😀", "d": 1.5e300, "f": 0.1, "n": null, "neg": -5, "big": 18446744073709551615, "arr": [1.0, 2, true, false], "o": {}}',
   ST_GeomFromText('POINT(1.5 -2.25)'), ST_GeomFromText('LINESTRING(0 0, 1 1, 2 3)')),
  (12, 3.4028234e38, 1e22, -0.000000000000000000000000000001, 0.0001,
   b'0', b'0', b'0',
   '00:00:00', '-838:59:58.999999', '9999-12-31 23:59:59', '1969-12-31 23:59:59.999', '2038-01-19 03:14:07.999', '9999-12-31',
   X'FF00FF', X'0001', '', '', '', 'c', '',
   '[]', ST_GeomFromText('POINT(0 0)'), ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 0))')),
  (13, -1.17549435e-38, -123456789.123, 0, NULL, NULL, NULL, NULL,
   '-01:02:03', '-01:02:03.456', NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, 'x,y,z',
   '"just a string"', NULL, NULL);
INSERT INTO nokey_t VALUES (2, 'two');
INSERT INTO `odd-name` VALUES (2, NULL, 'y', -1.5);
UPDATE nokey_t SET b = 'TWO' WHERE a = 2;
DELETE FROM nokey_t WHERE a = 2;

CREATE TABLE streamed_t (
  id      INT NOT NULL PRIMARY KEY,
  flag    BOOLEAN DEFAULT TRUE,
  amount  NUMERIC(8,2) NOT NULL DEFAULT 0,
  note    TEXT
);
INSERT INTO streamed_t (id, note) VALUES (1, NULL);
INSERT INTO streamed_t VALUES (2, FALSE, 12.5, 'x');

SET SESSION sql_mode = '';
INSERT INTO values_t (id, v_dt0, v_date, v_ts3) VALUES (21, '0000-00-00 00:00:00', '0000-00-00', '0000-00-00 00:00:00');
INSERT INTO edge_t VALUES (11, '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', 0, 'zzz', 'café');
INSERT INTO edge_t VALUES (12, '2020-00-15', '2020-01-00 10:00:00', '2020-01-02 03:04:05', 70, 'b', '');
