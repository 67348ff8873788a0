"""URI templates: a segment variable, a reserved (any text) variable, percent-decoding."""

from __future__ import annotations

import pytest

from tooldeck.host.features.templates import literal_length, match


@pytest.mark.parametrize(
    ("template", "uri", "expected"),
    [
        ("test://template/{id}/data", "test://template/123/data", {"id": "123"}),
        ("notes://{name}", "notes://a%20b", {"name": "a b"}),
        ("notes://{name}", "notes://a/b", None),  # one segment only
        ("files://{+path}", "files://src/app.py", {"path": "src/app.py"}),
        ("db://{table}/{row}", "db://users/7", {"table": "users", "row": "7"}),
        ("db://{table}/{row}", "db://users/", None),
        ("notes://{name}.md", "notes://x.txt", None),  # fixed text must match exactly
    ],
)
def test_match(template, uri, expected):
    assert match(template, uri) == expected


def test_more_fixed_text_is_more_specific():
    assert literal_length("notes://{name}.md") > literal_length("notes://{name}")
