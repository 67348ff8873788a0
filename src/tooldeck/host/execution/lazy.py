"""What snapshots import only when first needed: asyncio and the provider formats.

Both are large imports a snapshot that only runs sync calls never needs (``Host.open``
is measured in ``bench/``), so they are reached through the helpers here.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import ModuleType

    from tooldeck.host.call.values import ExecutedTool


def wire_formats() -> ModuleType:
    """``tooldeck.providers.formats``, the renderers of every wire format, imported on
    first use: a snapshot that only runs calls never loads the provider package."""
    from tooldeck.providers import formats as module

    return module


def loop_running() -> bool:
    """Whether this thread runs an event loop, without importing asyncio to find out.

    Importing asyncio is a large share of ``Host.open`` (``bench/DECISIONS.md``); a loop
    cannot run before it is imported. The package gets its ``events`` attribute only once
    that submodule is complete, so while another thread is still importing asyncio this
    answers "no loop", which is true.
    """
    events = getattr(sys.modules.get("asyncio"), "events", None)
    return events is not None and events._get_running_loop() is not None


_asyncio_import = threading.Lock()


def run_async(coroutine: Coroutine[Any, Any, ExecutedTool]) -> ExecutedTool:
    """``asyncio.run`` for ``execute_sync``, importing asyncio under a lock first: threads
    importing it at the same moment can be handed a partly initialized module."""
    with _asyncio_import:
        import asyncio
    return asyncio.run(coroutine)
