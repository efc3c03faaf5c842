"""Parsers for benchmark result files (see :mod:`economics.io`)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

from pydantic import Field, ValidationError

from economics._base import Frozen
from economics.hardware import Precision

#: Largest benchmark file read [B]. A summary is a few KB; per-request arrays make a result large (vLLM
#: --save-detailed keeps every inter-token latency: ~27 MB for 1,000 prompts of 1,024 output tokens).
MAX_FILE_BYTES = 8_000_000
#: Largest number of points one file may give [count].
MAX_POINTS = 10_000

Format = Literal["vllm", "sglang", "genai-perf", "llmperf", "guidellm", "csv"]


class BenchmarkFormatError(ValueError):
    """A benchmark file that cannot be read: names the file, the line or key, and the reason."""

    def __init__(self, file: str, where: str, reason: str) -> None:
        self.file, self.where, self.reason = file, where, reason
        super().__init__(f"{file}: {where}: {reason}")


class RunContext(Frozen):
    """What the benchmark ran on, for files that do not say (vLLM, SGLang, GenAI-Perf, LLMPerf, GuideLLM)."""

    model_id: str = Field(min_length=1, max_length=64, description="catalog model id [-]")
    gpu_id: str = Field(min_length=1, max_length=64, description="catalog GPU id [-]")
    gpus: int = Field(default=1, ge=1, le=1024, description="GPUs of the replica [count]")
    precision: Precision = Field(default="bf16", description="serving precision [-]")
    engine: str = Field(default="vllm", min_length=1, max_length=64, description="engine id [-]")


class BenchmarkPoint(Frozen):
    """One measured operating point: closed-loop concurrency (``None`` = all requests at once)."""

    model_id: str = Field(min_length=1, max_length=64, description="catalog model id [-]")
    gpu_id: str = Field(min_length=1, max_length=64, description="catalog GPU id [-]")
    gpus: int = Field(ge=1, le=1024, description="GPUs of the replica [count]")
    precision: Precision = Field(description="serving precision [-]")
    engine: str = Field(min_length=1, max_length=64, description="engine id [-]")
    input_tokens: float = Field(ge=1, le=10_000_000, description="mean prompt length [tokens]")
    output_tokens: float = Field(ge=1, le=10_000_000, description="mean output length [tokens]")
    concurrency: float | None = Field(gt=0, le=1_000_000, description="clients; None = all at once [count]")
    output_tokens_per_s: float = Field(gt=0, le=1e9, description="measured output tokens per second [tok/s]")
    source: str = Field(max_length=300, description="file and line or record it came from [-]")
    file_model: str = Field(default="", max_length=200, description="the model the file itself names, as written [-]")


def _no_constants(name: str) -> Any:
    """``NaN``/``Infinity`` (Python's json extension; SGLang writes ``request_rate: Infinity``) read as "not
    given": a required key holding one is then reported missing, never used as a number."""
    return None


def _loads(file: str, text: str, where: str) -> Any:
    try:
        return json.loads(text, parse_constant=_no_constants)
    except ValueError as exc:
        raise BenchmarkFormatError(file, where, f"not valid JSON ({exc})") from None
    except RecursionError:
        raise BenchmarkFormatError(file, where, "not valid JSON (nested too deeply)") from None


def _num(file: str, where: str, data: Mapping[str, Any], *keys: str, required: bool = True) -> float | None:
    """The first of ``keys`` present: a finite number, or a ``{"avg": x}`` / ``{"value": x}`` metric block."""
    for key in keys:
        if key not in data or data[key] is None:
            continue
        value = data[key]
        if isinstance(value, Mapping):
            value = value.get("avg", value.get("value"))
        if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
            raise BenchmarkFormatError(file, f"{where}key '{key}'", f"expected a finite number, got {_short(value)}")
        return float(value)
    if required:
        raise BenchmarkFormatError(file, f"{where}key '{keys[0]}'", "missing")
    return None


def _finite(value: int | float) -> bool:
    """A number a float can hold: a 400-digit integer in a file overflowed float() with a traceback."""
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _short(value: Any) -> str:
    """``repr`` of a value from a file, cut to 40 characters (a 400-digit number is not repeated whole)."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _named(value: Any) -> str:
    """The model a file names (a string, or the first of a list of strings), '' when it names none."""
    if isinstance(value, list) and value:
        value = value[0]
    return value.strip()[:200] if isinstance(value, str) else ""


def _point(file: str, where: str, ctx: RunContext, t_in: float, t_out: float, conc: float | None,
           tok_s: float, named: str = "") -> BenchmarkPoint:  # fmt: skip
    if conc is not None and conc <= 0:  # -5 or 0 clients was read as "every request at once", a silent wrong fit
        raise BenchmarkFormatError(file, where or "file", f"concurrency {conc:g} must be more than 0 (leave it out "
                                   "for a run that sent every request at once)")  # fmt: skip
    try:
        return BenchmarkPoint(
            model_id=ctx.model_id, gpu_id=ctx.gpu_id, gpus=ctx.gpus, precision=ctx.precision, engine=ctx.engine,
            input_tokens=t_in, output_tokens=t_out, concurrency=conc,
            output_tokens_per_s=tok_s, source=f"{file} {where}".strip()[:300], file_model=named,
        )  # fmt: skip
    except ValidationError as exc:
        err = exc.errors()[0]
        raise BenchmarkFormatError(file, where or "file", f"{err['loc'][0]}: {err['msg']}") from None


def _in_flight(requests_per_s: float | None, latency_ms: float | None) -> float | None:
    """Mean requests in flight ``N = λ·W`` (Little's law) [count], or None without both figures. The model is a
    closed loop of ``N`` clients, so a run that states no concurrency (an open-loop run at a set request rate,
    an export that does not record its client count) is read at the load the server actually carried."""
    if not requests_per_s or not latency_ms or requests_per_s <= 0 or latency_ms <= 0:
        return None
    return requests_per_s * latency_ms / 1000.0


def _littles_law(file: str, where: str, requests_per_s: float | None, latency_ms: float | None, why: str) -> float:
    """:func:`_in_flight` of a run that needs it; a file without the two figures is refused with ``why``."""
    n = _in_flight(requests_per_s, latency_ms)
    if n is None:
        raise BenchmarkFormatError(file, where or "file", f"{why}, and no request throughput and mean request "
                                   "latency to read the requests in flight from (Little's law)")  # fmt: skip
    return n


#: How the tools write an unlimited request rate: vLLM ``"inf"``, SGLang the JSON extension ``Infinity`` (read
#: as None by :func:`_loads`), a hand-edited file ``"Infinity"``.
_UNLIMITED = frozenset({"inf", "+inf", "infinity", "+infinity"})


def _request_rate(file: str, where: str, rec: Mapping[str, Any]) -> float | None:
    """The run's set request rate [req/s], or None for "all at once" (``inf``, ``"inf"``, JSON ``Infinity``
    or absent); any other value (``"4"``, ``true``, 0) is refused, never read as "all at once"."""
    rate = rec.get("request_rate")
    if rate is None or (isinstance(rate, str) and rate.strip().lower() in _UNLIMITED):
        return None
    bad = isinstance(rate, bool) or not isinstance(rate, int | float) or rate <= 0
    if bad or (rate != math.inf and not _finite(rate)):
        raise BenchmarkFormatError(file, f"{where}key 'request_rate'", f"expected a positive number or \"inf\", "
                                   f"got {_short(rate)}")  # fmt: skip
    return float(rate) if math.isfinite(rate) else None


#: The keys every SGLang ``bench_one_batch`` (before it, ``bench_latency``) result line has.
_ONE_BATCH_KEYS = frozenset({"batch_size", "input_len", "output_len"})


def _one_batch_record(file: str, where: str, rec: Mapping[str, Any], ctx: RunContext) -> BenchmarkPoint:
    """An SGLang ``bench_one_batch --result-filename`` line: one static batch of ``batch_size`` requests of
    ``input_len`` prompt tokens, prefilled together, then decoded for ``output_len`` tokens each, with no server or
    scheduler. Read as ``batch_size`` requests in flight at ``output_len × batch_size / total_latency`` output
    tokens per second, prefill included, as a serving run's output throughput counts its whole duration (its
    ``median_decode_throughput`` leaves the prefill out; ``overall_throughput`` counts prompt tokens too).

    ``bench_one_batch_server`` (the same batch sent to a running server at once) writes its wall time as
    ``latency`` [s] and is read the same way. Its own ``output_throughput`` divides by ``latency − last_ttft``
    (decode only), and 2024 versions wrote values no run can give (2.1 M tok/s for 8,192 × 100 tokens in 70 s),
    so it is not used."""
    batch = _num(file, where, rec, "batch_size")
    t_in = _num(file, where, rec, "input_len")
    t_out = _num(file, where, rec, "output_len")
    total_s = _num(file, where, rec, "total_latency", "overall_latency", "latency")
    if not batch or batch < 1 or not float(batch).is_integer():
        raise BenchmarkFormatError(file, f"{where}key 'batch_size'", f"expected a whole number of requests, got "
                                   f"{_short(rec.get('batch_size'))}")  # fmt: skip
    if not total_s or total_s <= 0:
        raise BenchmarkFormatError(file, f"{where}key 'total_latency'", "must be more than 0 seconds")
    tok_s = t_out * batch / total_s  # type: ignore[operator]
    return _point(file, where, ctx, t_in or 0.0, t_out or 0.0, batch, tok_s)


def _offline_record(file: str, where: str, rec: Mapping[str, Any], ctx: RunContext) -> BenchmarkPoint:
    """An SGLang ``bench_offline_throughput --result-filename`` line: every prompt handed to the engine at once
    (``None``: all at once), its ``output_throughput`` (generated tokens over the run), lengths from the totals
    over ``successful_requests``."""
    done = _num(file, where, rec, "successful_requests")
    if not done or done <= 0:
        raise BenchmarkFormatError(file, f"{where}key 'successful_requests'", "no successful requests")
    t_in = _num(file, where, rec, "total_input_tokens") / done  # type: ignore[operator]
    t_out = _num(file, where, rec, "total_output_tokens") / done  # type: ignore[operator]
    tok_s = _num(file, where, rec, "output_throughput")
    return _point(file, where, ctx, max(t_in, 1.0), max(t_out, 1.0), None, tok_s or 0.0)


def _serving_record(file: str, where: str, rec: Mapping[str, Any], ctx: RunContext) -> BenchmarkPoint:
    """A vLLM ``save_result`` or SGLang ``bench_serving`` record (same key names for the totals), or an SGLang
    ``bench_one_batch`` or ``bench_offline_throughput`` line (:func:`_one_batch_record`, :func:`_offline_record`).

    Concurrency: a run at a finite ``request_rate`` (Poisson arrivals) is read at its mean requests in flight,
    request throughput × mean end-to-end latency (``mean_e2e_latency_ms`` of SGLang, ``mean_e2el_ms`` of vLLM,
    else ``mean_ttft_ms + (T_out − 1)·mean_tpot_ms``), at most its ``max_concurrency``; at ``request_rate`` inf,
    ``max_concurrency`` clients, or with no limit every request at once (``None``).

    A burst, a run with no more prompts than its ``max_concurrency`` (200 prompts at 200), is read at its mean
    requests in flight too: every request started at once and none replaced a finished one, so the limit never
    bound and the load fell as requests finished (SGLang measured 61 in flight on such a run). A run whose
    limit bound is read at the limit, the closed loop it held."""
    if rec.keys() >= _ONE_BATCH_KEYS and "completed" not in rec:
        return _one_batch_record(file, where, rec, ctx)
    if "successful_requests" in rec and "completed" not in rec:
        return _offline_record(file, where, rec, ctx)
    _not_a_serving_run(file, where, rec)
    completed = _num(file, where, rec, "completed")
    if not completed or completed <= 0:
        raise BenchmarkFormatError(file, f"{where}key 'completed'", "no completed requests")
    t_in = _num(file, where, rec, "total_input_tokens", "total_input") / completed  # type: ignore[operator]
    t_out = _num(file, where, rec, "total_output_tokens", "total_output") / completed  # type: ignore[operator]
    tok_s = _num(file, where, rec, "output_throughput")
    conc = _serving_concurrency(file, where, rec, completed, t_out)
    named = _named(rec.get("model_id")) or _named(rec.get("model")) or _server_model(rec.get("server_info"))
    said = where + _failed_note(file, where, rec, completed)
    return _point(file, said, ctx, max(t_in, 1.0), max(t_out, 1.0), conc, tok_s or 0.0, named)


def _failed_note(file: str, where: str, rec: Mapping[str, Any], completed: float) -> str:
    """The run line's note when a serving run lost requests, "(3 of 200 requests failed) ", else '': its
    ``failed`` count (vLLM from 0.9, SGLang), else ``num_prompts`` less ``completed`` (older vLLM wrote no
    ``failed``). The run is still read (its throughput is what the server delivered), and the note stays with the
    point, in its "Run" line."""
    failed = _num(file, where, rec, "failed", required=False)
    prompts = _num(file, where, rec, "num_prompts", required=False)
    if failed is None and prompts is not None:
        failed = max(prompts - completed, 0.0)
    if not failed or failed <= 0:
        return ""
    total = prompts if prompts is not None and prompts >= failed else completed + failed
    return f"({failed:g} of {total:g} requests failed) "


def _serving_concurrency(file: str, where: str, rec: Mapping[str, Any], completed: float, t_out: float
                         ) -> float | None:  # fmt: skip
    """The clients of a vLLM/SGLang serving record (:func:`_serving_record`): its limit, or its mean requests in
    flight for a run at a set rate or a burst; None for every request at once."""
    limit = _num(file, where, rec, "max_concurrency", required=False)
    # SGLang writes no num_prompts: its requests are the completed ones and the failed ones it counts, if any
    prompts = _num(file, where, rec, "num_prompts", required=False)
    if prompts is None and "num_prompts" not in rec:
        prompts = completed + (_num(file, where, rec, "failed", required=False) or 0.0)
    burst = limit is not None and prompts is not None and 0 < prompts <= limit
    if burst:
        limit = prompts  # --max-concurrency 64 with 10 prompts never had more than 10 in flight
    rate = _request_rate(file, where, rec)
    conc = limit
    if rate is not None or burst:
        e2e_ms = _num(file, where, rec, "mean_e2e_latency_ms", "mean_e2el_ms", required=False)
        if e2e_ms is None:
            ttft_ms = _num(file, where, rec, "mean_ttft_ms", required=False)
            tpot_ms = _num(file, where, rec, "mean_tpot_ms", required=False)
            if ttft_ms is not None and tpot_ms is not None:
                e2e_ms = ttft_ms + max(t_out - 1.0, 0.0) * tpot_ms
        req_s = _num(file, where, rec, "request_throughput", required=False)
        if req_s is None:  # SGLang before its request_throughput key: completed over the run's duration [s]
            duration_s = _num(file, where, rec, "duration", required=False)
            req_s = completed / duration_s if duration_s and duration_s > 0 else None
        if limit is None:
            conc = _littles_law(file, f"{where}key 'request_rate'", req_s, e2e_ms,
                                f"a run at {rate:g} requests per second with no max_concurrency")  # fmt: skip
        else:  # at a set rate, or a burst whose limit never bound: the requests in flight, at most the limit
            conc = min(limit, _in_flight(req_s, e2e_ms) or limit)
    return conc


def _server_model(info: Any) -> str:
    """The model an SGLang ``bench_serving`` line names in its ``server_info`` (v0.5: no ``model_id`` key):
    ``model_path`` there, or in its first ``internal_states`` entry; '' when it names none."""
    if not isinstance(info, Mapping):
        return ""
    states = info.get("internal_states")
    first = states[0] if isinstance(states, list) and states and isinstance(states[0], Mapping) else {}
    return _named(info.get("model_path")) or _named(first.get("model_path"))


def _not_a_serving_run(file: str, where: str, rec: Mapping[str, Any]) -> None:
    """Refuse the results of vLLM/SGLang runs that give no single closed-loop operating point, or no output
    tokens, before their keys are read as one.

    - ``ramp_up_strategy`` (vLLM ``--ramp-up-strategy``): the request rate climbed during the run, so its
      totals average many loads;
    - a pooling/embedding run (vLLM ``total_input_sequences``, no ``output_throughput``): no output tokens;
    - vLLM ``benchmark_throughput.py`` (``requests_per_second``/``tokens_per_second``, no ``completed``): an
      offline batch whose ``tokens_per_second`` counts prompt and output tokens together.
    """
    ramp = rec.get("ramp_up_strategy")
    if ramp is not None:
        lo, hi = rec.get("ramp_up_start_rps"), rec.get("ramp_up_end_rps")
        raise BenchmarkFormatError(file, f"{where}key 'ramp_up_strategy'", f"a {ramp} ramp-up run (from {lo} to "
                                   f"{hi} requests per second) has no single load to fit: rerun at one request "
                                   "rate or --max-concurrency")  # fmt: skip
    if "output_throughput" not in rec and ("total_input_sequences" in rec or "input_sequence_throughput" in rec):
        raise BenchmarkFormatError(file, f"{where}key 'output_throughput'", "missing: a pooling/embedding run "
                                   "generates no output tokens")  # fmt: skip
    if "completed" not in rec and "tokens_per_second" in rec and "requests_per_second" in rec:
        raise BenchmarkFormatError(file, f"{where}key 'tokens_per_second'", "an offline benchmark_throughput "
                                   "result (prompt and output tokens together, no concurrency): give a "
                                   "benchmark_serving / vllm bench serve --save-result file")  # fmt: skip


def _vllm(file: str, text: str, ctx: RunContext) -> list[BenchmarkPoint]:
    """A vLLM ``--save-result`` JSON object, or the list of them ``vllm bench sweep`` writes to its
    ``summary.json`` (every run's summary keys, plus the sweep's own: ``run_number``, ``max_num_seqs``, …), a
    point per run ("run 2", counted from 1)."""
    data = _loads(file, text, "file")
    if isinstance(data, list) and data:
        points = []
        for i, rec in enumerate(data, start=1):
            if not isinstance(rec, Mapping):
                raise BenchmarkFormatError(file, f"run {i}", "expected a JSON object (a run's summary)")
            points.append(_serving_record(file, f"run {i} ", rec, ctx))
        return points
    if not isinstance(data, Mapping):
        raise BenchmarkFormatError(file, "file", "expected one JSON object (vLLM save_result)")
    return [_serving_record(file, "", data, ctx)]


def _sglang(file: str, text: str, ctx: RunContext) -> list[BenchmarkPoint]:
    points = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        rec = _loads(file, line, f"line {line_no}")
        if not isinstance(rec, Mapping):
            raise BenchmarkFormatError(file, f"line {line_no}", "expected a JSON object per line")
        points.append(_serving_record(file, f"line {line_no} ", rec, ctx))
    if not points:
        raise BenchmarkFormatError(file, "file", "no result lines")
    return points


#: Milliseconds in one of each latency unit GenAI-Perf and AIPerf write (early GenAI-Perf: ns) [ms].
_MS_PER = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1000.0, "sec": 1000.0}
#: Units read as output tokens per second, and as requests per second (old GenAI-Perf CSVs: "per sec") [-].
_TOKENS_PER_S = frozenset({"tokens/sec", "tokens/s", "tokens per second", "tok/s", "per sec"})
_REQUESTS_PER_S = frozenset({"requests/sec", "requests/s", "req/s", "requests per second", "per sec"})


def _unit(data: Mapping[str, Any], key: str) -> str | None:
    """The ``unit`` of a GenAI-Perf / AIPerf metric block, lower case, or None when it gives none."""
    block = data.get(key)
    unit = block.get("unit") if isinstance(block, Mapping) else None
    return unit.strip().lower() if isinstance(unit, str) and unit.strip() else None


def _check_unit(file: str, where: str, unit: str | None, allowed: frozenset[str], what: str) -> None:
    if unit is not None and unit not in allowed:
        raise BenchmarkFormatError(file, where, f"unit {unit!r} is not {what}")


def _latency_ms(file: str, where: str, value: float | None, unit: str | None) -> float | None:
    """A latency in the unit the export states, in milliseconds (no unit: GenAI-Perf's ms) [ms]."""
    if value is None or unit is None:
        return value
    if unit not in _MS_PER:
        raise BenchmarkFormatError(file, where, f"unknown time unit {unit!r} (expected ns, ms or s)")
    return value * _MS_PER[unit]


def _genai_perf_json(file: str, text: str, ctx: RunContext) -> list[BenchmarkPoint]:
    """GenAI-Perf ``profile_export_genai_perf.json`` / AIPerf ``profile_export_aiperf.json``: metric blocks
    ``{"unit": …, "avg": …}`` and the run's ``input_config`` (GenAI-Perf ≤ 0.0.10: the CLI arguments; from
    0.0.11, its config file: ``model_names``, ``perf_analyzer.stimulus``; AIPerf: ``endpoint.model_names``,
    ``loadgen``; AIPerf 0.1: the metric blocks under ``records``).

    Units are read from each block: a latency in ns or s is converted, a throughput in anything but tokens
    (requests) per second is refused. Concurrency: the configured client count; a request-rate run (no
    concurrency, or AIPerf ``loadgen.request_rate`` with ``concurrency`` as its cap) at its requests in flight
    by Little's law, at most the cap."""
    data = _loads(file, text, "file")
    if not isinstance(data, Mapping):
        raise BenchmarkFormatError(file, "file", "expected one JSON object (GenAI-Perf / AIPerf profile export)")
    records = data.get("records")
    if isinstance(records, Mapping) and "output_token_throughput" not in data:
        # AIPerf 0.1 (to October 2025) kept every metric block under "records", the run's input_config beside it
        data = {**records, **{k: v for k, v in data.items() if k != "records"}}
    _check_unit(file, "key 'output_token_throughput'", _unit(data, "output_token_throughput"), _TOKENS_PER_S,
                "output tokens per second")  # fmt: skip
    tok_s = _num(file, "", data, "output_token_throughput")
    t_in = _per_request(file, data, "input_sequence_length", "total_isl")
    t_out = _per_request(file, data, "output_sequence_length", "total_osl")
    if t_out is None:
        raise BenchmarkFormatError(file, "key 'output_sequence_length'", "missing")
    _check_unit(file, "key 'request_throughput'", _unit(data, "request_throughput"), _REQUESTS_PER_S,
                "requests per second")  # fmt: skip
    req_s = _num(file, "", data, "request_throughput", required=False)
    latency_ms = _latency_ms(file, "key 'request_latency'", _num(file, "", data, "request_latency", required=False),
                             _unit(data, "request_latency"))  # fmt: skip
    cfg = data.get("input_config")
    cfg = cfg if isinstance(cfg, Mapping) else {}
    conc = None
    analyzer = cfg.get("perf_analyzer")
    for block in (cfg, cfg.get("loadgen"), analyzer.get("stimulus") if isinstance(analyzer, Mapping) else None):
        if isinstance(block, Mapping) and block.get("concurrency") is not None:
            clients = _num(file, "input_config ", block, "concurrency") or 0.0  # true or "32" is refused
            rate = _num(file, "input_config ", block, "request_rate", required=False)
            if rate is not None and rate > 0:  # AIPerf: a set rate, the concurrency only its cap
                clients = min(clients, _in_flight(req_s, latency_ms) or clients)
            conc = clients
            break
    if conc is None:  # a request-rate run, or an export without its configuration
        conc = _littles_law(file, "key 'input_config'", req_s, latency_ms,
                            "no concurrency in the run's configuration")  # fmt: skip
    # GenAI-Perf: input_config.model (≤ 0.0.10) or model_names; AIPerf: input_config.endpoint.model_names
    endpoint = cfg.get("endpoint")
    named = (_named(cfg.get("model")) or _named(cfg.get("model_names"))
             or (_named(endpoint.get("model_names")) if isinstance(endpoint, Mapping) else ""))  # fmt: skip
    return [_point(file, "", ctx, t_in or 1.0, t_out, conc, tok_s or 0.0, named)]


def _per_request(file: str, data: Mapping[str, Any], mean_key: str, total_key: str) -> float | None:
    """A per-request mean (``mean_key``'s ``avg``), else AIPerf's run total (``total_key``) over
    ``request_count``."""
    mean = _num(file, "", data, mean_key, required=False)
    if mean is not None:
        return mean
    total = _num(file, "", data, total_key, required=False)
    if total is None:
        return None
    count = _num(file, "", data, "request_count", required=False)
    if not count or count <= 0:
        raise BenchmarkFormatError(file, "key 'request_count'", f"needed to read '{total_key}' per request: missing")
    return total / count


def _llmperf(file: str, text: str, ctx: RunContext) -> list[BenchmarkPoint]:
    """ray-project/llmperf ``*_summary.json`` (``token_benchmark_ray.py``, results flattened with ``results_``).

    Token counts are the measured means ``results_number_input_tokens_mean`` / ``…output_tokens_mean``: the
    top-level ``mean_input_tokens`` / ``mean_output_tokens`` are the lengths asked for (``--mean-input-tokens``),
    read only from a summary without the measured ones. LLMPerf's clients are a closed loop of
    ``num_concurrent_requests``; without it, the requests in flight by Little's law (its latencies are in s)."""
    data = _loads(file, text, "file")
    if not isinstance(data, Mapping):
        raise BenchmarkFormatError(file, "file", "expected one JSON object (LLMPerf summary)")
    if _LLMPERF_KEY not in data and data and all(isinstance(v, Mapping) and _LLMPERF_KEY in v for v in data.values()):
        # several summaries in one object, keyed by their run ("1", "2", … clients: llmperf-bench's results.json)
        return [_llmperf_summary(file, f"key '{_short(k)[1:-1]}' ", v, ctx) for k, v in data.items()]
    return [_llmperf_summary(file, "", data, ctx)]


#: The key every LLMPerf summary has: the mean output throughput [tok/s].
_LLMPERF_KEY = "results_mean_output_throughput_token_per_s"


def _llmperf_summary(file: str, where: str, data: Mapping[str, Any], ctx: RunContext) -> BenchmarkPoint:
    """One LLMPerf summary (:func:`_llmperf`); ``where`` names it in a file of several."""
    done = _num(file, where, data, "results_num_completed_requests", required=False)
    if done is not None and done <= 0:
        raise BenchmarkFormatError(file, f"{where}key 'results_num_completed_requests'", "no completed requests")
    errors = _num(file, where, data, "results_number_errors", required=False)
    if errors and errors > 0:  # the run is read as delivered; its line says requests failed
        started = _num(file, where, data, "results_num_requests_started", required=False)
        started = started if started is not None else (errors + done if done is not None else None)
        total = f" of {started:g}" if started is not None and started >= errors else ""
        where = f"{where}({errors:g}{total} requests failed) "
    tok_s = _num(file, where, data, _LLMPERF_KEY)
    t_in = _num(file, where, data, "results_number_input_tokens_mean", "mean_input_tokens")
    t_out = _num(file, where, data, "results_number_output_tokens_mean", "mean_output_tokens")
    conc = _num(file, where, data, "num_concurrent_requests", required=False)
    if conc is None:
        per_min = _num(file, where, data, "results_num_completed_requests_per_min", required=False)
        e2e_s = _num(file, where, data, "results_end_to_end_latency_s_mean", required=False)
        conc = _littles_law(file, f"{where}key 'num_concurrent_requests'", per_min / 60.0 if per_min else None,
                            e2e_s * 1000.0 if e2e_s else None, "missing")  # fmt: skip
    return _point(file, where.strip(), ctx, t_in or 1.0, t_out or 1.0, conc, tok_s or 0.0, _named(data.get("model")))


#: GuideLLM strategies whose clients are a closed loop of a known size: ``synchronous`` one request at a time,
#: ``concurrent`` its ``streams``. Every other (``throughput``, ``constant``, ``poisson``, a sweep's members,
#: ``trace``) sets a rate or none and is read at its requests in flight.
_GUIDELLM_CLOSED_LOOP = frozenset({"synchronous", "concurrent"})


def _guidellm(file: str, text: str, ctx: RunContext) -> list[BenchmarkPoint]:
    """GuideLLM ``guidellm benchmark --output-path benchmarks.json``: a report whose ``benchmarks`` are one run
    each (a sweep: synchronous, throughput, then constant rates), each read as one point ("benchmark 3",
    counted from 1).

    Versions: 0.2–0.3 (``{"benchmarks": […]}``: the strategy in ``args.strategy``, the counts in
    ``request_totals``, the model in ``worker.backend_model``); from 0.4 the strategy in ``config.strategy``,
    the counts in ``metrics.request_totals``, the model in ``config.backend.model`` (and the report's
    ``args.model``, from 0.7 its ``config.spec.backend.model``). Each metric is a distribution by request
    status; the ``successful`` ``mean`` is read: ``prompt_token_count``, ``output_token_count`` and
    ``output_tokens_per_second`` (output tokens over the measured time, all requests together).

    Concurrency: ``synchronous`` 1, ``concurrent`` its ``streams``; any other strategy at its requests in
    flight, ``requests_per_second`` × ``request_latency`` (GuideLLM's latency is in seconds), at most the
    strategy's ``max_concurrency``."""
    data = _loads(file, text, "file")
    if not isinstance(data, Mapping):
        raise BenchmarkFormatError(file, "file", "expected one JSON object (GuideLLM report)")
    benchmarks = data.get("benchmarks")
    if not isinstance(benchmarks, list):
        raise BenchmarkFormatError(file, "key 'benchmarks'", "missing: expected the report's list of benchmarks")
    if not benchmarks:
        raise BenchmarkFormatError(file, "key 'benchmarks'", "no benchmarks in the report (the run ended "
                                   "before its first benchmark completed)")  # fmt: skip
    args, cfg = data.get("args"), data.get("config")
    spec = cfg.get("spec") if isinstance(cfg, Mapping) else None
    backend = spec.get("backend") if isinstance(spec, Mapping) else None
    named = (_named(args.get("model")) if isinstance(args, Mapping) else "") or (
        _named(backend.get("model")) if isinstance(backend, Mapping) else "")  # fmt: skip
    return [_guidellm_benchmark(file, f"benchmark {i} ", bench, ctx, named) for i, bench in enumerate(benchmarks, 1)]


def _guidellm_mean(file: str, where: str, metrics: Mapping[str, Any], key: str, required: bool = True
                   ) -> float | None:  # fmt: skip
    """The ``successful`` requests' ``mean`` of GuideLLM metric ``key``, named by its path in errors."""
    block = metrics.get(key)
    summary = block.get("successful") if isinstance(block, Mapping) else None
    path = f"metrics.{key}.successful.mean"
    value = summary.get("mean") if isinstance(summary, Mapping) else None
    return _num(file, where, {path: value}, path, required=required)


def _guidellm_benchmark(file: str, where: str, bench: Any, ctx: RunContext, report_model: str) -> BenchmarkPoint:
    if not isinstance(bench, Mapping):
        raise BenchmarkFormatError(file, where.strip(), "expected a JSON object per benchmark")
    metrics = bench.get("metrics")
    if not isinstance(metrics, Mapping):
        if "results" in bench or "benchmarks" in bench or "requests" in bench:
            raise BenchmarkFormatError(file, f"{where}key 'metrics'", "missing: per-request results only (a "
                                       "GuideLLM 0.1 report, or one stripped of its metrics), no run summary: "
                                       "rerun with GuideLLM 0.2 or later and give its benchmarks.json")  # fmt: skip
        raise BenchmarkFormatError(file, f"{where}key 'metrics'", "missing")
    _guidellm_successful(file, where, bench, metrics)
    tok_s = _guidellm_mean(file, where, metrics, "output_tokens_per_second")
    t_in = _guidellm_mean(file, where, metrics, "prompt_token_count")
    t_out = _guidellm_mean(file, where, metrics, "output_token_count")
    conc = _guidellm_concurrency(file, where, bench, metrics)
    config, worker = bench.get("config"), bench.get("worker")
    backend = config.get("backend") if isinstance(config, Mapping) else None
    named = (_named(backend.get("model")) if isinstance(backend, Mapping) else "") or (
        _named(worker.get("backend_model")) if isinstance(worker, Mapping) else "")  # fmt: skip
    if named == "None":  # 0.2–0.3 wrote the string "None" when no --model was given
        named = ""
    return _point(file, where, ctx, max(t_in or 0.0, 1.0), max(t_out or 0.0, 1.0), conc, tok_s or 0.0,
                  named or report_model)  # fmt: skip


def _guidellm_successful(file: str, where: str, bench: Mapping[str, Any], metrics: Mapping[str, Any]) -> None:
    """Refuse a benchmark with no successful request (its means would be zeros): ``request_totals`` (from 0.4
    inside ``metrics``), else the count of the successful output token counts."""
    totals = metrics.get("request_totals", bench.get("request_totals"))
    done = _num(file, f"{where}request_totals ", totals, "successful", required=False) if isinstance(
        totals, Mapping) else None  # fmt: skip
    if done is None:
        block = metrics.get("output_token_count")
        summary = block.get("successful") if isinstance(block, Mapping) else None
        done = _num(file, f"{where}metrics.output_token_count.successful ", summary, "count",
                    required=False) if isinstance(summary, Mapping) else None  # fmt: skip
    if done is not None and done <= 0:
        errored = totals.get("errored") if isinstance(totals, Mapping) else None
        raise BenchmarkFormatError(file, f"{where}key 'request_totals'", "no successful requests"
                                   + (f" ({errored} errored)" if errored else ""))  # fmt: skip


def _guidellm_concurrency(file: str, where: str, bench: Mapping[str, Any], metrics: Mapping[str, Any]) -> float:
    """A GuideLLM benchmark's clients: 1 (``synchronous``), ``streams`` (``concurrent``), else its requests in
    flight by Little's law at most its ``max_concurrency``."""
    path = "config" if isinstance(bench.get("config"), Mapping) else "args"  # 0.2–0.3: args
    holder = bench.get(path)
    strategy = holder.get("strategy") if isinstance(holder, Mapping) else None
    kind = strategy.get("type_") if isinstance(strategy, Mapping) else None
    if not isinstance(strategy, Mapping) or not isinstance(kind, str):
        raise BenchmarkFormatError(file, f"{where}key '{path}.strategy'", "missing: the run's scheduling strategy "
                                   "(its type_) says what load it ran at")  # fmt: skip
    if kind in _GUIDELLM_CLOSED_LOOP:
        streams = 1.0 if kind == "synchronous" else _num(file, f"{where}{path}.strategy ", strategy, "streams")
        if not streams or streams <= 0:
            raise BenchmarkFormatError(file, f"{where}{path}.strategy key 'streams'", f"expected a positive number, "
                                       f"got {strategy.get('streams')!r}")  # fmt: skip
        return streams
    # a set rate, or every request as fast as the workers go: the load the server actually carried
    req_s = _guidellm_mean(file, where, metrics, "requests_per_second", required=False)
    latency_s = _guidellm_mean(file, where, metrics, "request_latency", required=False)
    conc = _littles_law(file, f"{where}key '{path}.strategy'", req_s, latency_s * 1000.0 if latency_s else None,
                        f"a {kind} run sets no concurrency")  # fmt: skip
    cap = _num(file, f"{where}{path}.strategy ", strategy, "max_concurrency", required=False)
    return min(conc, cap) if cap is not None and cap > 0 else conc


PLAIN_COLUMNS = ("model", "gpu", "gpu_count", "precision", "input_tokens", "output_tokens", "concurrency",
                 "output_tokens_per_s")  # fmt: skip


def _csv_float(file: str, line: int, row: Mapping[str, str], column: str) -> float:
    text = (row.get(column) or "").strip()
    try:
        value = float(text)
    except ValueError:
        raise BenchmarkFormatError(file, f"line {line} column '{column}'", f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise BenchmarkFormatError(file, f"line {line} column '{column}'", f"not a finite number: {text!r}")
    return value


def _csv_rows(file: str, reader: Any, first_line: int) -> Iterator[Any]:
    """The rows of a ``csv.reader`` / ``csv.DictReader`` whose first row is on ``first_line``; a row the csv
    module cannot split (a bare carriage return inside a field, …) is a :class:`BenchmarkFormatError` naming
    its line (one row per line: the formats read here quote no line breaks)."""
    rows = iter(reader)
    line = first_line
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:
            if "end of data" in str(exc):  # strict reader: a quote opened on this line and never closed
                raise BenchmarkFormatError(file, f"line {line}", 'a quote (") opened here is never closed') from None
            raise BenchmarkFormatError(file, f"line {line}", f"not a CSV row ({exc})") from None
        yield row
        line += 1


def _plain_csv(file: str, text: str, ctx: RunContext | None) -> list[BenchmarkPoint]:
    reader = csv.DictReader(io.StringIO(text), strict=True)
    try:
        fieldnames = reader.fieldnames
    except csv.Error as exc:
        raise BenchmarkFormatError(file, "line 1", f"not a CSV row ({exc})") from None
    header = [h.strip() for h in fieldnames or []]
    missing = [c for c in PLAIN_COLUMNS if c not in header and not (c == "concurrency" and "batch" in header)]
    if missing:
        raise BenchmarkFormatError(file, "line 1", f"missing column(s) {', '.join(missing)}")
    points = []
    for line, raw in enumerate(_csv_rows(file, reader, 2), start=2):
        row = {k.strip(): (v or "") for k, v in raw.items() if k is not None}
        precision = row["precision"].strip().lower()
        if precision not in ("bf16", "fp8", "fp4"):
            raise BenchmarkFormatError(file, f"line {line} column 'precision'", f"expected bf16, fp8 or fp4, got "
                                       f"{row['precision']!r}")  # fmt: skip
        conc = _csv_float(file, line, row, "concurrency" if "concurrency" in row else "batch")
        gpus = _csv_float(file, line, row, "gpu_count")
        if gpus != int(gpus) or gpus < 1:
            raise BenchmarkFormatError(file, f"line {line} column 'gpu_count'", "expected a positive whole number")
        here = RunContext(model_id=row["model"].strip() or "?", gpu_id=row["gpu"].strip() or "?", gpus=int(gpus),
                          precision=precision,
                          engine=(row.get("engine") or "").strip() or (ctx.engine if ctx else "vllm"))  # fmt: skip
        points.append(_point(file, f"line {line}", here, _csv_float(file, line, row, "input_tokens"),
                             _csv_float(file, line, row, "output_tokens"), conc,
                             _csv_float(file, line, row, "output_tokens_per_s")))  # fmt: skip
    if not points:
        raise BenchmarkFormatError(file, "file", "no data rows")
    return points


#: GenAI-Perf / AIPerf CSV rows read, by the start of their metric name (before the unit in brackets); early
#: GenAI-Perf (2024) wrote "Num Input Token" / "Num Output Token" for the sequence lengths.
_CSV_ROWS = {
    "output token throughput": "output token throughput", "input sequence length": "input sequence length",
    "num input token": "input sequence length", "output sequence length": "output sequence length",
    "num output token": "output sequence length", "request throughput": "request throughput",
    "request latency": "request latency",
}  # fmt: skip


def _csv_metric(name: str) -> tuple[str, str | None]:
    """A CSV metric name split into its lower-case name and its unit: ``Request Latency (ms)`` → ``("request
    latency", "ms")``."""
    text = name.strip()
    if text.endswith(")") and "(" in text:
        head, _, unit = text[:-1].rpartition("(")
        return head.strip().lower(), unit.strip().lower() or None
    return text.lower(), None


def _csv_value(file: str, line: int, row: list[str], key: str, unit: str | None) -> float:
    """Row ``key``'s first value (``avg`` or ``Value``) without thousands separators, its unit checked and a
    latency in ms."""
    try:
        value = float(row[1].replace(",", ""))
    except ValueError:
        raise BenchmarkFormatError(file, f"line {line}", f"{row[0]!r}: not a number {row[1]!r}") from None
    if not math.isfinite(value):
        raise BenchmarkFormatError(file, f"line {line}", f"{row[0]!r}: not a finite number {row[1]!r}")
    if key == "output token throughput":
        _check_unit(file, f"line {line}", unit, _TOKENS_PER_S, "output tokens per second")
    elif key == "request throughput":
        _check_unit(file, f"line {line}", unit, _REQUESTS_PER_S, "requests per second")
    elif key == "request latency":
        return _latency_ms(file, f"line {line}", value, unit) or 0.0
    elif unit is not None and unit != "tokens":
        raise BenchmarkFormatError(file, f"line {line}", f"{row[0]!r}: unit {unit!r} is not tokens")
    return value


def _genai_perf_csv(file: str, text: str, ctx: RunContext) -> list[BenchmarkPoint]:
    """GenAI-Perf / AIPerf ``profile_export_*.csv``: ``Metric,avg,…`` rows, then ``Metric,Value`` rows (then
    AIPerf's GPU telemetry, not read); the concurrency by Little's law, which the export does not record.

    Values may carry thousands separators (``"4,507.20"``); the unit in each metric's name is read: early
    GenAI-Perf's ``Request Latency (ns)`` is converted to ms, a throughput in other than tokens (requests) per
    second is refused."""
    found: dict[str, float] = {}
    for line, row in enumerate(_csv_rows(file, csv.reader(io.StringIO(text), strict=True), 1), start=1):
        if len(row) < 2:
            continue
        name, unit = _csv_metric(row[0])
        key = _CSV_ROWS.get(name)
        if key is not None and key not in found:
            found[key] = _csv_value(file, line, row, key, unit)
    if "output token throughput" not in found:
        raise BenchmarkFormatError(file, "file", "no 'Output Token Throughput' row")
    if "output sequence length" not in found:
        raise BenchmarkFormatError(file, "file", "no 'Output Sequence Length' row")
    conc = _littles_law(file, "file", found.get("request throughput"), found.get("request latency"),
                        "the CSV export does not record the concurrency")  # fmt: skip
    return [_point(file, "", ctx, found.get("input sequence length", 1.0), found["output sequence length"], conc,
                   found["output token throughput"])]  # fmt: skip


def _refuse_other_exports(file: str, text: str) -> None:
    """Refuse the per-request files the same tools write beside their summaries, naming the file to give
    instead (read as a summary, their first record would be reported as missing ``completed``):

    - a JSON list: LLMPerf ``*_individual_responses.json``, vLLM ``*.pytorch.json``;
    - AIPerf ``profile_export.jsonl`` (``metadata`` + ``metrics`` per request);
    - perf_analyzer's raw ``profile_export.json`` under GenAI-Perf (``experiments``);
    - GuideLLM's ``benchmarks.csv`` (a row per benchmark, 0.4 on under a multi-row header) and
      ``benchmarks.yaml``: its JSON report is the one read."""
    stripped = text.lstrip()
    first_line = stripped.split("\n", 1)[0].lower()
    if first_line.startswith(("type,run id,id,name,", "run info,")) or (
        not stripped.startswith("{") and re.search(r"^\s*-?\s*type_: generative_benchmark\s*$", text, re.M)
    ):
        raise BenchmarkFormatError(file, "file", "a GuideLLM CSV or YAML export: give its JSON report "
                                   "(guidellm benchmark --output-path benchmarks.json)")  # fmt: skip
    if stripped.startswith("["):
        _refuse_lists(file, stripped)
        return
    if not stripped.startswith("{"):
        return
    first: Any = None
    for candidate in (stripped.split("\n", 1)[0], stripped):
        try:
            first = json.loads(candidate, parse_constant=_no_constants)
            break
        except (ValueError, RecursionError):
            continue
    if not isinstance(first, Mapping):
        return
    if "metadata" in first and "metrics" in first:
        raise BenchmarkFormatError(file, "line 1", "AIPerf per-request records (profile_export.jsonl), not the "
                                   "run's summary: give profile_export_aiperf.json or .csv")  # fmt: skip
    if "experiments" in first:
        raise BenchmarkFormatError(file, "key 'experiments'", "perf_analyzer's raw per-request export, not "
                                   "GenAI-Perf's summary: give profile_export_genai_perf.json or .csv")  # fmt: skip


def _refuse_lists(file: str, stripped: str) -> None:
    """A JSON list is read only as ``vllm bench sweep``'s ``summary.json`` (run summaries, a point per run); a
    table of vLLM's nightly results and a list of per-request records are refused."""
    first_record = _first_of_list(stripped)
    if isinstance(first_record, Mapping) and "completed" in first_record:
        return
    if isinstance(first_record, Mapping) and "Output Tput (tok/s)" in first_record:
        raise BenchmarkFormatError(file, "file", "a table of vLLM benchmark results (\"Test name\", \"Output "
                                   "Tput (tok/s)\", …): it gives no token counts per request: give each run's "
                                   "--save-result JSON")  # fmt: skip
    raise BenchmarkFormatError(file, "file", "a JSON list of per-request records (LLMPerf "
                               "*_individual_responses.json, vLLM *.pytorch.json), not a run summary: give "
                               "LLMPerf's *_summary.json or vLLM's --save-result JSON")  # fmt: skip


def _first_of_list(text: str) -> Any:
    """The first element of the JSON list ``text``, or None when it is not a non-empty valid list."""
    try:
        data = json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError):
        return None
    return data[0] if isinstance(data, list) and data else None


#: Keys of which a vLLM or SGLang result (or a refused relative, :func:`_not_a_serving_run`) has one: a JSON
#: object with none of them is of no format read here ("unknown format", not "key 'completed': missing").
_SERVING_KEYS = ("completed", "successful_requests", "batch_size", "output_throughput", "tokens_per_second",
                 "total_input_sequences", "ramp_up_strategy")  # fmt: skip


#: The start of a GuideLLM report that names no ``generative_benchmark`` (0.1: per-request results only).
_GUIDELLM_REPORT = re.compile(r'\{\s*"benchmarks"\s*:\s*\[')


def _object_format(text: str, head: str) -> Format | None:
    """The format of a file that starts with a JSON object (:func:`detect_format`)."""
    if _GUIDELLM_REPORT.match(head) or '"generative_benchmark"' in text:
        return "guidellm"
    if _LLMPERF_KEY in text:
        return "llmperf"
    if '"output_token_throughput"' in text:
        return "genai-perf"
    first_line = text.lstrip().split("\n", 1)[0]
    try:
        json.loads(first_line)
        one_line_object = True
    except (ValueError, RecursionError):
        one_line_object = False
    if one_line_object and text.strip().count("\n") >= 1:
        return "sglang"
    if any(f'"{key}"' in text for key in _SERVING_KEYS):
        return "vllm"
    try:
        json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError):
        return "vllm"  # not JSON at all: the reader says where it breaks ("not valid JSON")
    return None


