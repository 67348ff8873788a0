"""How the built-ins run: each module's ``executor(location)`` and the helpers they share.

Nothing here is imported when a Host opens. A built-in's plugin module (``read.py``
and its siblings) declares the tool (name, description, models) and hands the editor
a ``deferred`` executor, which imports the matching module here on the tool's first
call. The implementations pull in asyncio, subprocess, difflib, httpx and friends:
loading them for every process would cost more than most processes ever call.
"""
