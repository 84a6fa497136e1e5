"""Workloads for the rows-decoder differential tests: every column type, extreme / NULL / ordinary values.

`all_types` and `parts` rows (negative TIMEs there have whole seconds) must decode exactly as
python-mysql-replication 1.0.17 decodes them; `pmr_bugs` rows
hold the values that library gets wrong (B6 negative fractional TIME, B8 utf16/utf32/ucs2/utf16le
text), which are checked against SELECT instead.
"""

from __future__ import annotations

_ENUM_300 = ",".join(f"'v{i}'" for i in range(300))  # > 255 members: 2-byte ENUM
_SET_20 = ",".join(f"'s{i}'" for i in range(20))  # 20 members: 3-byte SET


def all_types_ddl(flavour: str) -> str:
    maria_only = ", ip INET6 NULL, uu UUID NULL" if flavour == "mariadb" else ""
    return f"""
CREATE TABLE all_types (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
  mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED, flag TINYINT(1),
  f FLOAT, d DOUBLE,
  dec1 DECIMAL(12,2), dec2 DECIMAL(65,30), dec3 DECIMAL(5,0), dec4 DECIMAL(2,2), dec5 DECIMAL(18,9),
  dec6 DECIMAL(30,10), dec7 DECIMAL(10,4),
  dt DATE, t0 TIME, t1 TIME(1), t3 TIME(3), t6 TIME(6),
  dt0 DATETIME, dt1 DATETIME(1), dt3 DATETIME(3), dt6 DATETIME(6),
  ts0 TIMESTAMP NULL DEFAULT NULL, ts2 TIMESTAMP(2) NULL DEFAULT NULL, ts6 TIMESTAMP(6) NULL DEFAULT NULL,
  y YEAR,
  c CHAR(10), c255 CHAR(255), vc VARCHAR(100), vcl VARCHAR(300), vlat VARCHAR(20) CHARACTER SET latin1,
  vcp VARCHAR(20) CHARACTER SET cp1251, vmb3 VARCHAR(20) CHARACTER SET utf8mb3,
  bn BINARY(4), vb VARBINARY(50),
  tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lt LONGTEXT, tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB,
  e ENUM('a','b','c'), e2 ENUM({_ENUM_300}), s SET('x','y','z'), s2 SET({_SET_20}),
  bit1 BIT(1), bit5 BIT(5), bit8 BIT(8), bit12 BIT(12), bit64 BIT(64),
  j JSON, g GEOMETRY, pt POINT{maria_only}
);
CREATE TABLE parts (id INT NOT NULL PRIMARY KEY, v VARCHAR(10)) PARTITION BY HASH(id) PARTITIONS 3;
CREATE TABLE pmr_bugs (
  id INT NOT NULL PRIMARY KEY,
  u16 VARCHAR(20) CHARACTER SET utf16, u32 VARCHAR(20) CHARACTER SET utf32,
  ucs VARCHAR(20) CHARACTER SET ucs2, u16le VARCHAR(20) CHARACTER SET utf16le,
  t1 TIME(1), t3 TIME(3), t6 TIME(6)
);
"""


_COLUMNS = (
    "ti, tiu, si, siu, mi, miu, i, iu, bi, biu, flag, f, d, dec1, dec2, dec3, dec4, dec5, dec6, dec7, "
    "dt, t0, t1, t3, t6, dt0, dt1, dt3, dt6, ts0, ts2, ts6, y, c, c255, vc, vcl, vlat, vcp, vmb3, bn, vb, "
    "tt, tx, mt, lt, tb, bl, mb, lb, e, e2, s, s2, bit1, bit5, bit8, bit12, bit64, j, g, pt"
)

_MIN_ROW = (
    "-128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0, 0, -3.4e38, -1.7976931348623157e308, "
    "-9999999999.99, -99999999999999999999999999999999999.999999999999999999999999999999, -99999, -0.99, "
    "-999999999.999999999, -99999999999999999999.9999999999, -0.0001, "
    "'1000-01-01', '-838:59:59', '-838:59:58', '-838:59:58', '-838:59:58', "
    "'1000-01-01 00:00:00', '1000-01-01 00:00:00.0', '1000-01-01 00:00:00.000', '1000-01-01 00:00:00.000000', "
    "'1970-01-01 00:00:01', '1970-01-01 00:00:01.01', '1970-01-01 00:00:01.000001', 1901, "
    "'', '', '', '', '', '', '', X'00000000', '', '', '', '', '', '', '', '', '', "
    "'a', 'v0', '', '', b'0', b'00000', b'00000000', b'000000000000', b'0', "
    "'null', ST_GeomFromText('POINT(0 0)'), ST_GeomFromText('POINT(-1.5 -2.5)')"
)

