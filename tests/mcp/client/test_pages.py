"""Which pages a mounted server may send the user to, and how a look-alike host is flagged."""

from __future__ import annotations

import pytest

from tooldeck.mcp.client.pages import look_alike, url_problem


@pytest.mark.parametrize(
    ("url", "ascii_form", "unicode_form"),
    [
        ("https://\u0430pple.com/signin", "xn--pple-43d.com", "\u0430pple.com"),  # Cyrillic a
        ("https://xn--pple-43d.com/signin", "xn--pple-43d.com", "\u0430pple.com"),
        ("https://b\u00fccher.example/", "xn--bcher-kva.example", "b\u00fccher.example"),
        ("https://xn--zz.example/", "xn--zz.example", "xn--zz.example"),  # not valid punycode
    ],
)
def test_an_internationalized_host_is_flagged_with_both_spellings(url, ascii_form, unicode_form):
    assert url_problem(url) is None  # shown: a person may mean it, but is told
    assert look_alike(url) == (
        f"careful: the page's host {ascii_form!r} is written with non-ASCII letters "
        f"({unicode_form!r}), which can imitate a familiar name"
    )


@pytest.mark.parametrize(
    "url", ["https://apple.com/x", "http://127.0.0.1:8000/", "http://[::1]/", "https://a.xn/"]
)
def test_a_plain_ascii_host_is_not_flagged(url):
    assert look_alike(url) is None


def test_a_flagged_host_cannot_smuggle_control_characters_into_the_warning():
    warning = look_alike("https://\u0430pple.com\u202e/x")
    assert warning is not None and "\u202e" not in warning
