"""MCP servers that run code themselves, whose tools are advertised natively by default.

Reaching such a server's ``run_python`` through code mode means writing a program whose
only job is to pass another program along as a string: the model does better calling it
directly. So when ``[mcp.servers.NAME]`` leaves ``codemode`` unset and the server is
recognised here, its tools default to native (``codemode = false``); an explicit
``codemode = true`` or ``false`` in the config always wins.

A server is recognised by the package or program that runs it: each word of its
``command`` (a path by its last part, a package spec without its version or extras, a
``jsr:``/``npm:`` prefix removed), or each host label and path segment of its ``url``, is
compared with ``CODE_EXECUTORS`` (case-insensitive, ``_`` read as ``-``); a hosted one by
its ``url``'s host, which is or ends in one of ``CODE_EXECUTOR_HOSTS``. Matching is by
whole name, so ``python`` alone, or an unrelated server that merely mentions Python,
is never taken for one. ``docs/mcp.md`` lists the same names.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from tooldeck.host.config.config import McpServerConfig

CODE_EXECUTORS = frozenset(
    {
        # pydantic's sandboxed Python (PyPI, and ``deno run jsr:@pydantic/mcp-run-python``)
        "mcp-run-python",
        "@pydantic/mcp-run-python",
        # E2B cloud sandboxes (PyPI ``e2b-mcp-server``, npm ``@e2b/mcp-server``)
        "e2b-mcp-server",
        "@e2b/mcp-server",
        "code-sandbox-mcp",
        # Riza's isolated interpreter (npm)
        "@riza-io/riza-mcp",
        "riza-mcp",
        # Jupyter kernels and notebooks that execute cells
        "jupyter-mcp-server",
        "mcp-server-jupyter",
        "mcp-jupyter",
        "jupyter-kernel-mcp",
        # code runners and Python interpreters
        "mcp-server-code-runner",
        "mcp-python-interpreter",
        "python-interpreter-mcp",
        "mcp-run-python-code",
        "code-interpreter-mcp-server",
        "code-execution-mcp",
        "code-executor-mcp",
        "mcp-code-executor",
        # code-mode gateways: the model's program runs in the server (``executor mcp``)
        "executor",
        # Blender's scripting console (its ``execute_blender_code`` tool)
        "blender-mcp",
    }
)
"""Packages and programs of MCP servers whose tools run code (compared normalized)."""

CODE_EXECUTOR_HOSTS = frozenset(
    {
        "executor.sh",  # hosted code-mode gateways, ``https://executor.sh/<name>/mcp``
        "mcp.cloudflare.com",  # Cloudflare's API server: search and execute code
    }
)
"""Hosts of remote MCP servers whose tools run code (a subdomain counts too)."""

_VERSION = re.compile(r"(?<=.)(@[^/@]*|[=<>!~]=.*|\[.*)$")
"""A version or extras suffix of a package spec: ``pkg@1.2``, ``pkg==1.2``, ``pkg[x]``."""


def runs_code(config: McpServerConfig) -> bool:
    """Whether the configured server is a known code executor (``CODE_EXECUTORS``)."""
    if config.url is not None and _known_host(urlsplit(config.url).hostname or ""):
        return True
    return any(_normalized(word) in _KNOWN for word in _words(config))


def default_codemode(config: McpServerConfig) -> bool:
    """``Tool.codemode`` of the server's tools: the config's choice, else native for a
    code executor and code mode for every other server."""
    if config.codemode is not None:
        return config.codemode
    return not runs_code(config)


def _words(config: McpServerConfig) -> list[str]:
    if config.command is not None:
        words = []
        for part in config.command:  # as written (``@scope/name``) and by its last part
            words += [part, part.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]]
        return words
    parts = urlsplit(config.url or "")
    return [*(parts.hostname or "").split("."), *parts.path.split("/")]


def _known_host(host: str) -> bool:
    host = host.lower().rstrip(".")
    return any(host == known or host.endswith(f".{known}") for known in CODE_EXECUTOR_HOSTS)


def _normalized(word: str) -> str:
    word = word.strip().lower().replace("_", "-")
    for prefix in ("jsr:", "npm:"):
        word = word.removeprefix(prefix)
    word = _VERSION.sub("", word)
    return word.removesuffix(".py").removesuffix(".js")


_KNOWN = frozenset(_normalized(name) for name in CODE_EXECUTORS)
