"""ModelSpec: docs/model.md#parameter-counts parameter counts and KV bytes, docs/moe.md#mixture-of-experts MoE expert
coverage (incl. a Monte Carlo check)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from economics.model import ModelSpec
from tests.economics.configs import LLAMA_2_13B, LLAMA_31_8B, LLAMA_31_70B, MIXTRAL_8X7B
from tests.strategies import PROPERTIES, models


def test_parameter_counts_section_2_1() -> None:
    # docs/model.md#parameter-counts tests: 70B ∈ [70.4e9, 70.7e9] (worked: 12.08e9 attention + 56.37e9 MLP + 2.10e9
    # embeddings = 70.55e9), 8B ∈ [8.0e9, 8.06e9]; Mixtral total 46.7e9 and active 12.9e9 (±0.5%).
    assert 70.4e9 <= LLAMA_31_70B.params_total <= 70.7e9
    assert LLAMA_31_70B.params_attention == pytest.approx(12.08e9, rel=1e-3)
    assert LLAMA_31_70B.weight_bytes == pytest.approx(141.1e9, rel=1e-3)
    assert 8.0e9 <= LLAMA_31_8B.params_total <= 8.06e9
    assert MIXTRAL_8X7B.params_total == pytest.approx(46.7e9, rel=0.005)
    assert MIXTRAL_8X7B.params_active == pytest.approx(12.9e9, rel=0.005)
    assert LLAMA_31_70B.params_active == LLAMA_31_70B.params_total


def test_kv_bytes_per_token_known_values() -> None:
    # docs/inputs.md#model-shape table: 131,072 (8B), 327,680 (70B) and 819,200 (Llama-2-13B, MHA) B/token in BF16.
    assert LLAMA_31_8B.kv_bytes_per_token == 131_072
    assert LLAMA_31_70B.kv_bytes_per_token == 327_680
    assert LLAMA_2_13B.kv_bytes_per_token == 819_200


def test_mixtral_worked_example_section_5_2() -> None:
    # docs/moe.md#moe-examples: U(1) = 2, U(4) = 5.47, U(16) = 7.92 (8·(1 − 0.75^n)); bytes per decode step 25.8 → 64.9
    # → 92.5 GB.
    u = MIXTRAL_8X7B.experts_touched([0, 1, 4, 16])
    np.testing.assert_allclose(u, [0.0, 2.0, 5.46875, 7.919], atol=1e-3)
    np.testing.assert_allclose(MIXTRAL_8X7B.weight_bytes_read([1, 4, 16]) / 1e9, [25.8, 64.9, 92.5], atol=0.1)


def test_experts_touched_monte_carlo() -> None:
    # docs/moe.md#moe-checks: sample uniform top-k routing for E = 64, k = 4, n = 10 tokens, 10^4 trials (seeded); the
    # mean number of distinct experts is within 1% of U(10) = 64·(1 − (60/64)^10) = 30.43.
    model = ModelSpec(id="moe", name="moe", n_layers=2, d_model=1024, n_heads=8, n_kv_heads=8, head_dim=128,
                      d_ff=0, vocab=32000, n_experts=64, experts_top_k=4, n_moe_layers=2, d_ff_expert=512)  # fmt: skip
    rng = np.random.default_rng(20240517)
    trials, n, E, k = 10_000, 10, 64, 4
    picks = np.argsort(rng.random((trials, n, E)), axis=-1)[..., :k]  # k distinct experts per token
    hit = np.zeros((trials, E), dtype=bool)
    np.put_along_axis(hit, picks.reshape(trials, n * k), True, axis=-1)
    mean_distinct = hit.sum(axis=-1).mean()
    assert float(model.experts_touched(n)) == pytest.approx(30.43, abs=0.01)
    assert float(model.experts_touched(n)) == pytest.approx(mean_distinct, rel=0.01)


@PROPERTIES
@given(models(moe=True), st.floats(1.0, 1e5))
def test_experts_touched_properties(model: ModelSpec, n: float) -> None:
    # docs/moe.md#moe-checks: U(1) = k, U ≤ min(E, n·k), increasing and concave in n, U(∞) = E.
    k, E = model.experts_top_k, model.n_experts
    assert float(model.experts_touched(1)) == pytest.approx(k)
    u = model.experts_touched(np.array([n, n + 1.0, n + 2.0]))
    assert np.all(u <= np.minimum(E, np.array([n, n + 1, n + 2]) * k) * (1 + 1e-12))
    assert u[1] >= u[0]
    assert u[2] - u[1] <= u[1] - u[0] + 1e-9
    assert float(model.experts_touched(1e12)) == pytest.approx(E)


@PROPERTIES
@given(models(moe=True))
def test_weight_bytes_read_limits(model: ModelSpec) -> None:
    # docs/moe.md#moe-checks: W_read(1) = b_w·P_active (plus nothing else), W_read(∞) = b_w·P_total.
    assert float(model.weight_bytes_read(1)) == pytest.approx(model.bytes_per_weight * model.params_active)
    assert float(model.weight_bytes_read(1e12)) == pytest.approx(model.weight_bytes)


def test_gqa_kv_ratio() -> None:
    # docs/model.md#kv-cache-bytes: kv_tok(n_kv)/kv_tok(n_q) = n_kv/n_q.
    mha = LLAMA_31_70B.model_copy(update={"n_kv_heads": 64})
    assert LLAMA_31_70B.kv_bytes_per_token / mha.kv_bytes_per_token == 8 / 64
