"""Inputs of the Batching page: which options and request shape to study, and the batch size to mark."""

from __future__ import annotations

import streamlit as st

from economics import by_id
from economics.scenario import Scenario
from economics.views.batching import (
    BatchingInputs,
    ar_options_in_study_order,
    speculation_option,
    workloads_in_study_order,
)
from ui.widgets.common import ADD_GPUS_HINT, view_number, view_select


def batching_inputs(s: Scenario) -> BatchingInputs | None:
    """Draw the inputs; None (with an info box) when the scenario has no owned AR option."""
    # the first choice of each box is economics.views.batching.default_study, the study the Argument page reads
    ar_options = ar_options_in_study_order(s)
    diff_options = [o for o in s.owned_options if o.scheme.kind == "diffusion"]
    if not ar_options:
        st.info(f"This scenario has no owned or rented autoregressive option to study. {ADD_GPUS_HINT}")
        return None
    gpu = {o.id: s.gpu(s.node(o.node_id).gpu_id).name for o in s.owned_options}
    # the GPU only where the options run on different ones: the option's name already says how many GPUs, and
    # "(1 × NVIDIA H100 SXM5 80GB)" after it was what a 1,024 px window cut
    names = {o.id: o.name if len(set(gpu.values())) == 1 else f"{o.name} on {gpu[o.id]}" for o in s.owned_options}
    # two options side by side and the request shape below: three columns cut every name at 1,024 px
    cols = [*st.columns(2), st.container()]
    ar_id = view_select(
        "Autoregressive option",
        "bt_ar",
        [o.id for o in ar_options],
        names.__getitem__,
        help_text="Owned AR option (model, GPUs, precision) whose batching is studied. Its speculative decoding, "
        "or that of another option serving the same model, is drawn as 'AR + speculation'.",
        container=cols[0],
    )
    ar = by_id(ar_options, ar_id, "owned option")
    spec = speculation_option(s, ar)
    diff_id = None
    if diff_options:
        diff_id = view_select(
            "Diffusion option",
            "bt_diff",
            [o.id for o in diff_options],
            names.__getitem__,
            help_text="Owned text-diffusion option compared with AR at the same request shape.",
            container=cols[1],
        )
    else:
        cols[1].caption("No owned diffusion option in this scenario.")
    wl_names = {w.id: f"{w.name} ({w.input_tokens:,} in / {w.output_tokens:,} out)" for w in s.workloads}
    workload_id = view_select(
        "Request shape from workload",
        "bt_workload",
        workloads_in_study_order(s),
        wl_names.__getitem__,
        help_text="Prompt and output lengths [tokens] of this workload set the KV cache per sequence and the "
        "prefill share. Edit them on the Workloads page.",
        container=cols[2],
    )
    return BatchingInputs(
        ar_option_id=ar.id,
        speculation_option_id=None if spec is None else spec.id,
        diffusion_option_id=diff_id,
        workload_id=workload_id,
    )


def batch_input() -> int:
    """The batch size marked on the charts [sequences]."""
    return int(
        view_number(
            "Batch size marked [sequences]",
            "bt_batch",
            step=1,
            integer=True,
            help_text="Sequences decoded together in one forward pass of the AR option; marked on the charts "
            "and used for the numbers next to it.",
        )
    )
