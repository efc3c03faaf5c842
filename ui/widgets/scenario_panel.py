"""The sidebar's scenario panel: what is loaded, the currency money is shown in, a share dialog (link and JSON),
the presets, upload and reset.

The share link is built when the dialog opens, from the session's current scenario and view settings, so
it holds every edit, including those made inside a fragment (a partial rerun that does not redraw the
sidebar).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from economics import FinanceSettings, fx_rates
from economics.io import scenarios
from economics.scenario import Scenario
from ui import state, view
from ui.format import file_problem, md_escape, plural
from ui.widgets.changes import modified_from, status_drawn

_APPLIED_UPLOAD = "_applied_upload"
_UPLOAD_RESULT = "_upload_result"
_STATUS_SLOT = "_status_slot"


def share_link() -> str:
    """The full link of the current page, scenario and view settings (relative when the URL is unknown)."""
    query = urlencode({state.QUERY_PARAM: state.token(), **view.params()})
    return f"{st.context.url or ''}?{query}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:60] or "scenario"


@st.dialog("Share this scenario", width="large")
def share_dialog() -> None:
    """The link (with a copy button) and the scenario as a JSON file, as of this moment."""
    s = state.scenario()
    modified = modified_from(s)
    if modified is not None:
        st.caption(
            f"This scenario is **{md_escape(modified[0].lower() + modified[1:])}**; the link carries every edit."
        )
    if scenarios.fits_in_link(state.token()):
        st.caption(
            "This link opens the dashboard on this page with every input of every page as it is now. "
            "Copy it with the button at the right of the box."
        )
        st.code(share_link(), language=None, wrap_lines=True)
    else:
        st.warning("This scenario is too large for a link; share the JSON file instead.")
    st.download_button(
        "Download scenario [JSON]",
        data=scenarios.scenario_json(s),
        file_name=f"{_slug(s.name)}.json",
        mime="application/json",
        on_click="ignore",
        icon=":material/download:",
        key="scenario_download",
    )


def _json_or_none(raw: bytes) -> object:
    """The file's JSON (to name the items its problems are in), or None when it is not JSON."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def _upload() -> None:
    uploaded = st.file_uploader(
        "Load a scenario [JSON file]",
        type=["json"],
        key="scenario_upload",
        max_upload_size=max(1, scenarios.MAX_SCENARIO_BYTES // 1_000_000),
        help="A file saved with 'Download scenario'. It is checked completely before anything changes: "
        "a file with any invalid field is rejected whole, with the field named.",
    )
    if uploaded is None:
        st.session_state.pop(_APPLIED_UPLOAD, None)
    elif st.session_state.get(_APPLIED_UPLOAD) != uploaded.file_id:
        st.session_state[_APPLIED_UPLOAD] = uploaded.file_id
        raw = uploaded.getvalue()
        parsed, messages = scenarios.parse_json(raw)
        if parsed is None:
            data = _json_or_none(raw) if len(raw) <= scenarios.MAX_SCENARIO_BYTES else None
            words = tuple(file_problem(m, data) for m in messages)
            st.session_state[_UPLOAD_RESULT] = ("error", uploaded.name, words)
        else:
            state.replace(parsed, f"the file “{uploaded.name}”")
            st.session_state[_UPLOAD_RESULT] = ("success", uploaded.name, ())
            st.rerun()
    level, name, messages = st.session_state.get(_UPLOAD_RESULT, ("", "", ()))
    if level == "success":
        st.success(f"Loaded {md_escape(name)}.")
    elif level == "error":
        st.error(
            f"{md_escape(name)} was not loaded; nothing changed.\n\n" + "\n".join(f"- {md_escape(m)}" for m in messages)
        )


@st.cache_resource(show_spinner=False)
def _preset_list() -> tuple[scenarios.Preset, ...]:
    return scenarios.list_presets()


def _presets() -> None:
    """Open one of the preset scenarios (data/scenarios): a reviewer could load another one only by downloading
    its JSON file and uploading it again."""
    presets = {p.id: p for p in _preset_list()}
    c = st.columns([3, 1], vertical_alignment="bottom")
    chosen = c[0].selectbox(
        "Preset scenario", list(presets), format_func=lambda i: presets[i].name, key="scenario_preset_pick"
    )
    if c[1].button("Open", key="scenario_preset_open", icon=":material/file_open:"):
        preset = scenarios.load_preset(chosen)
        state.replace(preset, f"the preset “{preset.name}”")
        st.session_state.pop(_UPLOAD_RESULT, None)
        st.rerun()


def _currency(s: Scenario) -> None:
    """Which currency money is shown in: US dollars or a currency with a dated rate in the catalog
    (data/prices/fx_rates.csv). A scenario setting (``finance.display_currency``), so the link and reviews keep it;
    a rate typed in the scenario is kept only for its own currency."""
    codes = sorted({row.currency for row in fx_rates()} | {"USD"}, key=lambda c: (c != "USD", c))
    settings = s.finance or FinanceSettings()
    current = settings.display_currency
    if current not in codes:
        codes.append(current)
    code = st.selectbox(
        "Show money in",
        codes,
        index=codes.index(current),
        key=state.key("scenario_currency"),
        help="The model computes in US dollars; every page converts at the rate named under the headline. "
        "Prices you type stay in US dollars, as on the invoice.",
    )
    if code != current:
        typed = {"fx_units_per_usd": None, "fx_as_of": None, "fx_source": ""}
        finance = settings.model_copy(update={"display_currency": code, **typed})
        state.update(s.model_copy(update={"finance": finance}))
        st.rerun()


def render(default: Callable[[], Scenario]) -> None:
    """Draw the panel in the sidebar (before the page: loading or resetting a scenario applies at once)."""
    s = state.scenario()
    with st.sidebar:
        st.markdown(f"**Scenario:** {md_escape(s.name)}")
        st.caption(f"Prices reviewed as of {s.review_date:%d %b %Y} · {plural(len(s.workloads), 'workload')}")
        st.session_state[_STATUS_SLOT] = st.container()
        if st.button("Share this scenario", key="share_open", icon=":material/link:", width="stretch"):
            share_dialog()
        _currency(s)
        with st.expander("Load or reset a scenario", icon=":material/upload_file:"):
            _presets()
            _upload()
            if st.button("Reset to the default scenario", key="scenario_reset", icon=":material/restart_alt:"):
                preset = default()
                state.replace(preset, f"the preset “{preset.name}”")
                st.session_state.pop(_UPLOAD_RESULT, None)
                st.rerun()


def status_slot() -> Any:
    """The sidebar's place for :func:`status`, under the scenario's name (the sidebar itself before the panel
    was drawn)."""
    return st.session_state.get(_STATUS_SLOT) or st.sidebar


def status(s: Scenario) -> None:
    """After the page ran, drawn in :func:`status_slot`: "Modified from …" when an edit changed the scenario."""
    text = modified_from(s)
    status_drawn(text)
    if text is not None:
        st.caption(f":orange-badge[:material/edit: {md_escape(text)}]")
