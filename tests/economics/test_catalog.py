"""The catalog loader and the data it ships (economics.io.catalog, data/catalog, data/prices).

Expected numbers come from the published sources named next to them (datasheets, model cards, price
pages as copied into data/ and the first design spec (docs/README.md#origin)), never from the code under test.
Malformed-file tests edit a copy of data/ in tmp_path.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from economics.catalog import CatalogError, PriceLookupError
from economics.io.catalog import DATA_DIR, FILES, load_catalog
from tests.strategies import PROPERTIES

REPO = Path(__file__).resolve().parents[2]
SPEC_FILES = ("gpus", "models", "speculative", "diffusion")
PRICE_FILES = ("instances", "api", "owned")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write_csv(path: Path, rows: list[dict[str, str]], columns: list[str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows({c: r.get(c, "") for c in columns} for r in rows)


def line_of(path: Path, prefix: str) -> int:
    """1-based line of the first row starting with ``prefix`` (rows are one line each in our files)."""
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if text.startswith(prefix):
            return number
    raise AssertionError(f"{prefix!r} not found in {path}")


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A private copy of data/ that a test may break."""
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


# ---- the shipped data loads and is complete ----------------------------------------------------------------
def test_data_dir_is_the_repositorys_own() -> None:
    # The app never reads ../shared at run time: the catalog lives in the repository.
    assert REPO / "data" == DATA_DIR
    assert all((DATA_DIR / rel).is_file() for rel in FILES.values())


def test_every_row_loads_and_the_required_ids_exist() -> None:
    catalog = load_catalog()
    ids = catalog.ids()
    required_gpus = {
        "h100-sxm", "h100-pcie", "h100-nvl", "h200-sxm", "b200", "gb200", "a100-sxm-80gb",
        "a100-pcie-80gb", "l40s", "l4", "rtx-4090", "rtx-5090", "mi300x", "mi325x",
    }  # fmt: skip
    required_models = {
        "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "mixtral-8x7b", "qwen3-235b-a22b",
        "deepseek-v3", "gpt-oss-20b", "gpt-oss-120b", "llada-8b", "llama-2-13b",
    }  # fmt: skip
    assert required_gpus <= set(ids["gpus"])
    assert required_models <= set(ids["models"])
    assert {"eagle3-tree", "eagle-chain", "medusa-tree"} <= set(ids["speculative"])
    assert {"llada-like", "fast-dllm-like", "mercury-like", "vanilla-llada"} <= set(ids["diffusion"])
    # every CSV row became exactly one object (price series may have several rows)
    for kind, objects in (("gpus", catalog.gpus), ("models", catalog.models)):
        assert len(objects) == len(read_csv(DATA_DIR / FILES[kind]))
    assert len(catalog.speculative) == len(read_csv(DATA_DIR / FILES["speculative"]))
    assert len(catalog.diffusion) == len(read_csv(DATA_DIR / FILES["diffusion"]))
    assert len(catalog.instance_prices) == len(read_csv(DATA_DIR / FILES["instances"]))
    assert len(catalog.api_prices) == len(read_csv(DATA_DIR / FILES["api"]))
    assert len(catalog.owned_inputs) == len(read_csv(DATA_DIR / FILES["owned"]))


def test_load_is_cached_per_directory(data_copy: Path) -> None:
    assert load_catalog() is load_catalog(DATA_DIR)
    assert load_catalog(data_copy) is not load_catalog()


@pytest.mark.parametrize("kind", SPEC_FILES + PRICE_FILES)
def test_every_row_has_a_source_and_an_iso_as_of(kind: str) -> None:
    rows = read_csv(DATA_DIR / FILES[kind])
    assert rows
    for row in rows:
        assert row["source"].strip(), row
        assert ISO_DATE.fullmatch(row["as_of"]), row
        for column in ("effective_from", "effective_to"):
            if row.get(column):
                assert ISO_DATE.fullmatch(row[column]), row