_MAX_ROW = (
    "127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615, "
    "1, 3.4e38, 1.7976931348623157e308, 9999999999.99, "
    "99999999999999999999999999999999999.999999999999999999999999999999, 99999, 0.99, 999999999.999999999, "
    "99999999999999999999.9999999999, 123456.7891, "
    "'9999-12-31', '838:59:59', '838:59:58.9', '838:59:58.999', '838:59:58.999999', "
    "'9999-12-31 23:59:59', '9999-12-31 23:59:59.9', '9999-12-31 23:59:59.999', '9999-12-31 23:59:59.999999', "
    "'2038-01-19 03:14:07', '2038-01-19 03:14:07.99', '2038-01-19 03:14:07.999999', 2155, "
    "'abcdefghij', REPEAT('z', 255), REPEAT('é', 100), REPEAT('ü', 300), 'àéîõü€', 'Привет мир', 'héllo ☃', "
    "X'FFFFFFFF', X'00FF00FF00', REPEAT('t', 255), REPEAT('x', 70000 DIV 2), REPEAT('m', 70000), REPEAT('l', 100000), "
    "REPEAT(X'AB', 255), REPEAT(X'CD', 65535), REPEAT(X'EF', 70000), REPEAT(X'01', 100000), "
    "'c', 'v299', 'x,y,z', 's0,s5,s10,s19', b'1', b'11111', b'11111111', b'111111111111', "
    "b'1111111111111111111111111111111111111111111111111111111111111111', "
    "'{\"a\": [1, 2.5, \"x\", null, true, false, {\"b\": \"é\"}], \"big\": 18446744073709551615, \"neg\": -5}', "
    "ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0))'), ST_GeomFromText('POINT(1e300 -1e-300)')"
)

_ORDINARY_ROWS = [
    "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 1.5, 2.25, 12.34, 1.5, 42, 0.5, 3.141592653, 1.0000000001, -12.3456, "
    "'2024-02-29', '12:34:56', '-01:02:03', '00:00:00.001', '23:59:59.000001', "
    "'2024-02-29 12:34:56', '2024-02-29 12:34:56.7', '2024-02-29 12:34:56.789', '2024-02-29 12:34:56.789012', "
    "'2024-02-29 12:34:56', '2024-02-29 12:34:56.78', '2024-02-29 12:34:56.789012', 2024, "
    "'short', 'pad me', 'varchar', 'long varchar', 'latin', 'кириллица', 'mb3', X'61620000', X'', "
    "'tiny', 'text', 'medium', 'long', X'00', X'0102', X'', X'FF', "
    "'b', 'v255', 'y', 's1', b'1', b'10101', b'10000001', b'100000000001', "
    "b'1000000000000000000000000000000000000000000000000000000000000001', "
    "'[]', ST_GeomFromText('LINESTRING(0 0,1 1,2 2)'), ST_GeomFromText('POINT(3 4)')",
    "-1, 128, -2, 256, -3, 65536, -4, 16777216, -5, 4294967296, 0, -0.0, 0, 0, 0, 0, 0, 0, 0, 0, "
    "'2000-01-01', '00:00:00', '00:00:00.0', '-00:00:01', '00:00:00', "
    "'2000-01-01 00:00:00', '2000-01-01 00:00:00.1', '2000-01-01 00:00:00.001', '2000-01-01 00:00:00.000001', "
    "'2000-01-01 00:00:00', '2000-01-01 00:00:00.01', '2000-01-01 00:00:00.000001', 2000, "
    "' lead', 'trail  ', 'a\\tb\\nc', '\\'quoted\\'', 'ÿ', 'Ё', 'ok', X'00', X'000000', "
    "'', '', '', '{\"k\": \"v\"}', '', '', '', '', "
    "'a', 'v1', 'x,z', '', b'0', b'1', b'1', b'1', b'1', "
    "'{\"n\": 1.25e10, \"s\": \"\\\\u00e9\"}', ST_GeomFromText('MULTIPOINT(0 0,1 1)'), ST_GeomFromText('POINT(0 1)')",
]


