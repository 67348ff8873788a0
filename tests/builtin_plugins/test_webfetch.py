"""``webfetch`` against a real HTTP server on 127.0.0.1 (``http.server`` in a thread)."""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
import sys
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tooldeck._tool import ImagePart, TextPart
from tooldeck.builtin_plugins._run.webfetch_convert import Abandoned, Fetched, result_of
from tooldeck.builtin_plugins.webfetch import MAX_BYTES, MAX_CONVERT_BYTES
from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.location.location import Location
from tooldeck.host.permissions.request import Reject

PAGE = b"""<!doctype html>
<html><head><title>Ignored title</title><style>body { color: red }</style></head>
<body>
<h1>Release notes</h1>
<p>Read the <a href="/docs/start">getting started guide</a> first.</p>
<script>alert("tracking")</script>
<ul><li>Fast</li><li>Small</li></ul>
</body></html>
"""


def png() -> bytes:
    chunk = b"IHDR" + struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
    )


class Handler(BaseHTTPRequestHandler):
    server: Server

    def do_GET(self) -> None:
        self.server.hits.append(self.path)
        route = ROUTES.get(self.path)
        try:
            if route is None:
                self.reply(404, "text/plain", b"no such page")
            else:
                route(self)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first (timeouts, size limits): expected here

    def reply(self, status, content_type, body, *, length=True, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass

    def slow(self):
        self.server.release.wait(timeout=5)
        self.reply(200, "text/plain", b"too late")

    def streamed_too_large(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        block = b"x" * 65536
        for _ in range(MAX_BYTES // len(block) + 2):
            self.wfile.write(block)

    def redirect(self, target):
        self.reply(302, "text/plain", b"", headers=[("Location", target)])


DEEP = b"<html><body>" + b"<div>" * 1000 + b"deep" + b"</div>" * 1000 + b"</body></html>"
MANY = (
    b"<html><body>"
    + b"".join(
        b"<div><p>Paragraph %d with <a href='/x/%d'>a link</a>.</p></div>\n" % (i, i)
        for i in range(3000)
    )
    + b"</body></html>"
)

HEAVY = b"<html><body>" + b"<b>x</b>" * (MAX_CONVERT_BYTES // 8) + b"</body></html>"
"""Seconds of parsing on any machine: a quarter of a million tags."""

ROUTES = {
    "/heavy.html": lambda h: h.reply(200, "text/html", HEAVY),
    "/page.html": lambda h: h.reply(200, "text/html; charset=utf-8", PAGE),
    "/deep.html": lambda h: h.reply(200, "text/html", DEEP),
    "/many.html": lambda h: h.reply(200, "text/html", MANY),
    "/plain.txt": lambda h: h.reply(200, "text/plain", b"hello\n  world\n"),
    "/data.json": lambda h: h.reply(200, "application/json", b'{"a": [1, 2]}'),
    "/notes": lambda h: h.reply(200, "application/octet-stream", b"plain notes\n"),
    "/latin1.html": lambda h: h.reply(
        200, "text/html; charset=iso-8859-1", "<p>café</p>".encode("latin-1")
    ),
    "/image.png": lambda h: h.reply(200, "image/png", png()),
    "/archive.zip": lambda h: h.reply(200, "application/zip", b"PK\x03\x04\0\0"),
    "/boom": lambda h: h.reply(500, "text/plain", b"stack trace"),
    "/declared-too-large": lambda h: h.reply(200, "text/plain", b"x" * (MAX_BYTES + 1)),
    "/streamed-too-large": Handler.streamed_too_large,
    "/slow": Handler.slow,
    "/moved": lambda h: h.redirect("/plain.txt"),
    "/away": lambda h: h.redirect(f"http://localhost:{h.server.server_port}/plain.txt"),
    "/loop": lambda h: h.redirect("/loop"),
}


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.hits: list[str] = []
        self.release = threading.Event()

    def url(self, path):
        return f"http://127.0.0.1:{self.server_port}{path}"


@pytest.fixture
def server(join_threads):
    httpd = Server()
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield httpd
    httpd.release.set()
    httpd.shutdown()
    httpd.server_close()
    join_threads(thread)


@pytest.fixture
def webfetch(builtins):
    return builtins.load("webfetch")


def text(outcome) -> str:
    return "\n".join(p.text for p in outcome.content if isinstance(p, TextPart))


# -- content -------------------------------------------------------------------------------
async def test_html_becomes_markdown_with_absolute_links(webfetch, server):
    outcome = await webfetch.call("webfetch", url=server.url("/page.html"))
    assert outcome.status == "completed"
    assert text(outcome) == (
        "# Release notes\n\n"
        f"Read the [getting started guide]({server.url('/docs/start')}) first.\n\n"
        "- Fast\n- Small"
    )
    assert outcome.output["format"] == "markdown"
    assert outcome.output["content_type"] == "text/html"
    assert outcome.output["status"] == 200


async def test_html_as_plain_text_drops_markup_scripts_and_styles(webfetch, server):
    outcome = await webfetch.call("webfetch", url=server.url("/page.html"), format="text")
    assert text(outcome) == (
        "Release notes\n\nRead the getting started guide first.\n\nFast\nSmall"
    )


async def test_html_format_returns_the_page_as_sent(webfetch, server):
    outcome = await webfetch.call("webfetch", url=server.url("/page.html"), format="html")
    assert text(outcome) == PAGE.decode()
    assert outcome.output["format"] == "html"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/plain.txt", "hello\n  world\n"),
        ("/data.json", '{"a": [1, 2]}'),
        ("/notes", "plain notes\n"),
    ],
)
async def test_other_text_is_returned_as_it_is(webfetch, server, path, body):
    outcome = await webfetch.call("webfetch", url=server.url(path), format="text")
    assert text(outcome) == body
    assert outcome.output["format"] == "raw"


async def test_the_declared_charset_decodes_the_page(webfetch, server):
    outcome = await webfetch.call("webfetch", url=server.url("/latin1.html"))
    assert text(outcome) == "café"


async def test_images_come_back_as_images(webfetch, server):
    outcome = await webfetch.call("webfetch", url=server.url("/image.png"))
    assert outcome.status == "completed"
    [image] = [p for p in outcome.content if isinstance(p, ImagePart)]
    assert image.mime_type == "image/png"
    assert outcome.output["format"] == "image"


async def test_other_binary_content_is_refused(webfetch, server):
    outcome = await webfetch.call("webfetch", url=server.url("/archive.zip"))
    assert outcome.status == "failed"
    assert "binary content (application/zip)" in outcome.error.message


# -- failures ------------------------------------------------------------------------------
async def test_http_errors_name_the_status(webfetch, server):
    missing = await webfetch.call("webfetch", url=server.url("/missing"))
    assert missing.status == "failed" and missing.error.type == "tool.execution"
    assert missing.error.message.startswith(
        f"HTTP 404 Not Found from {server.url('/missing')}. Check the URL"
    )
    broken = await webfetch.call("webfetch", url=server.url("/boom"))
    assert broken.error.message.startswith("HTTP 500 Internal Server Error")


@pytest.mark.parametrize("path", ["/declared-too-large", "/streamed-too-large"])
async def test_responses_over_the_size_limit_fail(webfetch, server, path):
    outcome = await webfetch.call("webfetch", url=server.url(path))
    assert outcome.status == "failed"
    assert "is larger than 5 MB" in outcome.error.message


async def test_a_slow_server_times_out(webfetch, server):
    outcome = await webfetch.call("webfetch", url=server.url("/slow"), timeout=1)
    assert outcome.status == "failed"
    assert outcome.error.message.startswith(f"Fetching {server.url('/slow')} timed out after 1 s.")


async def test_an_unreachable_server_fails_with_advice(webfetch):
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    outcome = await webfetch.call("webfetch", url=f"http://127.0.0.1:{port}/x", timeout=5)
    assert outcome.status == "failed"
    assert outcome.error.message.startswith(f"Could not fetch http://127.0.0.1:{port}/x")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/a", "has 'ftp:'"),
        ("file:///etc/passwd", "has 'file:'"),
        ("example.com/page", "has no scheme"),
        ("http:///nohost", "has no host name"),
        ("http://example.com:99999/", "is not a valid URL"),
    ],
)
async def test_only_http_urls_are_fetched_and_nothing_is_asked(webfetch, asker, url, message):
    outcome = await webfetch.call("webfetch", url=url)
    assert outcome.status == "failed" and message in outcome.error.message
    assert asker.requests == []