def test_loaded_objects_keep_their_provenance() -> None:
    catalog = load_catalog()
    for kind, objects in (("gpus", catalog.gpus), ("models", catalog.models)):
        for key, obj in objects.items():
            assert obj.source
            assert ISO_DATE.fullmatch(obj.as_of)
            assert catalog.provenance[kind][key].source == obj.source
    for scheme in [*catalog.speculative.values(), *catalog.diffusion.values()]:
        assert scheme.source
        assert ISO_DATE.fullmatch(scheme.as_of)


@pytest.mark.parametrize("kind", SPEC_FILES)
def test_ids_are_unique(kind: str) -> None:
    ids = [row["id"] for row in read_csv(DATA_DIR / FILES[kind])]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("kind", PRICE_FILES)
def test_price_series_have_one_row_per_start_date(kind: str) -> None:
    keys = [(row["id"], row["effective_from"]) for row in read_csv(DATA_DIR / FILES[kind])]
    assert len(keys) == len(set(keys))


def test_readme_documents_every_file_and_column() -> None:
    readme = (DATA_DIR / "README.md").read_text(encoding="utf-8")
    for rel in FILES.values():
        assert rel in readme, rel
        with (DATA_DIR / rel).open(newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle))
        for column in header:
            assert f"`{column}`" in readme, f"{rel}: column {column} is not documented"


# ---- GPUs: dense FLOP/s, decimal bytes, per-direction links ----------------------------------------------------
# Dense BF16 TFLOP/s from the shared reference table (stas00/ml-engineering; NVIDIA Ada/Blackwell
# whitepapers): the datasheets' with-sparsity headline figures halved.
DENSE_BF16_TFLOPS = {
    "h100-sxm": 989.0, "h100-pcie": 756.0, "h200-sxm": 989.0, "b200": 2250.0, "gb200": 2500.0,
    "a100-sxm-80gb": 312.0, "l40s": 362.0, "l4": 121.0, "rtx-4090": 165.2, "rtx-5090": 209.5,
    "mi300x": 1307.0, "mi325x": 1307.0,
}  # fmt: skip


@pytest.mark.parametrize(("gpu_id", "tflops"), DENSE_BF16_TFLOPS.items())
def test_gpu_bf16_is_the_dense_figure(gpu_id: str, tflops: float) -> None:
    assert load_catalog().gpus[gpu_id].peak_flops_bf16_per_s == pytest.approx(tflops * 1e12, rel=0.01)


def test_h100_is_dense_not_the_sparsity_headline() -> None:
    h100 = load_catalog().gpus["h100-sxm"]
    assert h100.peak_flops_bf16_per_s == pytest.approx(989e12, rel=0.01)
    assert h100.peak_flops_bf16_per_s < 1.5 * 989e12  # the datasheet's 1,979 "BF16" includes 2:4 sparsity
    assert h100.peak_flops_fp8_per_s == pytest.approx(1979e12, rel=0.01)  # not the 3,958 headline
    assert h100.peak_flops_fp4_per_s is None


def test_fp8_doubles_bf16_wherever_a_gpu_has_fp8() -> None:
    # Dense FP8 is 2x dense BF16 on every listed architecture (Hopper, Blackwell, Ada, CDNA3); a sparse
    # figure mixed with a dense one would be off by a factor 2. (L40S: 733 / 362 = 2.02 in NVIDIA's table.)
    for gpu in load_catalog().gpus.values():
        if gpu.peak_flops_fp8_per_s is not None:
            assert gpu.peak_flops_fp8_per_s == pytest.approx(2 * gpu.peak_flops_bf16_per_s, rel=0.05), gpu.id
        if gpu.peak_flops_fp4_per_s is not None:
            assert gpu.peak_flops_fp8_per_s is not None
            assert gpu.peak_flops_fp4_per_s >= 2 * gpu.peak_flops_fp8_per_s * 0.99, gpu.id


