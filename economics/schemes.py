"""Decoding schemes: plain AR, speculative decoding, text diffusion (docs/specdec.md#speculative-decoding to
docs/serving.md#serving-and-queues)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from economics._base import Frozen


class ARScheme(Frozen):
    """Plain autoregressive decoding: one token per sequence per forward pass."""

    kind: Literal["ar"] = "ar"
    id: str = Field(default="ar", min_length=1, max_length=64, description="preset id")


class SpeculativeScheme(Frozen):
    """Draft-then-verify decoding (Leviathan et al. 2023; Medusa; EAGLE).

    Give either ``mean_accepted_tokens`` (τ, the measured "average acceptance length" of tree methods) or
    ``acceptance_rate`` (α, chain drafts, τ = (1 − α^(γ+1))/(1 − α)). ``verify_tokens`` is γ + 1 for a
    chain and the tree size for tree attention; every verified position costs a token of compute.
    The draft is ``draft_layers`` decoder layers of the target's width plus an LM head over
    ``draft_vocab`` tokens, run ``draft_steps`` times per iteration (EAGLE); 0 layers means heads fused
    into the verify pass (Medusa).
    """

    kind: Literal["speculative"] = "speculative"
    id: str = Field(default="speculative", min_length=1, max_length=64, description="preset id")
    name: str = Field(default="speculative decoding", max_length=120, description="display name")
    draft_tokens: int = Field(default=4, ge=1, le=64, description="draft tokens per iteration γ [count]")
    verify_tokens: int = Field(default=5, ge=2, le=512, description="tokens verified per pass q_verify [count]")
    acceptance_rate: float | None = Field(default=None, ge=0, lt=1, description="per-token acceptance α [1]")
    mean_accepted_tokens: float | None = Field(
        default=None,
        ge=1,
        le=64,
        description="tokens emitted per verify pass τ, bonus token included [tokens]",
    )
    draft_layers: int = Field(default=1, ge=0, le=64, description="decoder layers in the draft model [count]")
    draft_vocab: int = Field(default=32_000, ge=2, le=2_000_000, description="draft LM-head vocabulary [count]")
    draft_steps: int = Field(default=4, ge=0, le=64, description="draft forward passes per iteration [count]")
    draft_step_overhead_s: float = Field(
        default=0.1e-3, ge=0, le=0.01, description="fixed cost per draft pass (CUDA graphs) [s]"
    )
    source: str = Field(default="", max_length=1000, description="where the figures come from")
    as_of: str = Field(default="", max_length=64, description="date of the source")

    @model_validator(mode="after")
    def _check(self) -> SpeculativeScheme:
        if (self.acceptance_rate is None) == (self.mean_accepted_tokens is None):
            raise ValueError("give exactly one of acceptance_rate and mean_accepted_tokens")
        if self.mean_accepted_tokens is not None and self.mean_accepted_tokens > self.verify_tokens:
            raise ValueError("mean_accepted_tokens cannot exceed verify_tokens")
        return self

    @property
    def tokens_per_pass(self) -> float:
        """τ: expected tokens emitted per verify pass [tokens]."""
        if self.mean_accepted_tokens is not None:
            return self.mean_accepted_tokens
        a = float(self.acceptance_rate or 0.0)
        return (1.0 - a ** (self.draft_tokens + 1)) / (1.0 - a)


class DiffusionScheme(Frozen):
    """Masked / block text diffusion: ``block_tokens`` K positions denoised in ``denoising_steps`` S passes.

    With a prefix KV cache (block diffusion, Fast-dLLM) each pass runs over the K block positions and
    ``refresh_passes`` ρ extra passes per block commit the finished block's KV. Without a cache (vanilla
    LLaDA) every pass runs over the whole canvas, prompt included.
    """

    kind: Literal["diffusion"] = "diffusion"
    id: str = Field(default="diffusion", min_length=1, max_length=64, description="preset id")
    name: str = Field(default="text diffusion", max_length=120, description="display name")
    block_tokens: int = Field(default=32, ge=1, le=8192, description="block length K [tokens]")
    denoising_steps: int = Field(default=8, ge=1, le=8192, description="denoising passes per block S [count]")
    refresh_passes: int = Field(default=1, ge=0, le=8, description="extra passes per block to commit KV ρ [count]")
    prefix_cache: bool = Field(default=True, description="reuse the prefix KV cache; False = vanilla full canvas [-]")
    source: str = Field(default="", max_length=1000, description="where the assumptions come from")
    as_of: str = Field(default="", max_length=64, description="date of the source")

    @model_validator(mode="after")
    def _check(self) -> DiffusionScheme:
        if self.denoising_steps > self.block_tokens:
            raise ValueError("denoising_steps cannot exceed block_tokens (each pass unmasks at least one token)")
        return self

    @property
    def tokens_per_forward(self) -> float:
        """TPF = K / S [tokens/pass]."""
        return self.block_tokens / self.denoising_steps

    @property
    def effective_refresh_passes(self) -> int:
        """ρ actually paid: the refresh commits a block's KV into the prefix cache, so 0 without a cache [count]."""
        return self.refresh_passes if self.prefix_cache else 0

    @property
    def tokens_per_pass(self) -> float:
        """e = K / (S + ρ): tokens emitted per pass per sequence; K / S without a prefix cache [tokens]."""
        return self.block_tokens / (self.denoising_steps + self.effective_refresh_passes)


Scheme = Annotated[ARScheme | SpeculativeScheme | DiffusionScheme, Field(discriminator="kind")]
