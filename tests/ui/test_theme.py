"""Margins sized from the tick labels a chart will show (plotly's automargin is off for speed)."""

from __future__ import annotations

from ui.theme import Chart, left_margin, tick_labels


def test_log_axis_labels_are_the_1_2_5_ticks_over_the_padded_data_with_prefix() -> None:
    labels = tick_labels([0.003, 40.0], {"type": "log", "tickprefix": "$"})
    # the autorange is padded by 1.5x either side: 0.002 .. 60, so 0.002 and 50 show, 0.001 and 100 do not
    assert labels[0] == "$0.002"
    assert labels[-1] == "$50"
    assert "$0.001" not in labels
    assert "$100" not in labels


def test_linear_axis_labels_use_a_1_2_5_step_over_the_given_range() -> None:
    # range 0..110: 110/6 = 18.3 per tick, so a step of 20
    assert tick_labels([5.0], {"range": [0, 110], "ticksuffix": "%"}) == ["0%", "20%", "40%", "60%", "80%", "100%"]


def test_category_labels_are_the_categories() -> None:
    assert tick_labels(["KYC batch", None, "Analyst research"], {}) == ["KYC batch", "Analyst research"]


def test_left_margin_grows_with_the_widest_label_and_the_title() -> None:
    short = left_margin(["$1"], has_title=True)
    long = left_margin(["Analyst research (frontier reasoning)"], has_title=True)
    assert long > short + 200  # 35 more characters
    assert left_margin(["$1"], has_title=False) < short


def test_chart_turns_automargin_off_and_sets_the_left_margin() -> None:
    c = Chart("t", "x [1]", "y [USD]")
    c.add(x=[1, 2], y=[1000.0, 250000.0])
    c.axis("xaxis2", domain=[0.5, 1])
    fig = c.figure()
    assert fig.layout.xaxis.automargin is False
    assert fig.layout.yaxis.automargin is False
    assert fig.layout.xaxis2.automargin is False
    assert fig.layout.margin.l == left_margin(tick_labels([1000.0, 250000.0], {}), has_title=True)
    assert fig.layout.margin.l > left_margin(["0"], has_title=True)


def test_dollar_log_axes_put_the_sign_on_every_label() -> None:
    c = Chart("t", "x [1]", "y [USD] (log)", y_log=True)
    c.add(x=[1, 2], y=[0.5, 500.0])
    c.axis("yaxis", tickprefix="$")
    fig = c.figure()
    assert fig.layout.yaxis.tickformat == "$,~g"  # $1,000 with its thousands separator
    assert not fig.layout.yaxis.tickprefix


def test_a_money_axis_over_negative_amounts_puts_the_sign_before_the_currency() -> None:
    # plotly writes tickprefix before the sign: the Reviews tornado read "$−1"; a finance reader writes "−$1"
    c = Chart("t", "change [USD/month]", "")
    c.axis("xaxis", tickprefix="$")
    c.add("bar", y=["a", "b"], x=[-3500.0, 1200.0], orientation="h")
    axis = c.figure().layout.xaxis
    assert axis.tickprefix is None
    assert list(axis.ticktext) == ["−$4,000", "−$2,000", "$0", "$2,000"]
    assert list(axis.tickvals) == [-4000.0, -2000.0, 0.0, 2000.0]
    positive = Chart("t", "cost [USD/month]", "")
    positive.axis("xaxis", tickprefix="$")
    positive.add("bar", y=["a"], x=[5.0], orientation="h")
    assert positive.figure().layout.xaxis.tickprefix == "$"  # left to plotly: no sign to place


def test_bars_from_a_base_are_labelled_where_they_are_drawn() -> None:
    # a tornado's bars start at the base (S$20,000) and are given as lengths (−3,000 and +2,000): the axis spans
    # 17,000–22,000, all positive, so plotly keeps its own ticks; lengths read as amounts would have been "−"
    c = Chart("t", "savings [SGD/month]", "")
    c.axis("xaxis", tickprefix="S$")
    c.add("bar", y=["a", "a"], x=[-3000.0, 2000.0], base=[20000.0, 20000.0], orientation="h")
    assert c.figure().layout.xaxis.tickprefix == "S$"
    below = Chart("t", "savings [SGD/month]", "")
    below.axis("xaxis", tickprefix="S$")
    below.add("bar", y=["a", "a"], x=[-3000.0, 2000.0], base=[1000.0, 1000.0], orientation="h")
    # spans −2,000 to 3,000: 5,000 over four ticks is 1,250, so a step of 2,000 (the 1-2-5 step above it)
    assert list(below.figure().layout.xaxis.ticktext) == ["−S$2,000", "S$0", "S$2,000", "S$4,000"]
