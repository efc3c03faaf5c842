"""The shared scenario: one validated :class:`~economics.scenario.Scenario` in ``st.session_state``, in the URL.

Every page reads the scenario with :func:`scenario` and writes a changed one with :func:`update` (an edit
made by a widget) or :func:`replace` (a whole new scenario: upload, reset). The URL's ``s`` query parameter
always carries the current scenario as a share token (``economics.io.scenarios``), so the address bar is a link
that reproduces the page. The link is read once per browser session, when the session starts.

Widget keys carry an *epoch* (:func:`key`). :func:`replace` starts a new epoch, so every widget is created
afresh from the new scenario instead of keeping the value the user typed into the old one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st
from pydantic import BaseModel
from streamlit.runtime.pages_manager import PagesManager

from economics.io import scenarios
from economics.measured import MeasuredThroughput
from economics.scenario import Scenario
from ui import live, view
from ui.format import file_problem

QUERY_PARAM = "s"
_SCENARIO = "_scenario"
_LINK = "_scenario_link"
_EPOCH = "_scenario_epoch"
_NOTICE = "_scenario_notice"
_ORIGIN = "_scenario_origin"


@dataclass(frozen=True)
class Notice:
    """A message for the user about how the scenario was loaded (a repaired or rejected link)."""

    level: str  # "warning" or "error"
    title: str
    lines: tuple[str, ...]


def init(default: Callable[[], Scenario]) -> None:
    """Load the scenario once per session: from the ``s`` query parameter if present, else ``default()``."""
    if _SCENARIO in st.session_state:
        return
    params = {name: str(st.query_params.get(name)) for name in st.query_params}
    view_messages = tuple(view.init(params))
    token = params.get(QUERY_PARAM)
    notice = None
    if token is None:
        loaded = default()
    else:
        decoded = scenarios.decode(token, default())
        loaded = decoded.scenario
        # the economics package names fields by path ("workloads.0.peak_requests_per_s"): in words here
        words = tuple(file_problem(m) for m in decoded.messages)
        if decoded.status == "repaired":
            notice = Notice(
                "warning",
                "The link was damaged or made by an older version: the parts named below were dropped, "
                "everything else is as shared.",
                words + view_messages,
            )
        elif decoded.status == "default":
            notice = Notice("error", "The link could not be opened.", words + view_messages)
    if notice is None and view_messages:
        notice = Notice("warning", "Some settings in the link were not valid and were reset.", view_messages)
    loaded = _measured_from_view(loaded)
    st.session_state[_EPOCH] = 0
    st.session_state[_NOTICE] = notice
    st.session_state[_ORIGIN] = (loaded, f"the preset “{loaded.name}”") if token is None else _link_origin(loaded)
    _store(loaded)


def _link_origin(loaded: Scenario) -> tuple[Scenario, str]:
    """What a scenario opened from a shared link is compared with. A link made from a preset (it keeps the
    preset's name) is compared with that preset, so whoever opens it reads "Modified from the preset …" and the
    what-changed banner states what the sender changed, as the sender saw it. Any other link (an uploaded file,
    a renamed scenario) is its own starting point: nothing this app ships says what it was modified from."""
    for preset in scenarios.list_presets():
        if preset.name == loaded.name:
            return scenarios.load_preset(preset.id), f"the preset “{preset.name}”"
    return loaded, f"the shared link “{loaded.name}”"


def _measured_from_view(s: Scenario) -> Scenario:
    """Links made before measured throughput was part of the scenario carried it as a view setting of the
    Cost-per-token page (``cost_source=measured``, ``cost_measured``): move it onto its owned option."""
    v = view.get()
    if v.cost_source != "measured" or v.cost_measured <= 0 or not s.owned_options:
        return s
    option = next((o for o in s.owned_options if o.id == v.cost_option), s.owned_options[0])
    workload = next((w for w in s.workloads if w.id == v.cost_workload), s.workloads[0])
    view.set_value("cost_source", "model")
    view.set_value("cost_measured", 0.0)
    if option.measured is not None:
        return s
    measured = MeasuredThroughput(
        output_tokens_per_s=v.cost_measured, input_tokens=workload.input_tokens, output_tokens=workload.output_tokens
    )
    return with_item(s, "owned_options", option.model_copy(update={"measured": measured}))


def require_app() -> None:
    """Make sure ``app.py`` ran in this script run; if not, switch Streamlit to ``st.navigation`` and rerun.

    Streamlit decides per server process, at the first session, whether the app uses the legacy ``pages/``
    folder: until some session has called ``st.navigation``, a first visitor who opens a deep link
    (``/batching?s=…``) gets the page script run on its own, without ``app.py`` and so without the scenario.
    The page URL paths equal the legacy ones, so the rerun lands on the same page, now through ``app.py``.
    """
    if _SCENARIO not in st.session_state:
        PagesManager.uses_pages_directory = False
        st.rerun()


def scenario() -> Scenario:
    """The current scenario."""
    require_app()
    value: Scenario = st.session_state[_SCENARIO]
    return value


def token() -> str:
    """The share token of the current scenario (computed once per change)."""
    value: str = st.session_state[_LINK]
    return value


def notice() -> Notice | None:
    """How the link of this session was read, if it needs telling."""
    value: Notice | None = st.session_state.get(_NOTICE)
    return value


def dismiss_notice() -> None:
    st.session_state[_NOTICE] = None


def _store(new: Scenario) -> None:
    st.session_state[_SCENARIO] = new
    st.session_state[_LINK] = scenarios.encode(new)
    if not live.in_fragment_run():  # a fragment's edit reaches the address bar at the next full run (ui.live)
        sync_url()


def update(new: Scenario) -> bool:
    """Store a scenario edited by a widget; returns whether it changed. Widgets keep their state."""
    if new == st.session_state[_SCENARIO]:
        return False
    _store(new)
    return True


def replace(new: Scenario, origin: str | None = None) -> None:
    """Store a whole new scenario (upload, reset) and recreate every widget from it; ``origin`` names it
    ("the file x.json") as what later edits are compared with when no review is saved."""
    if origin is not None:
        st.session_state[_ORIGIN] = (new, origin)
    _store(new)
    st.session_state[_EPOCH] = int(st.session_state[_EPOCH]) + 1


def origin() -> tuple[Scenario, str]:
    """The scenario this session started from (preset, shared link, uploaded file, reset) and its name."""
    value: tuple[Scenario, str] = st.session_state[_ORIGIN]
    return value


def key(name: str) -> str:
    """Widget key for ``name`` in the current epoch (the bare name in the first epoch, for stable test ids)."""
    epoch = int(st.session_state[_EPOCH])
    return name if epoch == 0 else f"{name}__{epoch}"


def sync_url() -> None:
    """Make the URL carry the current scenario (sidebar navigation clears hand-set query parameters)."""
    current = st.session_state[_LINK]
    if st.query_params.get(QUERY_PARAM) != current:
        st.query_params[QUERY_PARAM] = current
    view.sync_url()


def with_item(s: Scenario, field: str, item: BaseModel) -> Scenario:
    """The scenario with the item of ``field`` that has ``item``'s id replaced by ``item``, validated."""
    items = tuple(item if getattr(old, "id", None) == getattr(item, "id", None) else old for old in getattr(s, field))
    return Scenario.model_validate({**s.model_dump(), field: [i.model_dump() for i in items]})
