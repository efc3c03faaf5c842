"""The house look, in one import: palette and template (:mod:`ui.palette`), axes and tick sizing
(:mod:`ui.axes`) and the chart builder (:class:`ui.charts.chart.Chart`).

Kept so that ``from ui.theme import …`` goes on working; new code may import from the three modules.
"""

from __future__ import annotations

from ui.axes import (
    AXIS_NAME,
    LOG_AXIS,
    MIN_LEFT_MARGIN_PX,
    TICK_CHAR_PX,
    TICK_PAD_PX,
    Y_TITLE_PX,
    left_margin,
    legend_margin,
    log10_axis,
    log_ticks,
    tick_labels,
)
from ui.charts.chart import Chart
from ui.palette import (
    API_WINS_COLOR,
    DASHES,
    FONT_FAMILY,
    GRID_COLOR,
    INFEASIBLE_COLOR,
    KIND_COLOR,
    KIND_LABEL,
    KIND_SHADES,
    LIMIT_COLOR,
    OWNED_WINS_COLOR,
    SYMBOLS,
    TEMPLATE_JSON,
    TEMPLATE_NAME,
    kind_labels,
    option_styles,
)

__all__ = [
    "API_WINS_COLOR",
    "AXIS_NAME",
    "DASHES",
    "FONT_FAMILY",
    "GRID_COLOR",
    "INFEASIBLE_COLOR",
    "KIND_COLOR",
    "KIND_LABEL",
    "KIND_SHADES",
    "LIMIT_COLOR",
    "LOG_AXIS",
    "MIN_LEFT_MARGIN_PX",
    "OWNED_WINS_COLOR",
    "SYMBOLS",
    "TEMPLATE_JSON",
    "TEMPLATE_NAME",
    "TICK_CHAR_PX",
    "TICK_PAD_PX",
    "Y_TITLE_PX",
    "Chart",
    "kind_labels",
    "left_margin",
    "legend_margin",
    "log10_axis",
    "log_ticks",
    "option_styles",
    "tick_labels",
]
