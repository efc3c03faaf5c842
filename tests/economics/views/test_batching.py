"""Batching view: the marked batch point reads the steady-decode arrays of economics."""

from __future__ import annotations

import numpy as np
import pytest

from economics.costs import node_cost_usd_per_hour
from economics.io.scenarios import default_scenario
from economics.option_costs import replica_cost_split
from economics.schemes import ARScheme
from economics.views.batching import (
    BatchingInputs,
    _deployment,
    _option,
    _pass,
    batch_point,
    batching_analysis,
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