def test_memory_is_decimal_and_bandwidth_per_direction() -> None:
    gpus = load_catalog().gpus
    assert gpus["h100-sxm"].hbm_capacity_bytes == 80e9  # 80 GB = 80e9 B, not 80 GiB
    assert gpus["h200-sxm"].hbm_capacity_bytes == 141e9
    assert gpus["b200"].hbm_capacity_bytes == 180e9  # usable, not the 192 GB physical
    assert gpus["h100-sxm"].hbm_bandwidth_bytes_per_s == pytest.approx(3.35e12)
    assert gpus["a100-sxm-80gb"].hbm_bandwidth_bytes_per_s == pytest.approx(2.039e12)
    # NVLink 4 = 18 links x 25 GB/s per direction ([SB] gpus.md); NVLink 5 twice that; A100 NVLink 3 300 GB/s
    assert gpus["h100-sxm"].link_bandwidth_bytes_per_s == pytest.approx(450e9)
    assert gpus["b200"].link_bandwidth_bytes_per_s == pytest.approx(900e9)
    assert gpus["a100-sxm-80gb"].link_bandwidth_bytes_per_s == pytest.approx(300e9)
    assert gpus["h100-nvl"].link_bandwidth_bytes_per_s == pytest.approx(300e9)  # 600 GB/s bidirectional bridge
    assert gpus["mi300x"].link_bandwidth_bytes_per_s == pytest.approx(448e9)  # 7 links x 64 GB/s
    for pcie_card in ("h100-pcie", "l40s", "l4", "rtx-4090", "rtx-5090", "a100-pcie-80gb"):
        assert gpus[pcie_card].link_bandwidth_bytes_per_s <= 64e9


def test_ridge_point_matches_model_spec() -> None:
    # docs/inputs.md#hardware: H100 BF16 ridge = 989.4e12 / 3.35e12 = 295 FLOP/B
    assert load_catalog().gpus["h100-sxm"].ridge_flop_per_byte() == pytest.approx(295, abs=1)


# ---- models: architecture against the developers' published counts ----------------------------------------------
# Published totals/actives as in docs/inputs.md#model-shape and the model cards; the CSV must carry the same numbers.
PUBLISHED = {
    "llama-3.1-8b": (8.03e9, 8.03e9),
    "llama-3.1-70b": (70.55e9, 70.55e9),
    "llama-3.1-405b": (405e9, 405e9),
    "llama-2-13b": (13.0e9, 13.0e9),
    "mixtral-8x7b": (46.7e9, 12.9e9),
    "qwen3-235b-a22b": (235e9, 22e9),
    "deepseek-v3": (671e9, 37e9),
    "gpt-oss-20b": (20.91e9, 3.61e9),  # OpenAI model card (arXiv 2508.10925)
    "gpt-oss-120b": (116.83e9, 5.13e9),
    "llada-8b": (8.02e9, 8.02e9),  # LLaDA architecture table (arXiv 2502.09992)
}
PARAM_TOLERANCE = 0.03  # ±3%: norms, biases, routers and rounding of published figures


@pytest.mark.parametrize(("model_id", "published"), PUBLISHED.items())
def test_model_parameters_match_published_counts(model_id: str, published: tuple[float, float]) -> None:
    catalog = load_catalog()
    model, ref = catalog.models[model_id], catalog.model_references[model_id]
    total, active = published
    assert (ref.published_total_params, ref.published_active_params) == (total, active)
    assert model.params_total == pytest.approx(total, rel=PARAM_TOLERANCE)
    # gpt-oss publishes active parameters without the input-embedding lookup (= our matmul parameters)
    counted = model.params_active if ref.published_active_basis == "all_weights" else model.params_matmul
    assert counted == pytest.approx(active, rel=PARAM_TOLERANCE)


def test_llama_70b_worked_example() -> None:
    # docs/model.md#parameter-counts: 12.08e9 attention + 56.37e9 MLP + 2.10e9 embeddings = 70.55e9; test band [70.4e9,
    # 70.7e9]
    assert 70.4e9 <= load_catalog().models["llama-3.1-70b"].params_total <= 70.7e9


