"""tooldeck.testing: what tooldeck's own tests use, shipped to pack authors.

The fixtures (``tooldeck_host``, ``tooldeck_asker``, ``tooldeck_install``, ...) live in
``tooldeck.testing.plugin`` and are registered through the ``pytest11`` entry point:
install tooldeck and they are available, nothing to import. This module holds the
helpers behind them, for tests that build their own.

Names resolve lazily (PEP 562), as in ``tooldeck``: pytest imports this package with
the plugin in every run, and that must not cost pydantic or the plugin host.
See ``docs/testing.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooldeck.testing.asker import AnswerScript as AnswerScript
    from tooldeck.testing.asker import ReplyScript as ReplyScript
    from tooldeck.testing.asker import ScriptedAnswerer as ScriptedAnswerer
    from tooldeck.testing.asker import ScriptedAsker as ScriptedAsker
    from tooldeck.testing.host import Builtins as Builtins
    from tooldeck.testing.host import Mode as Mode
    from tooldeck.testing.host import TestHost as TestHost
    from tooldeck.testing.host import text_of as text_of
    from tooldeck.testing.install import Site as Site
    from tooldeck.testing.loop_guard import LoopGuard as LoopGuard
    from tooldeck.testing.plugin import write_config as write_config
    from tooldeck.testing.wheels import Pack as Pack
    from tooldeck.testing.wheels import WheelCache as WheelCache

_LOCATIONS = {
    "AnswerScript": "tooldeck.testing.asker",
    "Builtins": "tooldeck.testing.host",
    "LoopGuard": "tooldeck.testing.loop_guard",
    "Mode": "tooldeck.testing.host",
    "Pack": "tooldeck.testing.wheels",
    "ReplyScript": "tooldeck.testing.asker",
    "ScriptedAnswerer": "tooldeck.testing.asker",
    "ScriptedAsker": "tooldeck.testing.asker",
    "Site": "tooldeck.testing.install",
    "TestHost": "tooldeck.testing.host",
    "WheelCache": "tooldeck.testing.wheels",
    "text_of": "tooldeck.testing.host",
    "write_config": "tooldeck.testing.plugin",
}

__all__ = [
    "AnswerScript",
    "Builtins",
    "LoopGuard",
    "Mode",
    "Pack",
    "ReplyScript",
    "ScriptedAnswerer",
    "ScriptedAsker",
    "Site",
    "TestHost",
    "WheelCache",
    "text_of",
    "write_config",
]


def __getattr__(name: str) -> Any:
    module = _LOCATIONS.get(name)
    if module is None:
        raise AttributeError(f"module 'tooldeck.testing' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
