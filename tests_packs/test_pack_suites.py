"""Each example pack's own test suite passes with every other pack installed next to it.

A pack's tests run as its author runs them: ``pytest`` in the pack's folder, with the
pack's own pytest configuration, importing the *installed* pack (the ``src/`` layout
keeps the source tree off ``sys.path``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_pack_suite_passes_with_all_packs_installed(pack: str, pack_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLDECK_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave no __pycache__ in the example folders
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=pack_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{pack}'s own tests failed:\n{done.stdout}\n{done.stderr}"
    assert " passed" in done.stdout.splitlines()[-1], done.stdout
