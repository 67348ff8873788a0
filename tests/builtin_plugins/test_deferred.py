"""A built-in's code loads on its tool's first call (``tests/host/test_startup.py``
checks that opening a host loads none of it)."""

from __future__ import annotations

from tooldeck.builtin_plugins._deferred import deferred


async def test_the_first_call_builds_the_executor_once(location):
    execute = deferred("write", location)
    assert execute.__name__ == "write"
    code = execute.__code__
    await _write(execute, location, "a.txt", "one")
    run = _captured_run(execute)
    await _write(execute, location, "a.txt", "two")
    assert _captured_run(execute) is run and execute.__code__ is code
    assert (location.root / "a.txt").read_text() == "two"


async def _write(execute, location, path, content):  # the asker allows "edit" once
    from tooldeck._tool import ToolContext
    from tooldeck.builtin_plugins.write import WriteInput

    ctx = ToolContext(location, "s", "m", "c", None, None)
    return await execute(WriteInput(path=path, content=content), ctx)


def _captured_run(execute):
    (cell,) = [
        c
        for c, name in zip(execute.__closure__, execute.__code__.co_freevars, strict=True)
        if name == "run"
    ]
    return cell.cell_contents
