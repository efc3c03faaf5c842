"""The sidebar's scenario panel: what is loaded, the share link, JSON download/upload, reset."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from economics import share
from economics.scenario import Scenario
from ui import state, view
from ui.format import md_escape

_APPLIED_UPLOAD = "_applied_upload"
_UPLOAD_RESULT = "_upload_result"


def share_link() -> str:
    """The full link of the current page, scenario and view settings (relative when the URL is unknown)."""
    query = urlencode({state.QUERY_PARAM: state.token(), **view.params()})
    return f"{st.context.url or ''}?{query}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:60] or "scenario"


def _apply_upload(default: Callable[[], Scenario]) -> None:
    uploaded = st.file_uploader(
        "Load a scenario [JSON file]",
        type=["json"],
        key="scenario_upload",
        max_upload_size=max(1, share.MAX_JSON_BYTES // 1_000_000),
        help="A file saved with 'Download scenario'. It is checked completely before anything changes: "
        "a file with any invalid field is rejected whole, with the field named.",
    )
    if uploaded is None:
        st.session_state.pop(_APPLIED_UPLOAD, None)
        return
    if st.session_state.get(_APPLIED_UPLOAD) != uploaded.file_id:
        st.session_state[_APPLIED_UPLOAD] = uploaded.file_id
        parsed, messages = share.parse_json(uploaded.getvalue())
        if parsed is None:
            st.session_state[_UPLOAD_RESULT] = ("error", uploaded.name, messages)
        else:
            state.replace(parsed)
            st.session_state[_UPLOAD_RESULT] = ("success", uploaded.name, ())
            st.rerun()
    level, name, messages = st.session_state.get(_UPLOAD_RESULT, ("", "", ()))
    if level == "success":
        st.success(f"Loaded {md_escape(name)}.")
    elif level == "error":
        st.error(
            f"{md_escape(name)} was not loaded; nothing changed.\n\n" + "\n".join(f"- {md_escape(m)}" for m in messages)
        )


def render(default: Callable[[], Scenario], container: Any) -> None:
    """Draw the panel into ``container`` (in the sidebar) after the page ran, so that the link and the
    download hold every edit of this run. Loading or resetting a scenario reruns the page."""
    s = state.scenario()
    with container:
        st.markdown(f"**Scenario:** {md_escape(s.name)}")
        st.caption(f"Prices reviewed as of {s.review_date:%d %b %Y} · {len(s.workloads)} workloads")
        with st.expander("Share this scenario", icon=":material/link:"):
            link = share_link()
            st.caption(
                "The link holds every input of every page. Copy it with the button at the right of the box."
                if share.fits_in_link(state.token())
                else "This scenario is too large for a link; share the JSON file instead."
            )
            st.code(link, language=None, wrap_lines=True)
            st.download_button(
                "Download scenario [JSON]",
                data=share.scenario_json(s),
                file_name=f"{_slug(s.name)}.json",
                mime="application/json",
                on_click="ignore",
                icon=":material/download:",
                key="scenario_download",
            )
            _apply_upload(default)
            if st.button("Reset to the default scenario", key="scenario_reset", icon=":material/restart_alt:"):
                state.replace(default())
                st.session_state.pop(_UPLOAD_RESULT, None)
                st.rerun()
