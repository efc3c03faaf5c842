"""Scenario inputs that answer live: an edit reruns only the parts of the page it changes (issue 12, item 6).

A node price, an API rate or a workload row is a scenario edit, and a scenario edit used to rerun the whole
app: the sidebar, ~30 inputs, every chart and table, and a rewrite of the ~3 KB address. Measured in the
browser (``benchmarks/browser_latency.py --breakdown``) the server part was small; the browser's redraw of the
rest of the page, and above all its reaction to the new address, took ~5× the trivial page.

So each such input sits in a keyed ``st.fragment`` with the charts it drives, and its ``on_change`` asks for a
targeted rerun (:func:`rerun`) of exactly: its own fragment, the page's fragments that show figures of the
same scenario (listed by the page, in page order), the what-changed banner and the sidebar's "modified from"
line. Streamlit runs them in the order given, in one script run, so the edited chart's deltas leave first.

The address bar follows at the end of the next full run (:func:`in_fragment_run` tells ``ui.state`` not to
rewrite it during a fragment run), as view settings already did; the Share dialog builds its link from the
session's state, so a shared link is always current.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.scriptrunner import get_script_run_ctx

#: Keys of the app-wide fragments a scenario edit reruns after the page's own (``app.py`` draws them).
BANNER = "live_banner"
STATUS = "live_status"


def in_fragment_run() -> bool:
    """Whether this script run reruns fragments only (the rest of the page, and the URL, are left as drawn)."""
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def rerun(*fragment_keys: str, status: bool = True) -> Callable[[], None]:
    """An ``on_change`` callback that reruns the given page fragments, then the banner and the sidebar status.

    ``status=False`` leaves the sidebar status as drawn: for a callback that applied its edit and found its text
    unchanged (``ui.widgets.changes.status_changes``): a run sends less, and "Modified from …" reads the same
    after each edit but the first.

    Only for widgets drawn inside one of ``fragment_keys``. When one of the fragments was not drawn (a page
    run without ``app.py``, as AppTest does after ``switch_page``) the whole app reruns instead: slower, never
    stale.
    """

    def callback() -> None:
        try:
            st.rerun([*fragment_keys, BANNER, *((STATUS,) if status else ())])
        except StreamlitAPIException:  # a fragment not drawn in this session: rerun everything
            st.rerun()

    return callback