@pytest.mark.parametrize(
    ("model_id", "kv_bytes"),
    [
        ("llama-3.1-8b", 2 * 32 * 8 * 128 * 2),  # 131,072 (docs/inputs.md#model-shape)
        ("llama-2-13b", 2 * 40 * 40 * 128 * 2),  # 819,200: [SB] 6.7 GB for 8192 tokens
        ("qwen3-235b-a22b", 2 * 94 * 4 * 128 * 2),  # 192,512
        ("deepseek-v3", 61 * (512 + 64) * 2),  # 70,272: MLA latent + RoPE key
    ],
)
def test_kv_bytes_per_token_in_bf16(model_id: str, kv_bytes: int) -> None:
    assert load_catalog().models[model_id].kv_bytes_per_token == kv_bytes


def test_model_families_and_native_precisions() -> None:
    catalog = load_catalog()
    assert catalog.models["llada-8b"].family == "diffusion"
    assert all(m.family == "ar" for k, m in catalog.models.items() if k != "llada-8b")
    assert catalog.model_references["gpt-oss-120b"].native_precision == "fp4"  # MXFP4 MoE weights
    assert catalog.model_references["deepseek-v3"].native_precision == "fp8"
    # the catalog describes architectures at BF16; deployments re-cast with ModelSpec.at_precision
    assert all(m.bytes_per_weight == 2.0 for m in catalog.models.values())


# ---- scheme presets --------------------------------------------------------------------------------------------
def test_scheme_presets() -> None:
    catalog = load_catalog()
    chain = catalog.speculative["eagle-chain"]
    assert chain.tokens_per_pass == pytest.approx((1 - 0.8**5) / (1 - 0.8))  # Leviathan: 3.36 for α 0.8, γ 4
    tree = catalog.speculative["eagle3-tree"]
    assert (tree.verify_tokens, tree.tokens_per_pass, tree.draft_step_overhead_s) == (16, 4.0, pytest.approx(1e-4))
    medusa = catalog.speculative["medusa-tree"]
    assert (medusa.draft_layers, medusa.draft_steps, medusa.verify_tokens) == (0, 0, 64)
    assert catalog.diffusion["llada-like"].tokens_per_forward == 1.0
    assert catalog.diffusion["fast-dllm-like"].tokens_per_forward == 4.0
    vanilla = catalog.diffusion["vanilla-llada"]
    assert (vanilla.prefix_cache, vanilla.block_tokens, vanilla.denoising_steps) == (False, 256, 256)


# ---- prices as of a date ---------------------------------------------------------------------------------------
def test_p5_price_before_and_after_the_june_2025_cut() -> None:
    catalog = load_catalog()
    p5 = "aws-p5.48xlarge-on-demand"
    assert catalog.instance_price_as_of(p5, dt.date(2025, 1, 1)).usd_per_instance_hour == 98.32
    assert catalog.instance_price_as_of(p5, dt.date(2025, 12, 1)).usd_per_instance_hour == 55.04
    # periods are [from, to): the cut takes effect on 2025-06-01 itself
    assert catalog.instance_price_as_of(p5, dt.date(2025, 5, 31)).usd_per_instance_hour == 98.32
    assert catalog.instance_price_as_of(p5, dt.date(2025, 6, 1)).usd_per_instance_hour == 55.04
    assert catalog.instance_price_as_of(p5, dt.date(2025, 12, 1)).usd_per_gpu_hour == pytest.approx(6.88)


def test_o3_before_and_after_the_2025_06_10_cut() -> None:
    catalog = load_catalog()
    before = catalog.api_price_as_of("openai-o3", dt.date(2025, 6, 9))
    after = catalog.api_price_as_of("openai-o3", dt.date(2025, 6, 10))
    assert (before.input_usd_per_mtok, before.output_usd_per_mtok) == (10.0, 40.0)
    assert (after.input_usd_per_mtok, after.output_usd_per_mtok) == (2.0, 8.0)
    assert after.batch_discount_fraction == 0.5