async def test_the_timeout_is_bounded(webfetch, server):
    outcome = await webfetch.call("webfetch", url=server.url("/plain.txt"), timeout=121)
    assert outcome.status == "failed" and server.hits == []


# -- redirects -----------------------------------------------------------------------------
async def test_same_host_redirects_are_followed(webfetch, server):
    outcome = await webfetch.call("webfetch", url=server.url("/moved"))
    assert text(outcome) == "hello\n  world\n"
    assert outcome.output["url"] == server.url("/plain.txt")


async def test_a_redirect_to_another_host_is_reported_not_followed(webfetch, server):
    outcome = await webfetch.call("webfetch", url=server.url("/away"))
    assert outcome.status == "completed"
    target = f"http://localhost:{server.server_port}/plain.txt"
    assert text(outcome).startswith(f"{server.url('/away')} redirects to another host: {target}")
    assert outcome.output["format"] == "redirect"
    assert server.hits == ["/away"]


async def test_endless_redirects_give_up(webfetch, server):
    outcome = await webfetch.call("webfetch", url=server.url("/loop"))
    assert outcome.status == "failed" and "redirected more than 10 times" in outcome.error.message


# -- permission ----------------------------------------------------------------------------
async def test_the_url_is_asked_for_before_anything_is_fetched(webfetch, server, asker):
    url = server.url("/plain.txt")
    asker.replies["webfetch"] = "reject"
    outcome = await webfetch.call("webfetch", url=url)
    assert outcome.status == "declined" and server.hits == []
    [request] = asker.requests
    assert (request.action, request.resources) == ("webfetch", (url,))
    assert request.metadata == {"url": url, "format": "markdown", "timeout": 30.0}


