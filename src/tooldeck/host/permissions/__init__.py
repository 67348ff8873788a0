"""Permissions: rules and their wildcards, saved approvals, asks (answered, deferred or
in flight) and the service a tool's ``ctx.permission`` is."""