def test_lookup_errors_name_the_id_and_its_periods() -> None:
    catalog = load_catalog()
    with pytest.raises(PriceLookupError, match=r"'openai-o3'.*2025-04-01.*\[2025-04-16, 2025-06-10\)"):
        catalog.api_price_as_of("openai-o3", dt.date(2025, 4, 1))  # before launch
    with pytest.raises(PriceLookupError, match="unknown instance price id 'no-such-offer'"):
        catalog.instance_price_as_of("no-such-offer", dt.date(2025, 1, 1))


def test_owned_inputs_history_and_undated_defaults() -> None:
    catalog = load_catalog()
    colo = "colocation-cbre-north-america"
    assert catalog.owned_input_as_of(colo, dt.date(2022, 6, 1)).value == 137.86  # CBRE 2022
    assert catalog.owned_input_as_of(colo, dt.date(2023, 6, 1)).value == 163.44  # CBRE 2023
    assert catalog.owned_input_as_of(colo, dt.date(2025, 1, 1)).value == 184.06  # CBRE H2 2024
    assert catalog.owned_input_as_of("life-amazon-servers", dt.date(2024, 6, 1)).value == 6
    assert catalog.owned_input_as_of("life-amazon-servers", dt.date(2025, 6, 1)).value == 5
    capex = catalog.owned_input_as_of("default-capex-8xh100", dt.date(2020, 1, 1))  # undated: always in force
    assert (capex.low, capex.value, capex.high, capex.assumption) == (220_000, 280_000, 350_000, True)


def test_history_and_in_force_listings() -> None:
    catalog = load_catalog()
    history = catalog.instance_price_history("aws-p5.48xlarge-on-demand")
    assert [r.usd_per_instance_hour for r in history] == [98.32, 55.04]
    in_force_ids = [r.id for r in catalog.api_prices_in_force(dt.date(2025, 7, 1))]
    assert in_force_ids.count("openai-o3") == 1
    assert len(in_force_ids) == len(set(in_force_ids))
    assert "aws-p5.48xlarge-on-demand" in {r.id for r in catalog.instance_prices_in_force(dt.date(2024, 1, 1))}
    assert set(catalog.price_ids()["api"]) == {r.id for r in catalog.api_prices}


@settings(PROPERTIES, max_examples=60)
@given(st.dates(min_value=dt.date(2019, 1, 1), max_value=dt.date(2027, 12, 31)))
def test_at_most_one_row_per_series_is_in_force(date: dt.date) -> None:
    catalog = load_catalog()
    for rows in (catalog.instance_prices, catalog.api_prices, catalog.owned_inputs):
        covering = [
            r.id
            for r in rows
            if (r.effective_from is None or r.effective_from <= date)
            and (r.effective_to is None or date < r.effective_to)
        ]
        assert len(covering) == len(set(covering))


