"""Path helpers for tool packs: resolve a tool's path argument against its Location.

``resolve_in_location`` asks ``external_directory`` for a path outside the Location
(or a link that leads outside) before the tool asserts its own action; ``lexical_path``
and ``is_inside`` judge a path without asking anything.
"""

from __future__ import annotations

from tooldeck.host.location.paths import (
    EXTERNAL_DIRECTORY,
    is_inside,
    lexical_path,
    resolve_in_location,
)

__all__ = ["EXTERNAL_DIRECTORY", "is_inside", "lexical_path", "resolve_in_location"]
