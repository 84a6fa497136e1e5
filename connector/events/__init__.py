"""Events: per table version, the key/value Connect schemas and converters, the envelope, the source
block, the record kinds (kinds: data, tombstone, truncate, schema change, transaction, heartbeat) and
their JSON pieces and headers (records)."""
