"""Schemas: pydantic models and JSON Schema dicts turned into frozen, closed JSON Schema,
checked against the metaschema, and validated fast (``jsonschema_fast``)."""
