"""A Streamlit session driven at the websocket protocol level, for the load benchmark (``benchmarks/load.py``).

It speaks what the browser speaks: it opens ``/_stcore/stream`` (subprotocol ``streamlit``, the page's
origin), sends ``BackMsg.rerun_script`` with the link's query string, the page and the widget states, and
reads the ``ForwardMsg`` protobufs the server answers with (``streamlit.proto``, from the installed
package), until ``script_finished``. It draws nothing, so N of these cost the client almost no CPU and the
measurement is of the server: the time from sending an input change to receiving the chart's new delta.

Simplifications against a browser (each makes the server's work the same or larger, never smaller): no
ForwardMsg cache (``cached_message_hashes`` is empty, so every delta is sent in full), and a change sends
only the changed widget's state (the others keep the values the server holds).
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from dataclasses import dataclass, field
from typing import Any

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

__all__ = ["ProtocolError", "Run", "StreamlitSession"]


class ProtocolError(RuntimeError):
    """The server closed the stream, answered with an exception element, or did not finish in time."""


@dataclass
class Run:
    """What one script run sent: every text it carried, chart titles by delta path, widget ids by user key."""

    texts: list[str] = field(default_factory=list)
    chart_titles: dict[tuple[int, ...], str] = field(default_factory=dict)
    widget_ids: dict[str, str] = field(default_factory=dict)
    exceptions: list[str] = field(default_factory=list)
    chart_s: dict[tuple[int, ...], float] = field(default_factory=dict)  # request → each chart's delta [s]
    finished_s: float = float("nan")  # seconds from the request to script_finished

    def chart_containing(self, needle: str) -> tuple[str, float] | None:
        """(title, seconds from the request to its delta) of the first chart whose title contains ``needle``."""
        return next(((t, self.chart_s[p]) for p, t in self.chart_titles.items() if needle in t), None)


def _user_key(widget_id: str) -> str:
    """``$$ID-<hash>-<user key>`` → the user key (the id itself for widgets without a key)."""
    parts = widget_id.split("-", 2)
    return parts[2] if widget_id.startswith("$$ID-") and len(parts) == 3 else widget_id


_TEXT_FIELDS = ("body", "label", "value", "default")


@functools.cache
def _fields(descriptor: Any) -> tuple[tuple[str, ...], bool]:
    """(the text fields among ``_TEXT_FIELDS``, whether it has an ``id``) of one element type, read once."""
    names = {f.name for f in descriptor.fields}
    return tuple(n for n in _TEXT_FIELDS if n in names), "id" in names


def _read_element(element: Any, path: tuple[int, ...], run: Run, started: float) -> None:
    kind = element.WhichOneof("type")
    inner = getattr(element, kind)
    if kind == "plotly_chart":  # the time first: it is the measurement
        run.chart_s[path] = time.perf_counter() - started
        title = json.loads(inner.spec or "{}").get("layout", {}).get("title", {})
        run.chart_titles[path] = str(title.get("text", "") if isinstance(title, dict) else title)
    elif kind == "exception":
        run.exceptions.append(f"{inner.type}: {inner.message}")
    text_fields, has_id = _fields(inner.DESCRIPTOR)
    for name in text_fields:
        value = getattr(inner, name)
        if isinstance(value, str) and value:
            run.texts.append(value)
    if has_id and inner.id:
        run.widget_ids[_user_key(inner.id)] = inner.id


class StreamlitSession:
    """One websocket session; ``await s.open(query, page)``, then ``await s.change(key, text)``."""

    def __init__(self, base_url: str, timeout_s: float = 60.0) -> None:
        self.http = base_url.rstrip("/")
        self.ws_url = self.http.replace("http", "ws", 1) + "/_stcore/stream"
        self.timeout_s = timeout_s
        self.query = ""
        self.page = ""
        self.last = Run()
        #: widget ids by user key, from every run so far: a fragment rerun re-sends only what it redraws, and an
        #: input that was not redrawn keeps its id (and its state) on the server
        self.widget_ids: dict[str, str] = {}
        self._ws: Any = None

    async def open(self, query: str, page: str) -> Run:
        """Connect and run the page for ``?query`` (the browser's first run)."""
        self.query, self.page = query, page
        self._ws = await websockets.connect(
            self.ws_url, subprotocols=["streamlit"], origin=self.http, max_size=2**27, open_timeout=self.timeout_s
        )
        return await self._rerun(None)

    async def change_text(self, key: str, value: str) -> Run:
        """Type ``value`` into the text input with user key ``key`` and press Enter (one rerun)."""
        widget_id = self.widget_ids.get(key)
        if widget_id is None:
            raise ProtocolError(f"no widget with key {key!r} on the page")
        return await self._rerun((widget_id, value))

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()

    async def _rerun(self, text_change: tuple[str, str] | None) -> Run:
        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_name = self.page
        if text_change is not None:
            state = msg.rerun_script.widget_states.widgets.add()
            state.id, state.string_value = text_change
        started = time.perf_counter()
        await self._ws.send(msg.SerializeToString())
        run = Run()
        try:
            async with asyncio.timeout(self.timeout_s):
                while True:
                    raw = await self._ws.recv()
                    forward = ForwardMsg()
                    forward.ParseFromString(raw)
                    kind = forward.WhichOneof("type")
                    if kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                        _read_element(forward.delta.new_element, tuple(forward.metadata.delta_path), run, started)
                    elif kind == "script_finished":
                        run.finished_s = time.perf_counter() - started
                        if forward.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                            break
        except TimeoutError:
            raise ProtocolError(f"no script_finished within {self.timeout_s:.0f} s") from None
        except websockets.ConnectionClosed as exc:
            raise ProtocolError(f"the server closed the stream: {exc}") from None
        if run.exceptions:
            raise ProtocolError("the page raised: " + "; ".join(run.exceptions)[:500])
        self.last = run
        self.widget_ids.update(run.widget_ids)
        return run
