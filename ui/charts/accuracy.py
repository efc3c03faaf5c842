"""Chart of the Accuracy page: predicted vs measured throughput on every calibration row, log-log."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ui.theme import Chart

REGIME_COLORS = {"batch-1": "#1f77b4", "concurrency": "#ff7f0e", "saturation": "#2ca02c"}
REGIME_NAMES = {"batch-1": "one request at a time", "concurrency": "fixed number of clients",
                 "saturation": "saturated / latency target"}  # fmt: skip


def accuracy_figure(table: pd.DataFrame, user: pd.DataFrame | None = None) -> go.Figure:
    """Measured (x) against predicted (y) tokens/s, one colour per regime, the diagonal and ±35% lines;
    ``user`` rows (``measured_tokens_per_s``, ``predicted_tokens_per_s``, ``source``) overlaid as stars."""
    entries = 3 + table["regime"].nunique() + (1 if user is not None and len(user) else 0)
    # the legend's short names sit two or three to a row: one more row for "your runs" (it ran over the axis
    # title in a 1,024 px window when the margin was sized for the published rows alone)
    c = Chart("Model against measurement: on the diagonal the model is exact",
              "measured output tokens per second (log)", "model's output tokens per second (log)",
              height=520, legend_rows=-(-entries // 3), x_log=True, y_log=True)  # fmt: skip
    values = np.concatenate([table["measured_tokens_per_s"], table["predicted_tokens_per_s"]])
    lo, hi = float(np.nanmin(values)) / 1.5, float(np.nanmax(values)) * 1.5
    for label, factor, dash in (("model = measured", 1.0, "solid"), ("35% above", 1.35, "dot"),
                                ("35% below", 1 / 1.35, "dot")):  # fmt: skip
        c.add(x=[lo, hi], y=[lo * factor, hi * factor], mode="lines", name=label,
              line={"color": "#888888", "dash": dash, "width": 1}, hoverinfo="skip")  # fmt: skip
    for regime, part in table.groupby("regime"):
        hover = [f"{lab}<br>measured {m:,.0f}, model {p:,.0f} tok/s ({e:+.0f}%)<br>source: {src[:90]}"
                 for lab, m, p, e, src in zip(part["label"], part["measured_tokens_per_s"],
                                              part["predicted_tokens_per_s"], part["error_pct"], part["source"],
                                              strict=True)]  # fmt: skip
        c.add(x=part["measured_tokens_per_s"].tolist(), y=part["predicted_tokens_per_s"].tolist(), mode="markers",
              name=REGIME_NAMES.get(str(regime), str(regime)), text=hover, hovertemplate="%{text}<extra></extra>",
              marker={"color": REGIME_COLORS.get(str(regime), "#555555"), "size": 8, "opacity": 0.8})  # fmt: skip
    if user is not None and len(user):
        c.add(x=user["measured_tokens_per_s"].tolist(), y=user["predicted_tokens_per_s"].tolist(), mode="markers",
              name="your runs (fitted)", text=user["source"].tolist(), hovertemplate="%{text}<extra></extra>",
              marker={"color": "#d62728", "size": 13, "symbol": "star"})  # fmt: skip
    for axis in ("xaxis", "yaxis"):  # 5k, 50k, 1M rather than crowded full numbers
        c.axis(axis, tickformat="~s")
    return c.figure()
