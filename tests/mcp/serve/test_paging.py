"""Pages: a cursor names the last key of a page; a foreign cursor is a protocol error."""

from __future__ import annotations

import pytest

from mcp import MCPError
from tooldeck.mcp.serve.paging import page


def test_pages_continue_after_the_cursor_even_if_the_list_changed():
    first, cursor = page(["a", "b", "c", "d"], str, None, size=2)
    assert first == ["a", "b"] and cursor is not None
    rest, last = page(["a", "c", "d"], str, cursor, size=2)  # "b" left meanwhile
    assert rest == ["c", "d"] and last is None
    assert page(["a"], str, None, size=2) == (["a"], None)


@pytest.mark.parametrize("cursor", ["garbage", "e30=", ""])
def test_a_cursor_this_server_did_not_give_is_refused(cursor):
    with pytest.raises(MCPError) as raised:
        page(["a"], str, cursor)
    assert raised.value.code == -32602
