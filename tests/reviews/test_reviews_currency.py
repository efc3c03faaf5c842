"""Issue 14: the Reviews page's comparison tables and charts in the display currency (AppTest).

The Singapore-bank preset is in SGD at 1.30 per US dollar (data/prices/fx_rates.csv, 2026-12-01). Its plan
bills USD 2,049.84 a month, all of it the analyst workload on the frontier API (tests/ui/test_display_currency.py).
Two reviews of the same bank, the later one saved at 1.35 SGD per US dollar: the page reviews the later one and
converts both sides at its rate (constant currency), so nothing changes but the exchange rate, and that is said.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from economics.evaluate import evaluate
from economics.io.scenarios import load_preset
from storage import reviews as store
from tests.ui.helpers import chart, compare_reviews, metrics

ANALYST = "Analyst research (frontier reasoning)"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(store.DATA_DIR_ENV, str(tmp_path))
    return tmp_path


def test_comparison_of_two_reviews_is_in_sgd_at_the_reviews_rate() -> None:
    bank = load_preset("singapore-bank")
    assert bank.finance is not None
    dearer = bank.model_copy(
        update={
            "finance": bank.finance.model_copy(
                update={"fx_units_per_usd": 1.35, "fx_as_of": dt.date(2026, 12, 2), "fx_source": "treasury desk"}
            )
        }
    )
    first = store.save_review(bank, evaluate(bank), name="Q3")
    second = store.save_review(dearer, evaluate(dearer), name="Q4")
    at = compare_reviews(second.id, first.id)
    assert not at.exception, [e.value for e in at.exception]
    # headline: USD 2,049.84 × 1.35 = 2,767.284 → S$2,767; the change is 0 at constant currency
    assert metrics(at)["Recommended plan, SGD/month"] == "S$2,767"
    assert metrics(at)["Monthly bill change, SGD/month"] == "S$0"
    changes = next(d.value for d in at.dataframe if "Route before" in d.value.columns)
    assert not [c for c in changes.columns if "USD" in str(c)]
    row = changes[changes["Workload"] == ANALYST].iloc[0]
    # both sides at 1.35: 2,049.84 × 1.35 = 2,767.284 before and after, change 0
    assert row["Before [SGD/month]"] == pytest.approx(2767.284, abs=0.01)
    assert row["After [SGD/month]"] == pytest.approx(2767.284, abs=0.01)
    assert row["Change [SGD/month]"] == pytest.approx(0.0, abs=1e-9)
    cost = chart(at, "Cost per workload")
    assert cost["layout"]["xaxis"]["tickprefix"] == "S$"
    assert "SGD/month" in str(cost["layout"]["xaxis"]["title"]["text"])
    captions = "\n".join(str(c.value) for c in at.caption).replace("\\", "")
    assert "Both columns in SGD at this review's rate, 1.35 SGD per US dollar, 02 Dec 2026" in captions
    # the baseline was shown at 1.30: at its own rate its figures would be 1.30/1.35 − 1 = −3.7%, i.e. lower
    assert "is shown at 1.3 SGD per US dollar, 01 Dec 2026" in captions
    assert "3.7% lower: that is the exchange rate, not a price change" in captions
    assert "in US dollars" not in captions
    # the uncertainty charts and table too
    assert chart(at, "What moves the")["layout"]["xaxis"]["tickprefix"] == "S$"
    # a log axis over four decades and more, labelled at the powers of ten only, where plotly writes the prefix on
    # every label (on a 1-2-5 axis it leaves it off the 2s and 5s: ui.axes.prefix_on_every_log_tick)
    mc_axis = chart(at, "Cost per million output tokens")["layout"]["xaxis"]
    assert (mc_axis["type"], mc_axis["dtick"], mc_axis["tickprefix"]) == ("log", 1, "S$")
    bands = next(d.value for d in at.dataframe if "Route at base" in d.value.columns)
    assert "Median [SGD/Mtok]" in bands.columns
