"""``python -m economics add-gpus`` and ``remove-option``: the command-line twin of "Add or take out GPUs"."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import main
from economics.io.scenarios import PRESET_DIR, load_scenario
from economics.offers import OwnedNode, RentedNode

API_ONLY = str(PRESET_DIR / "api-only.json")


def test_rent_then_buy_then_take_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rented, bought, back = tmp_path / "s2.json", tmp_path / "s3.json", tmp_path / "s4.json"
    argv = ["add-gpus", API_ONLY, "--rent", "aws-p5.48xlarge-on-demand", "--model", "llama-3.1-70b"]
    assert main([*argv, "--serving", "eagle-chain", "--out", str(rented)]) == 0
    s2 = load_scenario(rented)
    node = s2.nodes[-1]
    assert isinstance(node, RentedNode)
    assert node.price_usd_per_gpu_hour == pytest.approx(55.04 / 8)  # data/prices/instances.csv, from 2025-06-01
    assert s2.owned_options[-1].gpus_per_replica == 4
    assert "Added rented-llama-3.1-70b-eagle-chain-h100-sxm" in capsys.readouterr().err
    argv = ["add-gpus", str(rented), "--buy", "b200", "--capex", "$500k", "--power", "14.3"]  # as a quote reads
    assert main([*argv, "--model", "llama-3.1-405b", "--precision", "fp8", "--out", str(bought)]) == 0
    s3 = load_scenario(bought)
    assert isinstance(s3.nodes[-1], OwnedNode)
    assert (s3.nodes[-1].capex_usd, s3.owned_options[-1].precision) == (500_000, "fp8")
    capsys.readouterr()
    assert main(["remove-option", str(bought), "owned-llama-3.1-405b-ar-b200", "--out", str(back)]) == 0
    s4 = load_scenario(back)
    assert (s4.nodes, s4.owned_options) == (s2.nodes, s2.owned_options)  # the B200 and 405B specs stay, unused
    assert "and node owned-8x-b200" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--buy", "b200", "--capex", "500000", "--model", "llama-3.1-8b"], "--power: a node to buy needs its GPU"),
        (["--rent", "runpod-rtx-4090-community", "--model", "llama-3.1-405b"], "--model: Llama 3.1 405B does not fit"),
        (["--rent", "nope", "--model", "llama-3.1-8b"], "--rent: the catalog has no instance 'nope'"),
        (["--rent", "aws-p5.48xlarge-on-demand", "--model", "llama-3.1-8b", "--serving", "x"], "--serving: Llama"),
        (["--rent", "aws-p5.48xlarge-on-demand", "--capex", "1", "--model", "llama-3.1-8b"], "--capex: only applies"),
        (["--rent", "aws-p5.48xlarge-on-demand", "--model", "llama-3.1-8b", "--quality", "2"], "--quality: "),
        (["--buy", "b200", "--capex", "lots", "--power", "14", "--model", "llama-3.1-8b"], "--capex: “lots” is not"),
        (["--buy", "b200", "--capex", "0", "--power", "14", "--model", "llama-3.1-8b"], "--capex: "),
    ],
)
def test_bad_input_names_its_argument_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    out = tmp_path / "s2.json"
    assert main(["add-gpus", API_ONLY, *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert not out.exists()
