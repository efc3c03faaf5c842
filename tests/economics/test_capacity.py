"""KV-cache capacity (docs/memory.md#kv-capacity) and the golden KV sizes C3 and C4 of
docs/calibration.md#golden-values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from economics.capacity import kv_capacity, max_batch_kv
from economics.hardware import Deployment, Efficiency
from economics.model import ModelSpec
from economics.units import GB, GIB
from tests.economics.configs import A100_40GB, IDEAL, LLAMA_2_13B, LLAMA_31_8B, LLAMA_31_70B, SPEC_DEFAULTS, h100
from tests.strategies import PROPERTIES, deployments, efficiencies, models


def test_section_4_worked_example() -> None:
    # docs/memory.md#kv-capacity: 70B on 8×H100, mem_util 0.9: M_free = 8·80·0.9 − 141.1 = 434.9 GB; Tok_max =
    # 434.9e9/327680 = 1.327e6; B_max = floor(1.327e6/4096) = 324 and floor(1.327e6/1024) = 1296.
    cap = kv_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS)
    assert cap.feasible
    assert cap.reason == ""
    assert cap.free_bytes / GB == pytest.approx(434.9, abs=0.05)
    assert cap.max_tokens == pytest.approx(1.327e6, rel=1e-3)
    assert cap.max_batch([4096, 1024]).tolist() == [324.0, 1296.0]


def test_kipply_52b_example() -> None:
    # docs/memory.md#kv-capacity, [KIP]: a 52B model (64 layers, d 8192, MHA, fp16) on 4×A100-40GB with mem_util 1: 160
    # − 104 = 56 GB free, 2·2·64·8192 = 2,097,152 B/token → 56e9/2.097e6 = 26.7k tokens. The vocabulary is chosen so
    # P_total = 52e9.
    model = ModelSpec(id="kip52b", name="kipply 52B", n_layers=64, d_model=8192, n_heads=64, n_kv_heads=64,
                      head_dim=128, d_ff=21845, vocab=28136)  # fmt: skip
    assert model.params_total == pytest.approx(52e9, rel=1e-3)
    assert model.kv_bytes_per_token == 2_097_152
    cap = kv_capacity(model, Deployment(gpu=A100_40GB, n_gpus=4), IDEAL)
    assert cap.max_tokens == pytest.approx(26.7e3, rel=0.01)


def test_c3_llama2_13b_kv_8192_tokens() -> None:
    # C3, [SB]: LLaMA-2-13B KV cache at 8192 tokens in bf16 = 2·40·40·128·2·8192 = 6.71e9 B ("6.7GB"); ±1%.
    assert LLAMA_2_13B.kv_bytes_per_token * 8192 / GB == pytest.approx(6.71, rel=0.01)


def test_c4_databricks_70b_kv() -> None:
    # C4, [DB] Table 3: Llama-2-70B (GQA-8) KV at 1024 tokens in fp16 = 0.3125 GiB (".312 GiB"); 16 sequences
    # → 5 GiB; int8 halves it (".156 GiB"). ±1%.
    assert LLAMA_31_70B.kv_bytes_per_token * 1024 / GIB == pytest.approx(0.3125, rel=0.01)
    assert 16 * LLAMA_31_70B.kv_bytes_per_token * 1024 / GIB == pytest.approx(5.0, rel=0.01)
    int8 = LLAMA_31_70B.model_copy(update={"bytes_per_kv": 1.0})
    assert int8.kv_bytes_per_token * 1024 / GIB == pytest.approx(0.156, rel=0.01)


def test_model_that_does_not_fit() -> None:
    # 70B in BF16 (141.1 GB) on one 80 GB H100: not an error, feasible=False with a reason, batch 0 (never < 0).
    cap = kv_capacity(LLAMA_31_70B, h100(1), SPEC_DEFAULTS)
    assert not cap.feasible
    assert "does not fit" in cap.reason
    assert "141.1 GB" in cap.reason
    assert cap.free_bytes == 0.0
    assert cap.max_tokens == 0.0
    assert cap.max_batch([1, 1000]).tolist() == [0.0, 0.0]


def test_reserve_and_zero_context() -> None:
    # An activation reserve comes out of the free memory; a zero context caches nothing (inf sequences).
    cap = kv_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, reserve_bytes=34.9e9)
    assert cap.free_bytes / GB == pytest.approx(400.0, abs=0.05)
    assert float(cap.max_batch(0)) == np.inf


def test_mqa_multiplies_batch_by_eight() -> None:
    # docs/memory.md#kv-capacity tests: GQA → MQA (n_kv 8 → 1, N = 1) multiplies B_max by 8 (the KV per token shrinks
    # 8×); a little more, because MQA's smaller Wk, Wv (32·2·4096·896 = 235e6 parameters, 0.47 GB) leave more memory
    # free.
    mqa = LLAMA_31_8B.model_copy(update={"n_kv_heads": 1})
    gqa_tokens = kv_capacity(LLAMA_31_8B, h100(1), SPEC_DEFAULTS).max_tokens
    mqa_tokens = kv_capacity(mqa, h100(1), SPEC_DEFAULTS).max_tokens
    assert mqa_tokens >= 8 * gqa_tokens
    assert mqa_tokens == pytest.approx(8 * gqa_tokens, rel=0.01)


def test_kv_head_replication() -> None:
    # TP16 on a GQA-8 model replicates each KV head twice (r_kv = 16/8 = 2): twice the bytes per cached token.
    cap8 = kv_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS)
    cap16 = kv_capacity(LLAMA_31_70B, h100(16), SPEC_DEFAULTS)
    assert cap8.kv_bytes_per_token == 327_680
    assert cap16.kv_bytes_per_token == 2 * 327_680


@PROPERTIES
@given(models(), deployments(), efficiencies(), st.floats(1.0, 200_000.0))
def test_max_batch_monotone(model: ModelSpec, dep: Deployment, eff: Efficiency, ctx: float) -> None:
    # docs/memory.md#kv-capacity tests: B_max non-increasing in S_avg, kv_tok and W; non-decreasing in N and M_hbm;
    # never negative.
    b = float(max_batch_kv(model, dep, eff, ctx))
    assert b >= 0
    assert float(max_batch_kv(model, dep, eff, ctx * 2)) <= b
    more_kv = model.model_copy(update={"bytes_per_kv": model.bytes_per_kv * 2})
    assert float(max_batch_kv(more_kv, dep, eff, ctx)) <= b
    more_w = model.model_copy(update={"bytes_per_weight": model.bytes_per_weight * 2})
    assert float(max_batch_kv(more_w, dep, eff, ctx)) <= b
    bigger = dep.gpu.model_copy(update={"hbm_capacity_bytes": dep.gpu.hbm_capacity_bytes * 1.5})
    assert float(max_batch_kv(model, dep.model_copy(update={"gpu": bigger}), eff, ctx)) >= b
    if dep.n_gpus * 2 <= model.n_kv_heads:  # no extra KV-head replication from the larger group
        assert float(max_batch_kv(model, dep.model_copy(update={"n_gpus": dep.n_gpus * 2}), eff, ctx)) >= b
