"""A path no file system accepts is a clear ``tool.execution`` failure, never a defect.

A NUL byte, a lone surrogate, a name over 255 bytes or an absolute path over 4 KiB
made ``os`` raise ``ValueError`` or ``OSError`` deep in a tool (``failed/unknown``).
Every tool that takes a path now says what is wrong with it, before anything is asked.
"""

from __future__ import annotations

import pytest

NUL = (
    "The path 'a\\x00b' contains a NUL character (\\0), which no file name can hold. "
    "Pass the path without it."
)
NAME = (
    "The path has a name of 300 bytes; file and directory names can have at most 255 "
    "bytes. Use a shorter name."
)
SURROGATE = (
    "The path 'a\\ud800b' contains a character that cannot be part of a file name "
    "('\\ud800'). Pass the path without it."
)

VALIDATION = (
    "Invalid input for tool '{tool}':\n"
    "- path: Input should be a valid string, unable to parse raw data as a unicode string\n"
    "Arguments received:\n"
)

BEGIN, END = "*** Begin Patch", "*** End Patch"
CALLS = {
    "read": lambda path: {"path": path},
    "write": lambda path: {"path": path, "content": "x"},
    "edit": lambda path: {"path": path, "old_string": "x", "new_string": "y"},
    "grep": lambda path: {"pattern": "x", "path": path},
    "glob": lambda path: {"pattern": "*", "path": path},
    "shell": lambda path: {"command": "true", "workdir": path},
    "patch": lambda path: {"patch_text": f"{BEGIN}\n*** Add File: {path}\n+x\n{END}"},
}


@pytest.fixture
def tools(builtins):
    return builtins.load(*CALLS)


@pytest.mark.parametrize("tool", list(CALLS))
@pytest.mark.parametrize(
    ("path", "expected"),
    [("a\0b", NUL), ("a" * 300, NAME)],
    ids=["nul", "long-name"],
)
async def test_a_path_no_file_system_accepts_fails_clearly(tools, asker, tool, path, expected):
    outcome = await tools.call(tool, **CALLS[tool](path))
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert outcome.error.message == expected
    assert asker.requests == []


@pytest.mark.parametrize("tool", list(CALLS))
async def test_a_lone_surrogate_fails_clearly(tools, tool):
    """Input validation refuses it for some tools; the path check catches the rest."""
    outcome = await tools.call(tool, **CALLS[tool]("a\ud800b"))
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    message = outcome.error.message
    assert message == SURROGATE or message.startswith(VALIDATION.format(tool=tool))


@pytest.mark.parametrize("tool", list(CALLS))
async def test_a_path_longer_than_the_kernel_takes_fails_clearly(tools, root, tool):
    deep = "/".join(["abcdefghij"] * 400)
    outcome = await tools.call(tool, **CALLS[tool](deep))
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    size = len(str(root / deep).encode())
    assert outcome.error.message == (
        f"The path is {size:,} bytes long as an absolute path; paths must be shorter than "
        "4,096 bytes. Use a shorter path."
    )


async def test_a_nul_in_a_grep_pattern_or_a_shell_command_fails_clearly(tools, asker):
    grep = await tools.call("grep", pattern="x\0")
    assert grep.error.type == "tool.execution"
    assert grep.error.message.startswith("The pattern contains a NUL character.")
    shell = await tools.call("shell", command="echo \0")
    assert shell.error.type == "tool.execution"
    assert shell.error.message.startswith("The command contains a NUL character")
    assert asker.requests == []
