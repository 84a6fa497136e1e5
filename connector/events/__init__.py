"""Events: per table version, the key/value Connect schemas and converters, the envelope, the source
block and the record kinds besides data changes (schema change, transaction, heartbeat, headers)."""
