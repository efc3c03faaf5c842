"""Importers for the benchmark files teams actually run (pure parsing: no network, no eval, no pickle).

:func:`read_benchmark` detects the format from the content and returns :class:`BenchmarkPoint` rows, or raises
:class:`BenchmarkFormatError` naming the file, the line or key, and the reason; a malformed file is rejected
as a whole. Formats: vLLM ``bench serve`` / ``benchmark_serving.py --save-result`` JSON, SGLang
``bench_serving`` JSONL, NVIDIA GenAI-Perf / AIPerf ``profile_export_*.json`` and their CSV, LLMPerf
``*_summary.json``, GuideLLM ``benchmarks.json`` (a point per benchmark), and a plain CSV (``model,gpu,
gpu_count,precision,input_tokens,output_tokens,concurrency,output_tokens_per_s``). Files that do not name the
model or hardware take them from a :class:`RunContext`; :func:`match_catalog_models` reads model names the
catalog knows (a plain CSV's Hugging Face names) as its models and refuses a file that names another catalog
model than the one chosen.
"""

from economics.io.benchmarks import (
    MAX_FILE_BYTES,
    BenchmarkFormatError,
    BenchmarkPoint,
    RunContext,
    match_catalog_models,
    read_benchmark,
)

__all__ = [
    "MAX_FILE_BYTES",
    "BenchmarkFormatError",
    "BenchmarkPoint",
    "RunContext",
    "match_catalog_models",
    "read_benchmark",
]
