"""The Location: a project root with its config, data dir, permission rules and service,
question service and path helpers."""
