"""URI templates (RFC 6570, the two forms resources use): matching a URI to a template.

``{name}`` stands for one segment (no ``/``, ``?`` or ``#``: simple expansion
percent-encodes them), ``{+name}`` for any text. A matched value is percent-decoded.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import unquote

_EXPRESSION = re.compile(r"\{(\+?)([A-Za-z0-9_]+)\}")


@lru_cache(maxsize=256)
def compiled(template: str) -> re.Pattern[str]:
    """The regular expression a template's URIs match (its variables as named groups)."""
    pattern, end = [], 0
    for expression in _EXPRESSION.finditer(template):
        pattern.append(re.escape(template[end : expression.start()]))
        reserved, name = expression.groups()
        pattern.append(f"(?P<{name}>.+?)" if reserved else f"(?P<{name}>[^/?#]+)")
        end = expression.end()
    pattern.append(re.escape(template[end:]))
    return re.compile("".join(pattern))


def match(template: str, uri: str) -> dict[str, str] | None:
    """The variables ``uri`` gives ``template``, or ``None`` when it is not one of its URIs."""
    found = compiled(template).fullmatch(uri)
    if found is None:
        return None
    return {name: unquote(value) for name, value in found.groupdict().items()}


def literal_length(template: str) -> int:
    """How much of ``template`` is fixed text: the more, the more specific the template."""
    return len(_EXPRESSION.sub("", template))
