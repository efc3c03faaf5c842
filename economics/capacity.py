"""KV-cache capacity and the largest batch that fits in memory (docs/memory.md#kv-capacity).

A replica of ``N`` GPUs may fill ``mem_util`` of its memory. The weights come first; what is left holds
the KV cache of every resident sequence. A model whose weights alone do not fit is not an error: it is a
:class:`KVCapacity` with ``feasible=False`` and a reason, and every batch derived from it is 0.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from pydantic import Field

from economics._base import Frozen
from economics.hardware import Deployment, Efficiency
from economics.model import FloatArray, ModelSpec
from economics.roofline import replication
from economics.units import GB


class KVCapacity(Frozen):
    """Memory left for the KV cache of one replica, and how many cached tokens it holds."""

    usable_bytes: float = Field(ge=0, description="memory the engine may use, N·M_hbm·mem_util [B]")
    weight_bytes: float = Field(ge=0, description="resident weights W [B]")
    reserve_bytes: float = Field(ge=0, description="activation/workspace reserve M_act_reserve [B]")
    free_bytes: float = Field(ge=0, description="memory left for KV, M_free (0 when the model does not fit) [B]")
    kv_bytes_per_token: float = Field(gt=0, description="KV bytes per cached token, replication included [B/token]")
    max_tokens: float = Field(ge=0, description="cached tokens across all sequences, Tok_max [tokens]")
    feasible: bool = Field(description="the weights and the reserve fit in usable memory [-]")
    reason: str = Field(description="why the model does not fit, or '' [-]")

    def max_batch(self, context_tokens: ArrayLike) -> FloatArray:
        """``B_max = floor(Tok_max / S_avg)`` sequences of mean resident context ``S_avg`` [count].

        0 when the model does not fit; ``inf`` for ``S_avg = 0`` (nothing is cached).

        >>> cap = KVCapacity(usable_bytes=10.0, weight_bytes=4.0, reserve_bytes=0.0, free_bytes=6.0,
        ...     kv_bytes_per_token=1.0, max_tokens=6.0, feasible=True, reason="")
        >>> cap.max_batch([1, 2, 4, 7]).tolist()
        [6.0, 3.0, 1.0, 0.0]
        """
        s = np.asarray(context_tokens, dtype=np.float64)
        with np.errstate(divide="ignore"):
            ratio = np.where(s > 0, self.max_tokens / np.where(s > 0, s, 1.0), np.inf)
        # relative 1e-12 guards against ratios such as 0.3/0.1 = 2.9999999999999996 flooring to 2
        return np.asarray(np.floor(ratio * (1.0 + 1e-12)), dtype=np.float64)


def kv_capacity(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    reserve_bytes: float = 0.0,
) -> KVCapacity:
    """KV-cache memory of one replica (docs/memory.md#kv-capacity).

    Parameters
    ----------
    model : the architecture and its byte widths (``W = P_total·b_w``, ``kv_tok``).
    deployment : GPU, tensor-parallel degree ``N`` and precision.
    efficiency : ``kv_mem_util`` is the share of memory the engine may use [1].
    reserve_bytes : activation/workspace reserve ``M_act_reserve`` [B]; 0 by default because ``mem_util``
        absorbs it.

    Returns
    -------
    KVCapacity with ``M_free = max(0, N·M_hbm·mem_util − W − M_act_reserve)`` [B] and
    ``Tok_max = M_free / (r_kv·kv_tok)`` [tokens]; ``feasible=False`` and a reason when
    ``W + M_act_reserve > N·M_hbm·mem_util``.

    Notes
    -----
    ``r_kv = N / min(N, n_kv)`` counts KV heads replicated when the TP degree exceeds them ([SB],
    "Sharding the KV cache"). Paged caches (vLLM) hold the actual tokens, so the caller passes the mean
    resident context ``T_in + T_out/2`` to :meth:`KVCapacity.max_batch`; engines that reserve the maximum
    length need ``T_in + T_out``.

    Example (docs/memory.md#kv-capacity): Llama-3.1-70B in BF16 on 8×H100 (80 GB), ``mem_util = 0.9``:
    ``M_free = 576 − 141.1 = 434.9 GB``, ``Tok_max = 1.327e6`` and ``B_max(4096) = 324``.

    >>> from economics.hardware import GPU
    >>> h100 = GPU(id="h100", name="H100", peak_flops_bf16_per_s=989.4e12, hbm_bandwidth_bytes_per_s=3.35e12,
    ...     hbm_capacity_bytes=80e9, link_bandwidth_bytes_per_s=450e9, power_w=700)
    >>> llama70 = ModelSpec(id="l70", name="l70", n_layers=80, d_model=8192, n_heads=64, n_kv_heads=8,
    ...     head_dim=128, d_ff=28672, vocab=128256)
    >>> cap = kv_capacity(llama70, Deployment(gpu=h100, n_gpus=8), Efficiency())
    >>> round(cap.free_bytes / 1e9, 1), round(cap.max_tokens / 1e6, 3), int(cap.max_batch(4096))
    (434.9, 1.327, 324)
    """
    usable = deployment.hbm_capacity_bytes * efficiency.kv_mem_util
    weights = model.weight_bytes
    if deployment.expert_parallel and model.is_moe:  # DEP: every rank keeps its own copy of the non-expert weights
        weights += (deployment.n_gpus - 1) * model.bytes_per_weight * model.params_non_expert
    free = usable - weights - reserve_bytes
    kv_tok = replication(model, deployment) * model.kv_bytes_per_token
    feasible = free > 0.0
    reason = ""
    if not feasible:
        reason = (
            f"model does not fit: weights {weights / GB:.1f} GB"
            + (f" + reserve {reserve_bytes / GB:.1f} GB" if reserve_bytes > 0 else "")
            + f" exceed the usable {usable / GB:.1f} GB ({deployment.n_gpus} × "
            f"{deployment.gpu.hbm_capacity_bytes / GB:.0f} GB × {efficiency.kv_mem_util:g})"
        )
    free = max(free, 0.0)
    return KVCapacity(
        usable_bytes=usable,
        weight_bytes=weights,
        reserve_bytes=reserve_bytes,
        free_bytes=free,
        kv_bytes_per_token=kv_tok,
        max_tokens=free / kv_tok,
        feasible=feasible,
        reason=reason,
    )


def max_batch_kv(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    context_tokens: ArrayLike,
    reserve_bytes: float = 0.0,
) -> FloatArray:
    """Largest batch whose KV cache fits, ``floor(Tok_max / S_avg)`` [count]; 0 if the model does not fit.

    Shorthand for ``kv_capacity(...).max_batch(context_tokens)``; see :func:`kv_capacity`.
    """
    return kv_capacity(model, deployment, efficiency, reserve_bytes).max_batch(context_tokens)
