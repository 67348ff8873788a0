"""Which definition wins: names, the per-tool record, the editor, the replay's steps and the
replayed state.

The only mutable part of the core. It authorizes nothing and imports no permission code.
"""
