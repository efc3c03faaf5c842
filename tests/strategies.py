"""Shared hypothesis strategies: random but physical GPUs, efficiency factors and model architectures.

Ranges cover today's hardware and open models with margin (numpy-financial's ``tests/strategies.py`` is the
model). ``PROPERTIES`` is the settings profile every property test uses: derandomized (the same examples on
every run, so a failure reproduces) and modest in size so the suite stays fast. ``tests/conftest.py`` loads it
as hypothesis' default profile, so even a bare ``@given`` runs on it; a test that needs more or fewer examples
derives from it (``THOROUGH``, ``FEW``) and changes nothing else. ``HYPOTHESIS_PROFILE=thorough`` runs every
property test with 10× the examples (still derandomized).
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from economics.hardware import GPU, Deployment, Efficiency
from economics.model import ModelSpec
from economics.schemes import SpeculativeScheme

settings.register_profile(
    "house", max_examples=40, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", settings.get_profile("house"), max_examples=400)
PROPERTIES = settings.get_profile("house")
#: Cheap properties over a large input space (CSV and share-link parsing): more examples.
THOROUGH = settings(PROPERTIES, max_examples=200)
#: Properties that run a whole scenario per example: fewer examples.
FEW = settings(PROPERTIES, max_examples=8)


@st.composite
def gpus(draw: st.DrawFn) -> GPU:
    """Accelerators from an L4 (0.3 TB/s, 121 TFLOP/s) to beyond a GB200 (8 TB/s, 2.5 PFLOP/s)."""
    bf16 = draw(st.floats(100e12, 3e15))
    return GPU(
        id="gpu",
        name="random GPU",
        peak_flops_bf16_per_s=bf16,
        peak_flops_fp8_per_s=2.0 * bf16,
        hbm_bandwidth_bytes_per_s=draw(st.floats(0.3e12, 8e12)),
        hbm_capacity_bytes=draw(st.floats(16e9, 300e9)),
        link_bandwidth_bytes_per_s=draw(st.floats(32e9, 1.8e12)),
        power_w=draw(st.floats(70, 1500)),
    )


@st.composite
def efficiencies(draw: st.DrawFn) -> Efficiency:
    """Efficiency factors over the ranges of docs/inputs.md#efficiency (and a little beyond)."""
    return Efficiency(
        mbu=draw(st.floats(0.3, 1.0)),
        mfu_decode=draw(st.floats(0.2, 1.0)),
        mfu_prefill=draw(st.floats(0.2, 1.0)),
        step_overhead_s=draw(st.floats(0.0, 3e-3)),
        allreduce_latency_s=draw(st.floats(0.0, 30e-6)),
        comm_overlap=draw(st.floats(0.0, 0.8)),
        kv_mem_util=draw(st.floats(0.7, 1.0)),
    )


@st.composite
def models(draw: st.DrawFn, moe: bool | None = None) -> ModelSpec:
    """Decoder-only transformers from ~0.1B to ~1T parameters, dense or MoE, GQA/MQA/MHA, 1–2 B per weight."""
    is_moe = draw(st.booleans()) if moe is None else moe
    head_dim = draw(st.sampled_from([64, 128, 256]))
    n_heads = draw(st.sampled_from([8, 16, 32, 64, 128]))
    n_kv = draw(st.sampled_from([h for h in (1, 2, 4, 8, 16, 32, 64, 128) if h <= n_heads]))
    d_model = draw(st.sampled_from([1024, 2048, 4096, 5120, 8192, 16384]))
    n_layers = draw(st.integers(4, 128))
    b = draw(st.sampled_from([1.0, 2.0]))
    common = {
        "id": "m",
        "name": "random model",
        "n_layers": n_layers,
        "d_model": d_model,
        "n_heads": n_heads,
        "n_kv_heads": n_kv,
        "head_dim": head_dim,
        "vocab": draw(st.integers(32_000, 256_000)),
        "tied_embeddings": draw(st.booleans()),
        "bytes_per_weight": b,
        "bytes_per_kv": b,
    }
    if not is_moe:
        return ModelSpec(**common, d_ff=draw(st.integers(2 * d_model, 4 * d_model)))
    n_experts = draw(st.sampled_from([8, 16, 32, 64, 128, 256]))
    return ModelSpec(
        **common,
        d_ff=draw(st.integers(2 * d_model, 4 * d_model)),
        n_experts=n_experts,
        experts_top_k=draw(st.integers(1, min(8, n_experts))),
        n_moe_layers=draw(st.integers(1, n_layers)),
        d_ff_expert=draw(st.integers(256, 2 * d_model)),
        n_shared_experts=draw(st.integers(0, 2)),
    )


@st.composite
def deployments(draw: st.DrawFn) -> Deployment:
    """A random GPU in a tensor-parallel group of 1–16."""
    return Deployment(gpu=draw(gpus()), n_gpus=draw(st.sampled_from([1, 2, 4, 8, 16])))


@st.composite
def speculative_schemes(draw: st.DrawFn) -> SpeculativeScheme:
    """Chains and trees with fused heads (Medusa, no draft) or a 1–4-layer draft run 0–8 times (EAGLE)."""
    verify = draw(st.integers(2, 64))
    return SpeculativeScheme(
        draft_tokens=draw(st.integers(1, 16)),
        verify_tokens=verify,
        mean_accepted_tokens=draw(st.floats(1.0, float(verify))),
        draft_layers=draw(st.integers(0, 4)),
        draft_vocab=draw(st.integers(1_000, 256_000)),
        draft_steps=draw(st.integers(0, 8)),
        draft_step_overhead_s=draw(st.floats(0.0, 1e-3)),
    )
