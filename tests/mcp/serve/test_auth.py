"""The bearer check's header parsing: scheme in any case, token exact, principal chosen."""

from __future__ import annotations

import pytest

from tooldeck.mcp.serve.auth import principal_for

TOKENS = {"alpha-token": "alice", "beta-token": "bob"}


@pytest.mark.parametrize(
    ("header", "principal"),
    [
        (b"Bearer alpha-token", "alice"),
        (b"bearer beta-token", "bob"),
        (b"BEARER  alpha-token ", "alice"),
        (b"Bearer alpha-token2", None),
        (b"Bearer ALPHA-TOKEN", None),
        (b"Basic alpha-token", None),
        (b"alpha-token", None),
        (b"Bearer ", None),
        (b"", None),
    ],
)
def test_a_header_selects_the_principal_of_its_token(header, principal):
    assert principal_for(header, TOKENS) == principal
