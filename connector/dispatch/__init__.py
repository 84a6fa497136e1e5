"""Dispatch: table filters, schema-change handling and routing of every change to the record sink."""