def _insert(values: list[str], flavour: str) -> str:
    extra_cols = ", ip, uu" if flavour == "mariadb" else ""
    extra = (", '2001:db8::', '123e4567-e89b-12d3-a456-426614174000'",
             ", '::1', '00000000-0000-0000-0000-000000000000'")
    rows = []
    for n, v in enumerate(values):
        rows.append(f"({v}{extra[n % 2] if flavour == 'mariadb' else ''})")
    return f"INSERT INTO all_types ({_COLUMNS}{extra_cols}) VALUES\n" + ",\n".join(rows) + ";\n"


def all_types_dml(flavour: str) -> str:
    parts = [
        "SET time_zone = '+00:00';\n",
        _insert([_MIN_ROW], flavour),
        _insert([_MAX_ROW], flavour),
        _insert(_ORDINARY_ROWS, flavour),  # one multi-row event
        # Zero temporal values (pmr: None / 1970-01-01 / 1900) need a lax sql_mode.
        "SET SESSION sql_mode = '';\n",
        "INSERT INTO all_types (dt, dt0, dt6, ts0, ts6, y, t6) VALUES ('0000-00-00', '0000-00-00 00:00:00', "
        "'2020-00-00 00:00:00.5', '0000-00-00 00:00:00', '0000-00-00 00:00:00.000000', 0, '00:00:00');\n",
        "INSERT INTO all_types (id) VALUES (NULL);\n",  # every other column NULL
        "INSERT INTO all_types (id) SELECT NULL FROM all_types LIMIT 3;\n",
        "UPDATE all_types SET vc = CONCAT('u-', id), i = i + 1, s = '', e2 = 'v42' WHERE id <= 4;\n",
        "UPDATE all_types SET ti = NULL, dec2 = NULL, j = NULL, lb = NULL WHERE id = 2;\n",
        "UPDATE all_types SET ti = 5, d = 0.1, dt6 = '2001-02-03 04:05:06.5' WHERE ti IS NULL;\n",
        "BEGIN; UPDATE all_types SET bit12 = b'111' WHERE id = 3; DELETE FROM all_types WHERE id = 5; COMMIT;\n",
        # Not-FULL row images: present-columns bitmaps with gaps (pmr: None for absent columns).
        "SET SESSION binlog_row_image = MINIMAL;\n",
        "UPDATE all_types SET vc = 'minimal', e = 'c' WHERE id IN (1, 3);\n",
        "INSERT INTO all_types (id, vc, s2) VALUES (100, 'minimal insert', 's3');\n",
        "DELETE FROM all_types WHERE id = 6;\n",
        "SET SESSION binlog_row_image = NOBLOB;\n",
        "UPDATE all_types SET si = 77 WHERE id = 2;\n",
        "SET SESSION binlog_row_image = FULL;\n",
        "DELETE FROM all_types WHERE id IN (1, 2, 4);\n",
        "DELETE FROM all_types;\n",
        # Partitioned table: MySQL's v2 rows events carry partition ids in their extra data.
        "INSERT INTO parts VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, NULL);\n",
        "UPDATE parts SET id = id + 10, v = CONCAT(IFNULL(v, 'n'), '!');\n",
        "DELETE FROM parts WHERE id > 12;\n",
    ]
    return "".join(parts)


# (id, values) for pmr_bugs: python-mysql-replication decodes these wrongly.
PMR_BUG_ROWS = [
    "(1, 'héllo', 'héllo ☃', 'ucs2 ü', 'le ü', '-00:00:00.1', '-00:00:00.001', '-00:00:00.000001')",
    "(2, '𝄞 clef', '𝄞', 'x', '𝄞', '-01:02:03.4', '-01:02:03.456', '-838:59:58.999999')",
    "(3, '', '', '', '', '-838:59:58.9', '-838:59:58.999', '-12:00:00.5')",
    "(4, NULL, NULL, NULL, NULL, '10:00:00.5', '00:00:00.999', '00:00:00.000001')",
]


def pmr_bugs_dml() -> str:
    return ("INSERT INTO pmr_bugs VALUES " + ", ".join(PMR_BUG_ROWS) + ";\n"
            "UPDATE pmr_bugs SET t6 = '-00:00:01.5', u16 = 'ü' WHERE id = 1;\n")
