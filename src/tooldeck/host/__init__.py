"""The core: names, editor, replayed state, service, snapshots and the execution boundary.

Modules here are private; the public names are re-exported by ``tooldeck``.
"""