def detect_format(text: str) -> Format | None:
    """The format of a benchmark file from its content, or None."""
    head = text.lstrip()[:4000]
    if head.startswith("{"):
        return _object_format(text, head)
    if head.startswith("[") and '"completed"' in head:
        return "vllm"  # `vllm bench sweep` summary.json (per-request lists were refused before this)
    first = head.split("\n", 1)[0].lower()
    if first.startswith("metric"):
        return "genai-perf"
    if "output_tokens_per_s" in first:
        return "csv"
    return None


#: Suffixes of a checkpoint name that do not change the architecture (tuning, format, quantisation, version).
_CHECKPOINT_SUFFIX = re.compile(
    r"[-_.](instruct|chat|hf|it|base|fp8|fp4|nvfp4|mxfp4|bf16|fp16|awq|gptq|int4|int8|w4a16|w8a8|dynamic|"
    r"gguf|q4_k_m|v\d+(\.\d+)*|\d{4})$"
)


def _model_key(name: str) -> str:
    """A model name reduced for comparison: no organisation, lower case, dashes, no checkpoint suffixes."""
    key = name.rsplit("/", 1)[-1].lower().replace("_", "-").replace(" ", "-")
    key = key.removeprefix("meta-")  # meta-llama/Meta-Llama-3.1-8B-Instruct
    while (shorter := _CHECKPOINT_SUFFIX.sub("", key)) != key:
        key = shorter
    return key


