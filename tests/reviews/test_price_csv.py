"""A negotiated-price CSV is validated as a whole: every bad row is reported with line, column and reason."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from economics.io.price_csv import MAX_CSV_BYTES, CsvImport, read_negotiated_csv, template_csv
from tests.reviews.factories import small_scenario
from tests.strategies import THOROUGH

SCENARIO = small_scenario()
HEADER = "offer_id,item,value,as_of,source\n"


def _problems(result: CsvImport) -> list[tuple[int, str]]:
    return [(p.line, p.column) for p in result.problems]


def test_a_clean_file_is_read_and_applies() -> None:
    text = HEADER + "h100-rented,gpu_hour_price,2.10,2025-06-01,MSA 14\nfrontier,api_discount,20%,,\n"
    result = read_negotiated_csv(text.encode(), SCENARIO)
    assert result.ok
    assert result.rows_read == 2
    assert [p.value for p in result.prices] == [2.10, 0.2]
    applied = result.applied_to(SCENARIO)
    assert next(a for a in applied.apis if a.id == "frontier").negotiated_discount_fraction == 0.2


def test_every_bad_row_is_listed_and_nothing_is_applied() -> None:
    text = (
        HEADER  # line 1
        + "h100-rented,gpu_hour_price,2.10,2025-06-01,ok\n"  # 2: fine
        + "frontier,api_discount,abc,,\n"  # 3: not a number
        + "frontier,api_output_price,-1,,\n"  # 4: out of range
        + "nope,api_discount,0.1,,\n"  # 5: unknown offer
        + "h100-rented,gpu_hour_price,2.20,,\n"  # 6: duplicate of line 2
        + "frontier,api_discount,30,,\n"  # 7: 30 is not a fraction
        + "hosted-70b,api_discount,0.1,2025-31-01,\n"  # 8: bad date
        + "hosted-70b,teleport,1,,\n"  # 9: unknown item
        + "h100-owned,api_discount,0.1,,\n"  # 10: item does not apply to an owned node
        + "h100-owned,node_capex,$250000,,\n"  # 11: currency sign
    )
    result = read_negotiated_csv(text.encode(), SCENARIO)
    assert not result.ok
    assert result.prices == ()
    assert _problems(result) == [
        (3, "value"),
        (4, "value"),
        (5, "offer_id"),
        (6, "item"),
        (7, "value"),
        (8, "as_of"),
        (9, "item"),
        (10, "item"),
        (11, "value"),
    ]
    reasons = {p.line: p.reason for p in result.problems}
    assert reasons[3] == "not a number: 'abc'"
    assert reasons[4] == "-1 is out of range for api_output_price: must be at least 0 and at most 1,000 USD/Mtok"
    assert reasons[5].startswith("unknown offer id 'nope'; known: frontier, h100-owned, h100-rented, hosted-70b")
    assert reasons[6] == "duplicate: gpu_hour_price for 'h100-rented' is already given on line 2"
    assert "write 0.3 or 30%" in reasons[7]
    assert reasons[8] == "not a date: '2025-31-01'; write YYYY-MM-DD"
    assert reasons[9].startswith("unknown item 'teleport'; one of gpu_hour_price, reserved_discount")
    assert reasons[10].startswith("api_discount does not apply to owned offer 'h100-owned'; use node_capex")
    assert "write digits 0-9 only" in reasons[11]
    assert str(result.problems[0]) == "line 3, value: not a number: 'abc'"
    with pytest.raises(ValueError, match="line 3"):
        result.applied_to(SCENARIO)


def test_duplicate_names_the_line_of_the_first_occurrence() -> None:
    text = HEADER + "frontier,api_discount,0.1,,\n\n# a comment\nfrontier,api_discount,0.2,,\n"
    result = read_negotiated_csv(text, SCENARIO)
    assert _problems(result) == [(5, "item")]  # blank line 3 and comment line 4 still count as lines
    assert "duplicate" in result.problems[0].reason


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("offer,item,value\nfrontier,api_discount,0.1\n", [(1, "offer"), (1, "offer_id")]),
        ("offer_id,item,value,item\n", [(1, "item")]),
        ("offer_id,value\n", [(1, "item")]),
        ("", [(1, "")]),
        ("\n\n", [(1, "")]),
    ],
)
def test_a_wrong_header_is_reported_on_line_one(text: str, expected: list[tuple[int, str]]) -> None:
    assert _problems(read_negotiated_csv(text, SCENARIO)) == expected


def test_header_case_and_order_do_not_matter_and_optional_columns_may_be_left_out() -> None:
    result = read_negotiated_csv("Value,Offer_ID,ITEM\n0.1,frontier,api_discount\n", SCENARIO)
    assert result.ok
    assert result.prices[0].offer_id == "frontier"


def test_bad_encoding_names_the_line_of_the_bad_byte() -> None:
    data = (HEADER + "frontier,api_discount,0.1,,caf\xe9\n").encode("latin-1")
    result = read_negotiated_csv(data, SCENARIO)
    assert _problems(result) == [(2, "")]
    assert "not UTF-8" in result.problems[0].reason


def test_a_byte_order_mark_is_accepted() -> None:
    assert read_negotiated_csv(("\ufeff" + HEADER + "frontier,api_discount,0.1,,\n").encode(), SCENARIO).ok


def test_too_many_cells_and_nul_bytes_and_oversize_are_messages() -> None:
    many = read_negotiated_csv(HEADER + "frontier,api_discount,0.1,,,extra\n", SCENARIO)
    assert _problems(many) == [(2, "")]
    assert "6 cells but the header has 5" in many.problems[0].reason
    nul = read_negotiated_csv(HEADER + "frontier,api_discount,0\x00.1,,\n", SCENARIO)
    assert not nul.ok
    big = read_negotiated_csv(b"x" * (MAX_CSV_BYTES + 1), SCENARIO)
    assert "too large" in big.problems[0].reason


def test_conflicting_items_for_one_offer_are_rejected() -> None:
    result = read_negotiated_csv(
        HEADER + "h100-rented,gpu_hour_price,2,,\nh100-rented,reserved_discount,0.2,,\n", SCENARIO
    )
    assert _problems(result) == [(3, "item")]


def test_a_percentage_is_only_allowed_for_discounts() -> None:
    result = read_negotiated_csv(HEADER + "h100-rented,gpu_hour_price,20%,,\n", SCENARIO)
    assert result.problems[0].reason == "'20%': a percentage is only allowed for discounts"


@pytest.mark.parametrize(
    ("value", "as_of", "column", "reason"),
    [  # each was read as a price: float() takes other scripts' digits and underscores
        ("１２.５", "", "value", "not a number: '１２.５' (write digits 0-9 only, with a dot for decimals, e.g. 2.5)"),
        ("٣", "", "value", "not a number: '٣' (write digits 0-9 only, with a dot for decimals, e.g. 2.5)"),
        ("1_000", "", "value", "not a number: '1_000' (write digits 0-9 only, with a dot for decimals, e.g. 2.5)"),
        ("infinity", "", "value", "not a finite number: 'infinity'"),
        (
            "2.10",
            "9999-12-31",
            "as_of",
            "9999-12-31 is not a plausible date for a price; give a year from 2000 to 2099",
        ),
        ("2.10", "２０２５-０６-０１", "as_of", "not a date: '２０２５-０６-０１'; write YYYY-MM-DD"),
    ],
)
def test_odd_numbers_and_dates_are_refused_in_words(value: str, as_of: str, column: str, reason: str) -> None:
    result = read_negotiated_csv(HEADER + f"h100-rented,gpu_hour_price,{value},{as_of},\n", SCENARIO)
    assert not result.ok
    assert [(p.line, p.column, p.reason) for p in result.problems] == [(2, column, reason)]


def test_a_plain_exponent_is_still_a_number() -> None:
    result = read_negotiated_csv(HEADER + "h100-rented,gpu_hour_price,2.1e0,2025-06-01,\n", SCENARIO)
    assert result.ok
    assert [p.value for p in result.prices] == [2.1]


def test_quoted_multiline_cells_keep_line_numbers_right() -> None:
    text = HEADER + 'frontier,api_discount,0.1,,"two\nlines"\nhosted-70b,api_discount,x,,\n'
    assert _problems(read_negotiated_csv(text, SCENARIO)) == [(4, "value")]


def test_a_quote_never_closed_is_named_not_read_as_one_long_cell() -> None:
    # the quote on line 2 swallowed lines 3 and 4 into its source: "all valid", and two prices were lost
    text = HEADER + 'frontier,api_discount,0.1,2026-01-01,"MSA 2025\nhosted-70b,api_discount,0.2,,\n'
    text += "h100-rented,gpu_hour_price,2.10,2025-06-01,MSA 14\n"
    result = read_negotiated_csv(text, SCENARIO)
    assert not result.ok
    assert _problems(result) == [(2, "")]
    assert "never closed" in result.problems[0].reason
    later = read_negotiated_csv(
        HEADER + "frontier,api_discount,0.1,,\n" + 'hosted-70b,api_discount,0.2,,"x\n', SCENARIO
    )
    assert _problems(later) == [(3, "")]  # the row that opened it, after a good one


def test_a_header_of_thousands_of_columns_is_one_short_list_of_problems() -> None:
    wide = "a," * 50_000 + "\n"  # 100 KB: each name counted against the whole header took 23 s
    result = read_negotiated_csv(wide.encode(), SCENARIO)
    reasons = [p.reason for p in result.problems]
    assert len(reasons) <= 15, len(reasons)
    assert any("more than once" in r for r in reasons)  # "a", 50,000 times
    many = read_negotiated_csv(",".join(f"c{i}" for i in range(40)) + "\n", SCENARIO)
    assert any(p.reason.startswith("and 30 more unknown columns") for p in many.problems)
    assert sum("unknown column 'c" in p.reason for p in many.problems) == 10


def test_text_is_capped_like_bytes() -> None:
    big = read_negotiated_csv("x" * (MAX_CSV_BYTES + 1), SCENARIO)  # a str had no cap at all
    assert "too large" in big.problems[0].reason


def test_the_template_reads_back_clean() -> None:
    template = template_csv(SCENARIO)
    assert template.startswith(HEADER)
    result = read_negotiated_csv(template.encode(), SCENARIO)
    assert result.ok, result.problems
    assert {p.offer_id for p in result.prices} == {"h100-rented", "h100-owned", "frontier", "hosted-70b"}


@THOROUGH
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    # Property: any input gives a CsvImport; either clean with prices or with problems and no prices.
    result = read_negotiated_csv(data, SCENARIO)
    assert result.ok or result.prices == ()
    assert all(p.line >= 1 for p in result.problems)


@THOROUGH
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["frontier", "hosted-70b", "h100-rented", "h100-owned", "x", ""]),
            st.sampled_from(["api_discount", "gpu_hour_price", "node_capex", "reserved_discount", "bad"]),
            st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr), st.text(max_size=5)),
        ),
        max_size=6,
    )
)
def test_arbitrary_rows_never_raise(rows: list[tuple[str, str, str]]) -> None:
    text = HEADER + "".join(f'{o},{i},"{v.replace(chr(34), "")}",,\n' for o, i, v in rows)
    result = read_negotiated_csv(text, SCENARIO)
    if result.ok:
        result.applied_to(SCENARIO)  # a clean file always applies
