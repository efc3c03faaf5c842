"""Batching view: the marked batch point reads the steady-decode arrays of economics."""

from __future__ import annotations

import numpy as np
import pytest

from economics.costs import node_cost_usd_per_hour
from economics.io.scenarios import default_scenario
from economics.option_costs import replica_cost_split
from economics.schemes import ARScheme
from economics.throughput import closed_loop
from economics.views.batching import (
    BatchingInputs,
    ConcurrencySeries,
    _deployment,
    _option,
    _pass,
    ar_catches_up_clients,
    batch_point,
    batching_analysis,
    default_study,
)

INPUTS = BatchingInputs(
    ar_option_id="owned-70b-ar",
    speculation_option_id="owned-70b-ar",
    diffusion_option_id="owned-8b-diffusion",
    workload_id="kyc-overnight",
)


def test_replica_cost_is_its_share_of_the_busy_node() -> None:
    s = default_scenario()
    for option in s.owned_options:
        node = s.node(option.node_id)
        busy = float(node_cost_usd_per_hour(node, 1.0)) * option.gpus_per_replica / node.gpus_per_node
        assert sum(replica_cost_split(s, option)) == pytest.approx(busy, rel=1e-12)


@pytest.mark.parametrize("batch", [1, 8, 64, 512])
def test_batch_point_matches_the_main_pass(batch: int) -> None:
    s = default_scenario()
    a = batching_analysis(s, INPUTS)
    p = batch_point(s, INPUTS, batch, a)
    model, dep = _deployment(s, _option(s, INPUTS.ar_option_id))
    main = _pass(model, dep, s.efficiency, ARScheme(), np.asarray(float(batch)), a.input_tokens, a.output_tokens)
    assert p.intensity_flop_per_byte == float(main.arithmetic_intensity_flop_per_byte)
    assert p.compute_bound == bool(main.compute_bound)
    assert p.cost_swing == pytest.approx(a.ar_cost_usd_per_mtok_at_batch_1 / p.cost_usd_per_mtok)


def test_analysis_has_every_series_and_a_crossover() -> None:
    a = batching_analysis(default_scenario(), INPUTS)
    assert [s.kind for s in a.batch_series] == ["owned-ar", "owned-ar-spec", "owned-diffusion"]
    assert a.crossover_concurrency > 0
    assert all(p.attained_flops_per_s > 0 for p in a.points)


def _series(kind: str, per_gpu: list[float]) -> ConcurrencySeries:
    c = np.arange(1.0, len(per_gpu) + 1)
    return ConcurrencySeries(kind, kind, kind, c, np.ones_like(c), np.asarray(per_gpu))  # type: ignore[arg-type]


def test_ar_catches_up_where_the_best_ar_curve_first_reaches_diffusion() -> None:
    # diffusion gives 100 tok/s per GPU at every client count; plain AR 10 per client (100 at 10 clients);
    # a speculation curve that stops paying after 3 clients never reaches 100, so the best of both is at 10
    diff = _series("owned-diffusion", [100.0] * 12)
    plain = _series("owned-ar", [10.0 * c for c in range(1, 13)])
    spec = _series("owned-ar-spec", [25.0, 50.0, 75.0, *([1.0] * 9)])
    assert ar_catches_up_clients((plain, spec, diff)) == 10.0
    fast_spec = _series("owned-ar-spec", [40.0 * c for c in range(1, 13)])  # 40, 80, 120: ahead at 3 clients
    assert ar_catches_up_clients((plain, fast_spec, diff)) == 3.0
    assert ar_catches_up_clients((_series("owned-ar", [1.0] * 12), diff)) == float("inf")
    assert ar_catches_up_clients((plain,)) == float("inf")


def test_default_study_crossover_matches_a_hand_search_over_clients() -> None:
    """The figure both pages show, against the closed-loop speeds read client by client (best of plain and
    speculative AR, per GPU, against diffusion) on the study's own options and requests."""
    s = default_scenario()
    study = default_study(s)
    assert study is not None
    assert study.diffusion_option_id is not None
    latency = [w.id for w in s.workloads if w.tpot_slo_s is not None or w.ttft_slo_s is not None]
    assert study.workload_id == latency[0]  # the study opens on the first latency-bound workload's requests
    w = next(x for x in s.workloads if x.id == study.workload_id)

    def per_gpu(option_id: str, scheme: object, clients: float) -> float:
        o = _option(s, option_id)
        model, dep = _deployment(s, o)
        eff = o.effective_efficiency(s.efficiency)
        loop = closed_loop(model, dep, eff, scheme, clients, w.input_tokens, w.decoded_output_tokens)  # type: ignore[arg-type]
        return float(loop.output_tokens_per_s_per_gpu)

    spec = _option(s, study.speculation_option_id or "")
    diffusion = _option(s, study.diffusion_option_id)
    expected = next(
        c
        for c in range(1, 65)
        if max(per_gpu(study.ar_option_id, ARScheme(), c), per_gpu(spec.id, spec.speculation, c))
        >= per_gpu(diffusion.id, diffusion.scheme, c)
    )
    assert batching_analysis(s, study).crossover_concurrency == expected
