"""What the mount's tests that talk to a served project share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ...ports import free_port
from ..serve.test_serve import http_serving


@pytest.fixture(scope="module")
def url(project: Path) -> Iterator[str]:
    """The module's ``project`` served over HTTP (one ``tooldeck mcp serve --http`` for
    the module), for SDK clients that each open a session of their own."""
    with http_serving(project, free_port(), "--no-codemode") as address:
        yield address
