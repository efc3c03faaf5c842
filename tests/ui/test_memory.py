"""The garbage-collector settings that keep a rerun's deltas from waiting on a full collection."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_streamlit_does_not_collect_after_every_run() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False


def test_freeze_runs_once_per_process_and_freezes_what_is_alive() -> None:
    # in a child process: freezing the test runner's own objects would change every later test's memory
    code = (
        "import gc; from ui import memory; "
        "print(gc.get_freeze_count() == 0, memory.freeze_startup_objects(), gc.get_freeze_count() > 1000, "
        "memory.freeze_startup_objects())"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "True", "False"]