def catalog_model_for(named: str, models: Mapping[str, Any]) -> str | None:
    """The catalog model a file's model name refers to (``meta-llama/Llama-3.1-8B-Instruct`` →
    ``llama-3.1-8b``), by its id or display name (and an "also …" alias in the name); None when none matches.

    >>> catalog_model_for("mistralai/Mixtral-8x7B-Instruct-v0.1", {"mixtral-8x7b": None})
    'mixtral-8x7b'
    """
    key = _model_key(named) if named else ""
    if not key:
        return None
    for model_id, spec in models.items():
        names = [model_id]
        display = getattr(spec, "name", "") or ""
        names.append(display.split("(", 1)[0])
        names += re.findall(r"also ([^,)]+)", display)
        if key in {_model_key(n) for n in names if n.strip()}:
            return model_id
    return None


def resolve_model_names(points: list[BenchmarkPoint], models: Mapping[str, Any]) -> list[BenchmarkPoint]:
    """Points whose model is written as a name the catalog knows (a plain CSV's ``meta-llama/Llama-3.1-8B-
    Instruct``) read as that catalog model; the name as written is kept in ``file_model``. Catalog ids and
    unknown names are left as they are (the fit then names an unknown model)."""
    out = []
    for point in points:
        found = None if point.model_id in models else catalog_model_for(point.model_id, models)
        out.append(point if found is None else point.model_copy(update={"model_id": found,
                                                                        "file_model": point.model_id}))  # fmt: skip
    return out