async def test_feedback_on_a_rejection_fails_with_it(webfetch, server, asker):
    asker.replies["webfetch"] = Reject("use the docs mirror instead")
    outcome = await webfetch.call("webfetch", url=server.url("/plain.txt"))
    assert outcome.status == "failed" and "use the docs mirror instead" in outcome.error.message
    assert server.hits == []


async def test_rules_match_the_url(builtins, root, tmp_path, asker, server):
    rules = (
        PermissionRule(action="webfetch", resource=server.url("/*"), effect="allow"),
        PermissionRule(action="webfetch", resource=server.url("/boom"), effect="deny"),
    )
    location = Location(
        root, config=Config(permission=rules), data_dir=tmp_path / "d2", asker=asker
    )
    fetch = type(builtins)(location).load("webfetch")
    assert (await fetch.call("webfetch", url=server.url("/plain.txt"))).status == "completed"
    denied = await fetch.call("webfetch", url=server.url("/boom"))
    assert denied.status == "failed" and denied.error.type == "permission.rejected"
    assert asker.requests == [] and server.hits == ["/plain.txt"]


# -- heavy pages -----------------------------------------------------------------------------
async def test_a_deeply_nested_page_fails_clearly_as_markdown_and_converts_as_text(
    webfetch, server
):
    outcome = await webfetch.call("webfetch", url=server.url("/deep.html"))
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert outcome.error.message == (
        f"The page at {server.url('/deep.html')} nests elements 1,002 levels deep, too deep "
        "to convert to markdown (at most 200). Fetch it with format='text' or format='html'."
    )
    text_outcome = await webfetch.call("webfetch", url=server.url("/deep.html"), format="text")
    assert text(text_outcome) == "deep"


async def test_only_the_first_part_of_a_large_page_is_converted(webfetch, server, monkeypatch):
    from tooldeck.builtin_plugins._run import webfetch_convert

    monkeypatch.setattr(webfetch_convert, "MAX_CONVERT_BYTES", 1000)
    outcome = await webfetch.call("webfetch", url=server.url("/many.html"), format="text")
    lines = [line for line in text(outcome).split("\n") if line]
    assert lines[:2] == ["Paragraph 0 with a link.", "Paragraph 1 with a link."]
    assert len([line for line in lines if line.startswith("Paragraph")]) < 20
    assert lines[-1] == (
        f"[Only the first 1000 bytes of this {len(MANY) / 1024:.1f} KiB page were "
        "converted. Fetch it with format='html' for all of it.]"
    )


@pytest.mark.parametrize("fmt", ["markdown", "text"])
async def test_past_the_timeout_the_answer_comes_and_the_conversion_stops(
    webfetch, server, caplog, fmt
):
    """The failure comes at the deadline, and the conversion thread ends then too (it
    stopped, it did not finish): nothing runs on for the seconds the page would take."""
    caplog.set_level(logging.DEBUG, logger="tooldeck")
    outcome = await webfetch.call("webfetch", url=server.url("/heavy.html"), format=fmt, timeout=1)
    assert outcome.status == "failed"
    assert outcome.error.message.startswith(
        f"Converting the page from {server.url('/heavy.html')} took longer than the 1 s timeout."
    )
    for _ in range(3000):  # the thread ends (at most a minute: a hang fails the test)
        if not converting_elsewhere():
            break
        await asyncio.sleep(0.02)
    stopped = [r for r in caplog.records if r.getMessage().startswith("webfetch: stopped")]
    assert [r.getMessage() for r in stopped] == [
        f"webfetch: stopped converting {server.url('/heavy.html')}: nobody waits for it"
    ]


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_a_set_stop_ends_a_conversion(fmt):
    stop = threading.Event()
    stop.set()
    with pytest.raises(Abandoned):
        result_of(Fetched("http://x/", 200, "text/html", None, PAGE), fmt, stop)
    assert result_of(Fetched("http://x/", 200, "text/html", None, PAGE), fmt).output


def converting_elsewhere() -> bool:
    """Whether a thread other than this one runs the HTML parser or converter."""
    me = threading.get_ident()
    for ident, frame in sys._current_frames().items():
        while ident != me and frame is not None:
            if "bs4" in frame.f_code.co_filename or "markdownify" in frame.f_code.co_filename:
                return True
            frame = frame.f_back
    return False


async def test_the_loop_keeps_running_while_a_page_is_converted(webfetch, server):
    """Other tasks run while the page is parsed: a task on the loop sees the HTML parser
    at work in another thread. (Were the conversion on the loop, no task could run while
    it did, and the count would be zero whatever the machine's speed.)"""
    seen_converting = 0

    async def ticker() -> None:
        nonlocal seen_converting
        while True:
            await asyncio.sleep(0)
            seen_converting += converting_elsewhere()

    ticking = asyncio.create_task(ticker())
    outcome = await webfetch.call("webfetch", url=server.url("/many.html"), format="markdown")
    ticking.cancel()
    assert outcome.status == "completed"
    assert seen_converting > 0