# ---- malformed files ---------------------------------------------------------------------------------------------
def edit_rows(path: Path, edit: dict[str, dict[str, str]], drop_column: str | None = None) -> None:
    """Set cells of rows whose id is a key of ``edit`` (first matching row only), optionally drop a column."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        columns = [c for c in reader.fieldnames or [] if c != drop_column]
        rows = list(reader)
    done: set[str] = set()
    for row in rows:
        row_id = row["id"]
        if row_id in edit and row_id not in done:
            row.update(edit[row_id])
            done.add(row_id)
    assert done == set(edit)
    write_csv(path, rows, columns)


def test_bad_number_names_file_line_and_column(data_copy: Path) -> None:
    gpus = data_copy / "catalog" / "gpus.csv"
    edit_rows(gpus, {"h100-pcie": {"bf16_dense_tflops": "7x6"}})
    with pytest.raises(CatalogError) as info:
        load_catalog(data_copy)
    line = line_of(gpus, "h100-pcie,")
    assert f"gpus.csv, line {line}, column 'bf16_dense_tflops'" in str(info.value)
    assert "'7x6'" in str(info.value)
    assert len(info.value.problems) == 1  # no cascade: prices referencing h100-pcie still resolve


def test_missing_column_names_file_line_1_and_column(data_copy: Path) -> None:
    edit_rows(data_copy / "catalog" / "gpus.csv", {}, drop_column="power_w")
    with pytest.raises(CatalogError, match=r"gpus\.csv, line 1, column 'power_w': missing column"):
        load_catalog(data_copy)


def test_unknown_id_reference_names_file_line_and_column(data_copy: Path) -> None:
    instances = data_copy / "prices" / "instances.csv"
    edit_rows(instances, {"gcp-a3-highgpu-8g-spot": {"gpu_id": "h100-sxm-typo"}})
    line = line_of(instances, "gcp-a3-highgpu-8g-spot,")
    expected = rf"instances\.csv, line {line}, column 'gpu_id': unknown id 'h100-sxm-typo'"
    with pytest.raises(CatalogError, match=expected):
        load_catalog(data_copy)


def test_every_problem_is_reported_not_just_the_first(data_copy: Path) -> None:
    edit_rows(data_copy / "catalog" / "gpus.csv", {"l4": {"power_w": "nan"}, "b200": {"as_of": "2025-6-1"}})
    edit_rows(data_copy / "catalog" / "models.csv", {"llada-8b": {"n_kv_heads": "64"}})
    edit_rows(data_copy / "catalog" / "diffusion.csv", {"llada-like": {"id": "fast-dllm-like"}})
    edit_rows(data_copy / "prices" / "api.csv", {"groq-llama-3.1-8b-instant": {"model_id": "llama-9"}})
    o3_cut = line_of(data_copy / "prices" / "api.csv", "openai-o3,openai,o3,reasoning,,2,")
    edit_rows(data_copy / "prices" / "api.csv", {"openai-o3": {"effective_to": "2025-07-01"}})
    with pytest.raises(CatalogError) as info:
        load_catalog(data_copy)
    message = str(info.value)
    expected = [
        (f"gpus.csv, line {line_of(data_copy / 'catalog' / 'gpus.csv', 'l4,')}, column 'power_w'", "finite"),
        (f"gpus.csv, line {line_of(data_copy / 'catalog' / 'gpus.csv', 'b200,')}, column 'as_of'", "YYYY-MM-DD"),
        (f"models.csv, line {line_of(data_copy / 'catalog' / 'models.csv', 'llada-8b,')}", "n_kv_heads"),
        ("diffusion.csv, line 3, column 'id'", "duplicate id 'fast-dllm-like' (first on line 2)"),
        ("api.csv", "column 'model_id': unknown id 'llama-9'"),
        (f"api.csv, line {o3_cut}, column 'effective_from'", "overlaps"),
    ]
    for where, what in expected:
        assert any(where in line and what in line for line in message.splitlines()), (where, what, message)
    assert len(info.value.problems) == len(expected)


def test_ragged_row_and_missing_file(data_copy: Path) -> None:
    spec = data_copy / "catalog" / "speculative.csv"
    spec.write_text(spec.read_text(encoding="utf-8") + "extra-row,too,few\n", encoding="utf-8")
    (data_copy / "prices" / "owned.csv").unlink()
    with pytest.raises(CatalogError) as info:
        load_catalog(data_copy)
    lines = str(info.value).splitlines()
    assert any("speculative.csv, line 5: expected 14 fields, found 3" in line for line in lines)
    assert any("owned.csv, line 0: file not found" in line for line in lines)


def test_a_spreadsheet_byte_order_mark_is_tolerated(data_copy: Path) -> None:
    gpus = data_copy / "catalog" / "gpus.csv"
    gpus.write_text("\ufeff" + gpus.read_text(encoding="utf-8"), encoding="utf-8")
    assert "h100-sxm" in load_catalog(data_copy).gpus
