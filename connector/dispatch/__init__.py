"""Dispatch: table filters and TABLE_MAP checks (table_maps), routing (tables), schema-change handling
(schema_changes), and the one place every record is encoded and transformed (encoder), then sent with its
offset (sender)."""
