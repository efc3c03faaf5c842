"""Write the preset scenarios in data/scenarios/ from the catalog plus the assumptions stated below.

    .venv/bin/python scripts/build_scenarios.py          # rewrite the JSON files
    .venv/bin/python scripts/build_scenarios.py --check  # exit 1 if a file differs from what this builds

GPUs, models and decoding schemes are copied from the catalog rows (tests/economics/test_scenarios.py checks
they still match), and every offer with a price id takes the catalog price in force on the review date.
Everything else is an assumption and says so: workload volumes, SLOs, failure costs and qualities are
illustrative numbers for the story each preset tells, not measurements.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path
from typing import Any

from economics.catalog import Catalog
from economics.finance.data import billing_terms, latest_fx
from economics.io.catalog import load_catalog
from economics.io.scenarios import PRESET_DIR, preset_json
from economics.pricing import reprice
from economics.quality import diffusion_quality
from economics.scenario import Scenario

ROOT = Path(__file__).resolve().parent.parent

REVIEW_DATE = dt.date(2026, 12, 1)
HOUR = 3600.0
A = "[assumption] "
#: [assumption] LLaDA-8B's quality at TPF 1 on these tasks (about 95% of the 8B AR model's 0.86).
LLADA_Q_MAX = 0.82
#: Singapore Standard Time is UTC+8 all year (no daylight saving).
SINGAPORE_UTC_OFFSET_H = 8
#: [assumption] Onboarding and LC clearing follow Singapore business hours, 09:00–18:00, with 10% of the
#: day's volume spread over the other hours.
SINGAPORE_BUSINESS_HOURS = {
    "shape": "business_hours",
    "start_hour_local": 9,
    "end_hour_local": 18,
    "utc_offset_hours": SINGAPORE_UTC_OFFSET_H,
    "off_hours_share": 0.1,
}


def llada_quality(catalog: Catalog) -> float:
    """docs/diffusion.md#quality-vs-parallelism default model at the Fast-dLLM-like preset's TPF: q_max − 0.01·max(0,
    TPF − 2)."""
    tpf = catalog.diffusion["fast-dllm-like"].tokens_per_forward
    return round(float(diffusion_quality(tpf, LLADA_Q_MAX)), 4)


def api(
    catalog: Catalog,
    offer_id: str,
    price_id: str,
    *,
    name: str,
    quality: float,
    ttft_s: float,
    tokens_per_s: float,
    note: str,
) -> dict[str, Any]:
    row = catalog.api_price_as_of(price_id, REVIEW_DATE)
    return {
        "id": offer_id,
        "name": name,
        "provider": row.provider,
        "tier": row.tier,
        "input_usd_per_mtok": row.input_usd_per_mtok,
        "output_usd_per_mtok": row.output_usd_per_mtok,
        "typical_ttft_s": ttft_s,
        "typical_output_tokens_per_s": tokens_per_s,
        "quality": quality,
        "price_id": price_id,
        "source": f"{row.source}. {A}{note}",
        "as_of": row.as_of.isoformat(),
    }


#: A node field changed from the defaults, as a finance reader writes it in the source ("electricity $0.20/kWh").
_OVERRIDE_WORDS = {
    "electricity_usd_per_kwh": "electricity ${:.2f}/kWh",
    "colocation_usd_per_kw_month": "colocation ${:,.0f}/kW-month",
    "capex_usd": "CapEx ${:,.0f}",
}


def _override_words(field: str, value: float) -> str:
    words = _OVERRIDE_WORDS.get(field)
    if words is None:
        raise KeyError(f"write {field} in words in _OVERRIDE_WORDS before using it in a preset")
    return words.format(value)


def owned_node(node_id: str, name: str, nodes_owned: int, **overrides: Any) -> dict[str, Any]:
    node: dict[str, Any] = {
        "kind": "owned",
        "id": node_id,
        "name": name,
        "gpu_id": "h100-sxm",
        "gpus_per_node": 8,
        "nodes_owned": nodes_owned,
        "source": "docs/costs.md#node-cost defaults and data/prices/owned.csv (CapEx $280k, 4 years, "
        "8% cost of capital, 10.2 kW drawn at 70%, "
        "PUE 1.3, $0.10/kWh, colocation $150/kW-month, operations 8% a year); "
        + A
        + "all of them"
        + ("; changed here: " + ", ".join(_override_words(k, v) for k, v in overrides.items()) if overrides else ""),
        "as_of": REVIEW_DATE.isoformat(),
    }
    node.update(overrides)
    return node


def bank_finance() -> dict[str, Any]:
    """The bank books in Singapore dollars (the catalog's dated rate, pinned here) on Singapore's grid (issue 14)."""
    fx = latest_fx("SGD", REVIEW_DATE)
    assert fx is not None, "data/prices/fx_rates.csv needs an SGD rate"
    return {
        "display_currency": "SGD",
        "fx_units_per_usd": fx.units_per_usd,
        "fx_as_of": fx.as_of.isoformat(),
        "fx_source": fx.source,
        "grid_region": "sg",
    }


def bank(catalog: Catalog) -> dict[str, Any]:
    """The essay's case: a Singapore bank with one owned 8×H100 node bought for sovereignty."""
    eagle = catalog.speculative["eagle3-tree"].model_dump()
    eagle_chain = catalog.speculative["eagle-chain"].model_dump()
    fast_dllm = catalog.diffusion["fast-dllm-like"].model_dump()
    return {
        "name": "Singapore bank: one owned 8×H100 node bought for sovereignty",
        "description": (
            "The case of 'The Tokens You Can't Wait For': a Singapore bank bought eight H100s so that customer "
            "data never leaves its infrastructure, and finance now asks why the node sits idle most of the "
            "night. Five workloads: an overnight KYC document batch, real-time onboarding checks and "
            "letter-of-credit clearing (latency-bound, sovereign), code completion (tiny outputs, tight TPOT) "
            "and an analyst workload that needs frontier reasoning. "
            + A
            + "Every volume, SLO, failure cost and quality below is illustrative, not a measurement. "
            "Owned node: docs/costs.md#node-cost defaults except electricity $0.20/kWh and colocation "
            "$250/kW-month, "
            "assumed for Singapore. Qualities: owned Llama-3.1-70B 0.90, 8B 0.86, LLaDA-8B with a "
            "Fast-dLLM-like scheme 0.80 (93% of the 8B AR model, inside the essay's 85–95% band; "
            "docs/diffusion.md#quality-vs-parallelism model: 0.82 at TPF 1 minus 0.02 at TPF 4), "
            "frontier API 0.97. API latencies are typical "
            "values, not SLAs. API prices are the catalog prices in force on the review date."
        ),
        "review_date": REVIEW_DATE.isoformat(),
        "finance": bank_finance(),
        "gpus": [catalog.gpus["h100-sxm"].model_dump()],
        "models": [catalog.models[m].model_dump() for m in ("llama-3.1-70b", "llama-3.1-8b", "llada-8b")],
        "nodes": [
            owned_node(
                "sg-h100-node",
                "Owned 8×H100 node (Singapore)",
                1,
                electricity_usd_per_kwh=0.20,
                colocation_usd_per_kw_month=250.0,
            )
        ],
        "owned_options": [
            {
                "id": "owned-70b-ar",
                "name": "Owned 70B, AR + EAGLE (8 GPUs)",
                "node_id": "sg-h100-node",
                "model_id": "llama-3.1-70b",
                "gpus_per_replica": 8,
                "scheme": {"kind": "ar"},
                "speculation": eagle_chain,
                "quality": 0.90,
            },
            {
                "id": "owned-8b-ar",
                "name": "Owned 8B, AR + EAGLE-3 (1 GPU)",
                "node_id": "sg-h100-node",
                "model_id": "llama-3.1-8b",
                "gpus_per_replica": 1,
                "scheme": {"kind": "ar"},
                "speculation": eagle,
                "quality": 0.86,
            },
            {
                "id": "owned-8b-diffusion",
                "name": "Owned LLaDA-8B diffusion (1 GPU)",
                "node_id": "sg-h100-node",
                "model_id": "llada-8b",
                "gpus_per_replica": 1,
                "scheme": fast_dllm,
                "quality": llada_quality(catalog),
            },
        ],
        "apis": [
            api(
                catalog,
                "frontier-api",
                "anthropic-claude-sonnet-4.5",
                name="Frontier API (Claude Sonnet 4.5)",
                quality=0.97,
                ttft_s=0.8,
                tokens_per_s=60.0,
                note="quality 0.97, typical TTFT 0.8 s and 60 tok/s",
            ),
            api(
                catalog,
                "hosted-70b-api",
                "together-llama-3.1-70b-turbo",
                name="Hosted Llama-70B API (Together)",
                quality=0.90,
                ttft_s=0.5,
                tokens_per_s=80.0,
                note="same model as the owned 70B, so the same quality 0.90; typical TTFT 0.5 s and 80 tok/s",
            ),
            api(
                catalog,
                "mercury-api",
                "inception-mercury-2",
                name="Mercury 2 API (diffusion)",
                quality=0.84,
                ttft_s=0.3,
                tokens_per_s=700.0,
                note="quality 0.84; typical TTFT 0.3 s and 700 tok/s (vendor speeds are 737–1109 tok/s per stream)",
            ),
        ],
        "workloads": [
            {
                "id": "kyc-overnight",
                "name": "Overnight KYC document batch",
                "avg_requests_per_s": 0.46,
                "peak_requests_per_s": 1.4,
                "input_tokens": 6000,
                "output_tokens": 800,
                "deadline_s": 8 * HOUR,
                "sovereign": True,
                "failure_cost_usd": 2.0,
                "demand_profile": {
                    "shape": "night_window",
                    "start_hour_local": 22,
                    "end_hour_local": 6,
                    "utc_offset_hours": SINGAPORE_UTC_OFFSET_H,
                },
                "notes": A + "40,000 customer files a night (0.46 req/s averaged over the day), all queued in an "
                "8-hour window (1.4 req/s peak); 6,000-token document bundles, 800-token structured extraction; "
                "a failed extraction costs $2 of analyst rework; customer data: sovereign. Runs in the "
                "22:00–06:00 Singapore night window, in the troughs of the daytime work.",
            },
            {
                "id": "onboarding-checks",
                "name": "Real-time onboarding checks",
                "avg_requests_per_s": 0.05,
                "peak_requests_per_s": 0.3,
                "input_tokens": 2500,
                "output_tokens": 300,
                "ttft_slo_s": 1.0,
                "tpot_slo_s": 0.03,
                "sovereign": True,
                "failure_cost_usd": 5.0,
                "demand_profile": SINGAPORE_BUSINESS_HOURS,
                "notes": A + "about 4,300 checks a day while a customer waits in the app (peak 0.3 req/s); "
                "TTFT ≤ 1 s and ≤ 30 ms per token; a wrong check sends the case to manual review ($5); "
                "personal data: sovereign.",
            },
            {
                "id": "lc-clearing",
                "name": "Letter-of-credit clearing",
                "avg_requests_per_s": 0.01,
                "peak_requests_per_s": 0.1,
                "input_tokens": 8000,
                "output_tokens": 600,
                "ttft_slo_s": 2.0,
                "tpot_slo_s": 0.025,
                "sovereign": True,
                "failure_cost_usd": 25.0,
                "demand_profile": SINGAPORE_BUSINESS_HOURS,
                "notes": A + "about 860 trade documents a day checked while the desk waits (peak 0.1 req/s); "
                "8,000-token LC packs; TTFT ≤ 2 s, ≤ 25 ms per token; a missed discrepancy costs $25 in "
                "delays and rework; client data: sovereign.",
            },
            {
                "id": "code-completion",
                "name": "Code completion for 300 developers",
                "avg_requests_per_s": 0.5,
                "peak_requests_per_s": 2.0,
                "input_tokens": 1500,
                "output_tokens": 40,
                "ttft_slo_s": 0.3,
                "tpot_slo_s": 0.008,
                "sovereign": False,
                "failure_cost_usd": 0.02,
                "notes": A + "300 developers, about 43,000 completions a day (peak 2 req/s); tiny 40-token "
                "suggestions that must appear within 0.3 s at ≤ 8 ms per token; a rejected suggestion costs "
                "2 cents of developer time (docs/routing.md#routing-rule autocomplete); internal code is not "
                "customer data.",
            },
            {
                "id": "analyst-research",
                "name": "Analyst research (frontier reasoning)",
                "avg_requests_per_s": 0.02,
                "peak_requests_per_s": 0.1,
                "input_tokens": 8000,
                "output_tokens": 1000,
                "ttft_slo_s": 10.0,
                "sovereign": False,
                "failure_cost_usd": 20.0,
                "quality_overrides": {
                    "owned-70b-ar": 0.75,
                    "owned-8b-ar": 0.55,
                    "owned-8b-diffusion": 0.45,
                    "hosted-70b-api": 0.75,
                    "mercury-api": 0.6,
                    "frontier-api": 0.95,
                },
                "notes": A + "about 1,700 research questions a day on public market data (not sovereign); "
                "8,000 tokens in, 1,000 out; a wrong answer costs $20 of analyst time; qualities on this "
                "hard-reasoning task family: frontier 0.95, 70B 0.75, 8B 0.55, LLaDA 0.45, Mercury 0.6.",
            },
        ],
    }


#: The rented nodes' display names: GPU count, GPU, provider and how it is paid for, no instance codes.
RUNPOD = "Rented 8× H100 (RunPod Secure Cloud, per GPU-hour)"
AWS_ON_DEMAND = "Rented 8× H100 (AWS, on demand)"
AWS_SPOT = "Rented 1× H100 (AWS spot, no on-demand fallback)"
GCP_1Y = "Rented 8× H100 (Google Cloud, 1-year commitment)"


def rented_node(catalog: Catalog, node_id: str, name: str, price_id: str, gpus_per_node: int = 8) -> dict[str, Any]:
    row = catalog.instance_price_as_of(price_id, REVIEW_DATE)
    return {
        "kind": "rented",
        "id": node_id,
        "name": name,
        "gpu_id": row.gpu_id,
        "gpus_per_node": gpus_per_node,
        "price_usd_per_gpu_hour": row.usd_per_gpu_hour,
        "pricing_type": row.pricing_type,
        "price_id": price_id,
        "source": row.source,
        "as_of": row.as_of.isoformat(),
        "billing": terms.terms().model_dump() if (terms := billing_terms().get(price_id)) is not None else None,
    }


def owned_models(catalog: Catalog, node_id: str, where: str, gpus_70b: int = 8) -> list[dict[str, Any]]:
    """The three owned options every preset offers: 70B and 8B AR with speculation, and LLaDA-8B diffusion, on
    node ``node_id``. ``where`` names that node in a finance reader's words (e.g. "rented, AWS on demand"): the
    option's display name carries it, its id and node_id keep the node's id for traceability."""
    return [
        {
            "id": f"{node_id}-70b-ar",
            "name": f"70B, AR + EAGLE ({gpus_70b} GPUs, {where})",
            "node_id": node_id,
            "model_id": "llama-3.1-70b",
            "gpus_per_replica": gpus_70b,
            "scheme": {"kind": "ar"},
            "speculation": catalog.speculative["eagle-chain"].model_dump(),
            "quality": 0.90,
        },
        {
            "id": f"{node_id}-8b-ar",
            "name": f"8B, AR + EAGLE-3 (1 GPU, {where})",
            "node_id": node_id,
            "model_id": "llama-3.1-8b",
            "gpus_per_replica": 1,
            "scheme": {"kind": "ar"},
            "speculation": catalog.speculative["eagle3-tree"].model_dump(),
            "quality": 0.86,
        },
        {
            "id": f"{node_id}-8b-diffusion",
            "name": f"LLaDA-8B diffusion (1 GPU, {where})",
            "node_id": node_id,
            "model_id": "llada-8b",
            "gpus_per_replica": 1,
            "scheme": catalog.diffusion["fast-dllm-like"].model_dump(),
            "quality": llada_quality(catalog),
        },
    ]


def startup(catalog: Catalog) -> dict[str, Any]:
    """A startup renting GPUs by the hour, no sovereignty constraint: every workload may go to an API."""
    return {
        "name": "Startup renting H100s, no sovereignty constraint",
        "description": (
            "A 40-person SaaS startup with an in-app assistant, an agent product and nightly ticket summaries. "
            "It rents H100s (AWS p5 on demand or a RunPod Secure Cloud GPU by the hour) or calls APIs; nothing "
            "is sovereign. Two more ways to rent are on the table: AWS spot GPUs (no on-demand fallback, so only "
            "the nightly batch may use them) and a GCP 1-year commitment. "
            + A
            + "Volumes, SLOs, failure costs and qualities are illustrative: owned-model qualities as in the bank "
            "preset (70B 0.90, 8B 0.86, LLaDA-8B 0.80), GPT-5 0.96, GPT-5 mini 0.90, hosted 70B 0.90. Rented "
            "prices are the catalog's on the review date; API latencies are typical values, not SLAs."
        ),
        "review_date": REVIEW_DATE.isoformat(),
        "policy": {"lens": "cash"},
        "gpus": [catalog.gpus["h100-sxm"].model_dump()],
        "models": [catalog.models[m].model_dump() for m in ("llama-3.1-70b", "llama-3.1-8b", "llada-8b")],
        "nodes": [
            # display names in plain words (GPU count, GPU, provider, how it is paid for); the instance type
            # and the marketplace offer stay in the node's id, price_id and source
            rented_node(catalog, "runpod", RUNPOD, "runpod-h100-secure", gpus_per_node=8),
            rented_node(catalog, "aws-p5", AWS_ON_DEMAND, "aws-p5.48xlarge-on-demand"),
            rented_node(catalog, "aws-spot", AWS_SPOT, "aws-p5.4xlarge-spot", 1),
            rented_node(catalog, "gcp-reserved", GCP_1Y, "gcp-a3-highgpu-8g-reserved-1y"),
        ],
        "owned_options": owned_models(catalog, "runpod", "rented, RunPod by the GPU-hour")
        + owned_models(catalog, "aws-p5", "rented, AWS on demand")[:1]
        + owned_models(catalog, "aws-spot", "rented, AWS spot")[1:2]
        + owned_models(catalog, "gcp-reserved", "rented, Google Cloud 1-year commitment")[:2],
        "apis": [
            api(
                catalog,
                "gpt-5",
                "openai-gpt-5",
                name="GPT-5 API",
                quality=0.96,
                ttft_s=1.0,
                tokens_per_s=70.0,
                note="quality 0.96, typical TTFT 1.0 s and 70 tok/s",
            ),
            api(
                catalog,
                "gpt-5-mini",
                "openai-gpt-5-mini",
                name="GPT-5 mini API",
                quality=0.90,
                ttft_s=0.6,
                tokens_per_s=120.0,
                note="quality 0.90, typical TTFT 0.6 s and 120 tok/s",
            ),
            api(
                catalog,
                "hosted-70b",
                "together-llama-3.1-70b-turbo",
                name="Hosted Llama-70B API (Together)",
                quality=0.90,
                ttft_s=0.5,
                tokens_per_s=80.0,
                note="quality 0.90, typical TTFT 0.5 s and 80 tok/s",
            ),
        ],
        "workloads": [
            {
                "id": "assistant-chat",
                "name": "In-app assistant chat",
                "avg_requests_per_s": 3.0,
                "peak_requests_per_s": 10.0,
                "input_tokens": 2000,
                "output_tokens": 400,
                "ttft_slo_s": 1.5,
                "tpot_slo_s": 0.04,
                "prompt_cache_hit_rate": 0.5,
                "failure_cost_usd": 0.10,
                "notes": A + "260k chats a day, 3x peak-to-average; half of each prompt is a cached system "
                "prompt; a bad answer costs 10 cents of churn risk.",
            },
            {
                "id": "agent-steps",
                "name": "Agent tool-calling steps",
                "avg_requests_per_s": 1.0,
                "peak_requests_per_s": 4.0,
                "input_tokens": 8000,
                "output_tokens": 300,
                "ttft_slo_s": 2.0,
                "tpot_slo_s": 0.03,
                "prompt_cache_hit_rate": 0.7,
                "failure_cost_usd": 1.0,
                "max_attempts": 2,
                "quality_overrides": {"runpod-8b-ar": 0.70, "runpod-8b-diffusion": 0.62, "gpt-5-mini": 0.88},
                "notes": A + "86k agent steps a day on long, mostly cached contexts; a failed step is detected "
                "and retried once; an unrecovered failure costs $1; the 8B models struggle with tool calls.",
            },
            {
                "id": "ticket-summaries",
                "name": "Nightly support-ticket summaries",
                "avg_requests_per_s": 2.0,
                "peak_requests_per_s": 6.0,
                "input_tokens": 3000,
                "output_tokens": 250,
                "deadline_s": 24 * HOUR,
                "failure_cost_usd": 0.05,
                "notes": A + "170k tickets a day, summarised within 24 hours (so API batch tiers qualify); "
                "a poor summary costs 5 cents.",
            },
        ],
    }


def batch_shop(catalog: Catalog) -> dict[str, Any]:
    """A high-volume document-processing shop that owns two 8×H100 nodes and can buy more."""
    return {
        "name": "High-volume batch shop with two owned 8×H100 nodes",
        "description": (
            "A document-processing company: invoices, contracts and e-mail triage for its clients, all "
            "batchable within hours. It owns two 8×H100 nodes and may buy more; client contracts forbid "
            "sending contracts to third-party APIs. "
            + A
            + "Volumes, deadlines, failure costs and qualities are illustrative; owned nodes use the "
            "docs/costs.md#node-cost defaults; owned-model qualities as in the bank preset; GPT-5 mini 0.90, "
            "Gemini 2.5 Flash 0.88, hosted 70B 0.90 with batch tiers where the provider has one."
        ),
        "review_date": REVIEW_DATE.isoformat(),
        "gpus": [catalog.gpus["h100-sxm"].model_dump()],
        "models": [catalog.models[m].model_dump() for m in ("llama-3.1-70b", "llama-3.1-8b", "llada-8b")],
        "nodes": [owned_node("dc", "Owned 8×H100 nodes", 2)],
        "owned_options": owned_models(catalog, "dc", "owned node"),
        "apis": [
            api(
                catalog,
                "gpt-5-mini",
                "openai-gpt-5-mini",
                name="GPT-5 mini API",
                quality=0.90,
                ttft_s=0.6,
                tokens_per_s=120.0,
                note="quality 0.90, typical TTFT 0.6 s and 120 tok/s",
            ),
            api(
                catalog,
                "gemini-flash",
                "google-gemini-2.5-flash",
                name="Gemini 2.5 Flash API",
                quality=0.88,
                ttft_s=0.5,
                tokens_per_s=200.0,
                note="quality 0.88, typical TTFT 0.5 s and 200 tok/s",
            ),
            api(
                catalog,
                "hosted-70b",
                "fireworks-llama-3.3-70b",
                name="Hosted Llama-70B API (Fireworks)",
                quality=0.90,
                ttft_s=0.5,
                tokens_per_s=90.0,
                note="quality 0.90, typical TTFT 0.5 s and 90 tok/s",
            ),
        ],
        "workloads": [
            {
                "id": "invoice-extraction",
                "name": "Invoice field extraction",
                "avg_requests_per_s": 40.0,
                "peak_requests_per_s": 60.0,
                "input_tokens": 1500,
                "output_tokens": 200,
                "deadline_s": 4 * HOUR,
                "failure_cost_usd": 0.05,
                "notes": A + "3.5 million invoices a day, each due within 4 hours; a wrong field costs 5 cents "
                "of manual correction.",
            },
            {
                "id": "contract-review",
                "name": "Contract clause review",
                "avg_requests_per_s": 5.0,
                "peak_requests_per_s": 10.0,
                "input_tokens": 12000,
                "output_tokens": 600,
                "deadline_s": 24 * HOUR,
                "sovereign": True,
                "failure_cost_usd": 1.0,
                "notes": A + "430k contracts a day, due next day; client contracts forbid third-party APIs "
                "(modelled as sovereign); a missed clause costs $1.",
            },
            {
                "id": "email-triage",
                "name": "E-mail triage labels",
                "avg_requests_per_s": 20.0,
                "peak_requests_per_s": 50.0,
                "input_tokens": 600,
                "output_tokens": 30,
                "deadline_s": HOUR,
                "failure_cost_usd": 0.01,
                "notes": A + "1.7 million e-mails a day labelled within the hour; a wrong label costs 1 cent.",
            },
        ],
    }


PRESETS = {"singapore-bank": bank, "startup-rented": startup, "batch-shop": batch_shop}


# ---- edge-case presets (issue 15): every page must work with no owned hardware and with one workload ----


def api_only(catalog: Catalog) -> dict[str, Any]:
    """The bank's workloads with no node: every workload on an API (sovereignty off, it needs owned hardware)."""
    s = bank(catalog)
    s["name"] = "API only: no owned hardware, five workloads on APIs"
    s["description"] = (
        "The Singapore bank's five workloads with no owned or rented node: every workload runs on its best API. "
        + A
        + "Same volumes, SLOs, failure costs and API prices as the singapore-bank preset; sovereignty is switched "
        "off because sovereign data needs owned hardware. An edge case every page must handle: pages that price "
        "owned hardware say there is none."
    )
    s["nodes"], s["owned_options"] = [], []
    s["workloads"] = [{**w, "sovereign": False, "quality_overrides": {}} for w in s["workloads"]]
    return s


def single_workload(catalog: Catalog) -> dict[str, Any]:
    """The bank with its overnight KYC batch only: every chart and table with one row."""
    s = bank(catalog)
    s["name"] = "Single workload: the overnight KYC batch on one owned 8×H100 node"
    s["description"] = (
        "The Singapore bank with one workload only, the sovereign overnight KYC document batch. "
        + A
        + "Same node, models, APIs and workload inputs as the singapore-bank preset. An edge case every page "
        "must handle: every chart and table with a single row."
    )
    s["workloads"] = s["workloads"][:1]
    return s


PRESETS.update({"api-only": api_only, "single-workload": single_workload})


def build(catalog: Catalog) -> dict[str, str]:
    out = {}
    for preset_id, make in PRESETS.items():
        scenario = Scenario.model_validate(make(catalog))
        scenario = reprice(scenario, catalog, scenario.review_date)
        out[preset_id] = preset_json(scenario)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a preset file differs")
    args = parser.parse_args()
    built = build(load_catalog())
    stale = []
    for preset_id, text in built.items():
        path = PRESET_DIR / f"{preset_id}.json"
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
        else:
            PRESET_DIR.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    for path in stale:
        print(f"{path} is out of date: run scripts/build_scenarios.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