def check_named_model(file: str, points: list[BenchmarkPoint], models: Mapping[str, Any]) -> None:
    """Refuse points whose file names a catalog model other than the one they are read as: a run of
    ``meta-llama/Llama-3.1-70B-Instruct`` fitted as Llama 3.1 8B would calibrate the wrong model. A name the
    catalog does not know (a fine-tune, a model not in it) is left to the reader's choice.

    Raises
    ------
    BenchmarkFormatError
        Naming the file's model, the catalog model it is, and the model chosen.
    """
    for point in points:
        found = catalog_model_for(point.file_model, models)
        if found is not None and found != point.model_id:
            chosen = getattr(models.get(point.model_id), "name", point.model_id)
            raise BenchmarkFormatError(
                file, "model", f"the file ran {point.file_model} ({getattr(models[found], 'name', found)} in the "
                f"catalog), not {chosen}: choose the file's model"
            )  # fmt: skip


#: Words of a GPU's marketing or ``nvidia-smi`` name that do not tell two catalog GPUs apart.
_GPU_NOISE = frozenset({"nvidia", "amd", "instinct", "geforce", "tesla", "gpu", "hbm2", "hbm2e", "hbm3", "hbm3e",
                        "gddr6", "gddr6x", "gddr7"})  # fmt: skip


