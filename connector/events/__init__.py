"""Events: per table version, the key/value Connect schemas and converters, the envelope, the source
block, the record kinds (kinds: data, tombstone, truncate, schema change, transaction, heartbeat) and
their JSON pieces and headers (records); and what streaming and the snapshot report before it becomes
records (changes: the event's source facts, a row change, the positions of its data events)."""
