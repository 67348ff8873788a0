"""A stdio "server" that answers the handshake with one line that is not JSON-RPC, then
stays silent until its stdin closes.

It imports nothing beyond ``sys``, so the line arrives as soon as the interpreter
starts: the mount's connect limit in the test measures the mount, not an SDK import on
a loaded machine.

    python garbage_server.py
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    sys.stdout.write("this is not JSON-RPC\n")
    sys.stdout.flush()
    sys.stdin.read()