def _gpu_words(name: str) -> frozenset[str]:
    """A GPU name as a set of words: lower case, "80 GB" as one word, SXM4/SXM5 as "sxm", vendor words out."""
    text = re.sub(r"(\d+)\s*gb\b", r"\1gb", name.lower())
    words = (w for w in re.split(r"[^a-z0-9]+", text) if w and w not in _GPU_NOISE)
    return frozenset("sxm" if re.fullmatch(r"sxm\d?", w) else w for w in words)


def catalog_gpus_for(named: str, gpus: Mapping[str, Any]) -> list[str]:
    """The catalog GPUs a GPU name can mean: its id, else every GPU whose id and name carry all of the name's
    words. One id is a match; several mean the name is ambiguous (``H100`` is an SXM, a PCIe or an NVL card).

    >>> catalog_gpus_for("NVIDIA A100-SXM4-80GB", {"a100-sxm-80gb": None, "a100-pcie-80gb": None})
    ['a100-sxm-80gb']
    """
    if named in gpus:
        return [named]
    want = _gpu_words(named)
    if not want:
        return []
    return [gpu_id for gpu_id, spec in gpus.items()
            if want <= _gpu_words(gpu_id) | _gpu_words(getattr(spec, "name", "") or "")]  # fmt: skip


def resolve_gpu_names(file: str, points: list[BenchmarkPoint], gpus: Mapping[str, Any]) -> list[BenchmarkPoint]:
    """Points whose GPU is written as a name (a plain CSV's ``H100 SXM`` or ``NVIDIA A100-SXM4-80GB``) read as
    the one catalog GPU it names.

    Raises
    ------
    BenchmarkFormatError
        A name that fits several catalog GPUs (naming them) or none (naming the catalog's ids).
    """
    out = []
    for point in points:
        found = catalog_gpus_for(point.gpu_id, gpus)
        where = point.source.removeprefix(file).strip() or "file"
        if not found:
            raise BenchmarkFormatError(file, where, f"GPU {point.gpu_id!r} is not in the catalog (its ids: "
                                       f"{', '.join(gpus)})")  # fmt: skip
        if len(found) > 1:
            raise BenchmarkFormatError(file, where, f"GPU {point.gpu_id!r} could be {', '.join(found)}: write one "
                                       "of these ids")  # fmt: skip
        out.append(point if found[0] == point.gpu_id else point.model_copy(update={"gpu_id": found[0]}))
    return out


