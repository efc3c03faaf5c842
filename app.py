"""Placeholder page: decode throughput of Llama-3.1-70B on 8×H100 SXM (to be replaced by the real app)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from economics.hardware import GPU, Deployment, Efficiency
from economics.model import ModelSpec
from economics.roofline import forward_time

LLAMA_70B = ModelSpec(
    id="llama-3.1-70b",
    name="Llama-3.1-70B",
    n_layers=80,
    d_model=8192,
    n_heads=64,
    n_kv_heads=8,
    head_dim=128,
    d_ff=28672,
    vocab=128256,
)
H100_SXM = GPU(
    id="h100-sxm",
    name="H100 SXM",
    peak_flops_bf16_per_s=989.4e12,
    peak_flops_fp8_per_s=1979e12,
    hbm_bandwidth_bytes_per_s=3.35e12,
    hbm_capacity_bytes=80e9,
    link_bandwidth_bytes_per_s=450e9,
    power_w=700,
)
DEPLOYMENT = Deployment(gpu=H100_SXM, n_gpus=8)


def tokens_per_s(batch: np.ndarray | int) -> np.ndarray:
    """Aggregate decode throughput of one replica at ``batch`` sequences, no context [tok/s]."""
    b = np.asarray(batch, dtype=np.float64)
    return b / forward_time(LLAMA_70B, DEPLOYMENT, Efficiency(), b).time_s


st.set_page_config(page_title="LLM unit economics")
st.title("LLM unit economics")
st.caption("Placeholder: Llama-3.1-70B, BF16, 8×H100 SXM, default efficiencies, decode with no context.")

batch = int(st.number_input("Batch size", min_value=1, max_value=4096, value=1, step=1, key="batch"))
st.metric(f"Decode throughput at batch {batch}", f"{float(tokens_per_s(batch)):,.0f} tok/s")

batches = np.unique(np.geomspace(1, 4096, 64).round())
fig = go.Figure(go.Scatter(x=batches, y=tokens_per_s(batches), mode="lines", name="tok/s"))
fig.add_trace(go.Scatter(x=[batch], y=[float(tokens_per_s(batch))], mode="markers", name=f"batch {batch}"))
fig.update_layout(
    title=f"Decode throughput vs batch (selected: {batch})",
    xaxis={"title": "batch [sequences]", "type": "log"},
    yaxis={"title": "throughput [tok/s]"},
)
st.plotly_chart(fig)
