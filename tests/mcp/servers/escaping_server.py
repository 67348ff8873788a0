"""The calc server, after starting a helper that leaves its process group (``setsid``)
while holding the server's stdout: the pipe then never reports end-of-file.

    python escaping_server.py PIDFILE

The helper's pid goes to PIDFILE, so the test can end it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

helper = subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True
)
Path(sys.argv[1]).write_text(str(helper.pid))
calc = Path(__file__).with_name("calc_server.py")
os.execv(sys.executable, [sys.executable, str(calc)])