def match_catalog_models(
    file: str, points: list[BenchmarkPoint], models: Mapping[str, Any], gpus: Mapping[str, Any]
) -> list[BenchmarkPoint]:
    """A file's points against the catalog, as the CLI and the Accuracy page read them: model names the catalog
    knows read as its models (:func:`resolve_model_names`), then a file that ran another catalog model than the
    one chosen is refused (:func:`check_named_model`); GPU names read as the one catalog GPU they name
    (:func:`resolve_gpu_names`)."""
    resolved = resolve_model_names(points, models)
    check_named_model(file, resolved, models)
    return resolve_gpu_names(file, resolved, gpus)


PARSERS: dict[str, Callable[[str, str, RunContext], list[BenchmarkPoint]]] = {
    "vllm": _vllm, "sglang": _sglang, "llmperf": _llmperf, "guidellm": _guidellm,
}  # fmt: skip


def read_benchmark(file: str, data: bytes, context: RunContext | None = None, fmt: Format | None = None
                   ) -> list[BenchmarkPoint]:  # fmt: skip
    """Parse one benchmark file's bytes into points; the whole file is rejected on any problem.

    Raises
    ------
    BenchmarkFormatError
        Too large, not UTF-8, unknown format, a missing or non-numeric key, or (for formats that do not name
        the model and GPU) no ``context``.
    """
    if len(data) > MAX_FILE_BYTES:
        raise BenchmarkFormatError(
            file,
            "file",
            f"{len(data):,} bytes is over the {MAX_FILE_BYTES:,}-byte limit; a run's summary is a few KB, what makes "
            "a file this large is per-request data (vLLM --save-detailed lists, AIPerf profile_export.jsonl): save "
            "the run without it, or delete those lists (ttfts, itls, generated_texts, …)",
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BenchmarkFormatError(file, f"byte {exc.start}", "not UTF-8 text") from None
    if fmt != "csv":
        _refuse_other_exports(file, text)
    kind = fmt or ("sglang" if file.lower().endswith(".jsonl") else detect_format(text))
    if kind is None:
        raise BenchmarkFormatError(file, "file", "unknown format (expected vLLM/SGLang/GenAI-Perf/AIPerf/LLMPerf/"
                                   "GuideLLM JSON or a CSV with an output_tokens_per_s column)")  # fmt: skip
    if kind == "csv":
        points = _plain_csv(file, text, context)
    else:
        if context is None:
            raise BenchmarkFormatError(file, "file", f"a {kind} file does not say which GPU it ran on: give the model "
                                       "and the GPU (CLI: --model and --gpu)")  # fmt: skip
        if kind == "genai-perf":
            points = _genai_perf_json(file, text, context) if text.lstrip().startswith("{") else _genai_perf_csv(
                file, text, context)  # fmt: skip
        else:
            points = PARSERS[kind](file, text, context)
    if len(points) > MAX_POINTS:
        raise BenchmarkFormatError(file, "file", f"{len(points)} points is over the {MAX_POINTS} limit")
    return points
