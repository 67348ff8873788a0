"""How model-facing text is measured and sizes are named: one definition for every message."""

from __future__ import annotations

import pytest

from tooldeck.host.call.sizes import count_lines, format_size, utf8_size


@pytest.mark.parametrize(
    ("n_bytes", "shown"),
    [
        (0, "0 bytes"),
        (1, "1 byte"),
        (1023, "1023 bytes"),
        (1024, "1 KiB"),
        (1536, "1.5 KiB"),
        (56 * 1024 + 10, "56 KiB"),
        (1024 * 1024, "1 MiB"),
        (5 * 1024 * 1024 + 600 * 1024, "5.6 MiB"),
        (2048 * 1024 * 1024, "2,048 MiB"),
    ],
)
def test_sizes_are_shown_in_binary_units(n_bytes, shown):
    assert format_size(n_bytes) == shown


@pytest.mark.parametrize(
    ("text", "lines"), [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("\n\n", 2), ("a\n\nb\n", 3)]
)
def test_a_trailing_newline_does_not_start_another_line(text, lines):
    assert count_lines(text) == lines


def test_utf8_size_counts_bytes_and_stops_early_past_a_cap():
    assert utf8_size("é€😀") == 2 + 3 + 4
    assert utf8_size("\ud800") == 3  # a lone surrogate from a JSON escape does not fail
    assert utf8_size("x" * 100, cap=50) >= 50
