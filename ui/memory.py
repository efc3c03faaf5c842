"""Keep Python's garbage collector off the interactive path.

Streamlit's default full ``gc.collect(2)`` after every script run is switched off in
``.streamlit/config.toml`` (it took ~70 ms per rerun and delayed every update). Python's own generational
collector still runs; :func:`freeze_startup_objects` moves what the first run loaded (modules, the catalog,
plotly's validators) to the permanent generation, so those automatic collections scan only what later runs
allocate. Objects frozen are never collected, which is right for import-time state and the reason this
runs once per process, after one collection of whatever the start-up left behind.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_frozen = False


def freeze_startup_objects() -> bool:
    """Collect once, then freeze every object alive; True the first time in this process, False after."""
    global _frozen
    with _lock:
        if _frozen:
            return False
        gc.collect()
        gc.freeze()
        _frozen = True
        return True
