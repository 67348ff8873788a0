"""Files of served calls: kept per owner, readable by it alone, bounded in bytes."""

from __future__ import annotations

from tooldeck import FilePart, TextPart
from tooldeck.mcp.serve.files import CallFiles


def test_kept_per_owner_and_the_oldest_evicted_past_the_bound():
    files = CallFiles(max_bytes=10)
    report = FilePart(b"123456", "text/plain", "report.txt")
    files.keep("mcp-a", "mcp-1", [TextPart("see the file"), report])
    uri = "tooldeck://calls/mcp-1/report.txt"
    assert files.get("mcp-a", uri) is report
    assert files.get("mcp-b", uri) is None  # another client cannot read it
    files.keep("mcp-a", "mcp-2", [FilePart(b"abcdef", "text/plain", "next.txt")])
    assert files.get("mcp-a", uri) is None  # 12 bytes > 10: the oldest went
    assert files.get("mcp-a", "tooldeck://calls/mcp-2/next.txt") is not None
    files.forget("mcp-a")
    assert files.get("mcp-a", "tooldeck://calls/mcp-2/next.txt") is None
