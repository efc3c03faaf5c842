"""A row of key figures as one markdown table: label over value, for numbers that follow an input.

``st.metric`` is the nicer-looking element, but each one is three components in the browser (label,
tooltip, value); four of them re-rendered on every change of an input took ~20 ms, a fifth of the
browser's whole budget for the update (``benchmarks/browser_latency.py``). One markdown table with the same
numbers costs about nothing. Pages use it inside fragments, where figures change as the user types;
``st.metric`` stays where a page is drawn once per scenario.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from ui.format import md_escape


def key_figures_markdown(figures: Sequence[tuple[str, str]], *, title: str | None = None) -> str:
    """The table, labels and values escaped (labels may hold names), values bold.

    Without ``title``: a header of labels over one row of values (for a full-width row). With it: one row
    per figure under a header ``title | value`` (for a narrow column, where five labels side by side wrap).
    """
    if title is None:
        header = "| " + " | ".join(md_escape(label) for label, _ in figures) + " |"
        rule = "|" + "|".join(":--" for _ in figures) + "|"
        values = "| " + " | ".join(f"**{md_escape(value)}**" for _, value in figures) + " |"
        return "\n".join((header, rule, values))
    rows = [f"| {md_escape(label)} | **{md_escape(value)}** |" for label, value in figures]
    return "\n".join((f"| {md_escape(title)} | value |", "|:--|--:|", *rows))


def key_figures(
    figures: Sequence[tuple[str, str]], *, help_text: str, title: str | None = None, container: Any = None
) -> None:
    """Draw ``(label, value)`` pairs as one table (see :func:`key_figures_markdown`); ``help_text``
    explains them all in one tooltip."""
    where = container if container is not None else st
    where.markdown(key_figures_markdown(figures, title=title), help=help_text)


#: The API baseline and the savings against it, as the Overview and the Reviews page name and explain them.
BASELINE_HELP = "Every workload that may leave on the API best for it, the rest planned again; same lens."
SAVINGS_HELP = "API baseline minus the plan; 0 means the owned fleet carries only what may not leave."


def baseline_metrics(where: Sequence[Any], code: str, baseline: str, savings: str) -> None:
    """The "API baseline" and "Savings vs baseline" metrics, already formatted, in the two places ``where``."""
    where[0].metric(f"API baseline, {code}/month", baseline, help=BASELINE_HELP)
    where[1].metric(f"Savings vs baseline, {code}/month", savings, help=SAVINGS_HELP)
