"""What an edit changed: the effect of a scenario against a reference (the last saved review, or the preset).

One small pure function, :func:`what_changed`, reads two :class:`~economics.result.Result` objects and
returns the figures a reader needs after every edit: the monthly bill delta, the routes that moved (with
display names) and the owned nodes to buy or no longer needed. The dashboard's banner, the Reviews page and
the meeting pack all read it, so they say the same thing in the same words.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from pydantic import Field

from economics._base import Frozen
from economics.result import Result
from economics.scenario import Scenario
from economics.words import joined, quoted

__all__ = ["MovedRoute", "WhatChanged", "scenario_changes", "what_changed"]


class MovedRoute(Frozen):
    """One workload whose chosen option differs between the reference and now."""

    workload_id: str = Field(description="workload id [-]")
    workload_name: str = Field(description="display name [-]")
    before: str = Field(description="display name of the option chosen in the reference; '' if none [-]")
    after: str = Field(description="display name of the option chosen now; '' if none [-]")


class WhatChanged(Frozen):
    """The effect of the current scenario against a reference result. Changes are ``now − reference``."""

    reference: str = Field(description="what the scenario is compared with, e.g. 'the preset' [-]")
    bill_before_usd_per_month: float = Field(description="the reference's total monthly bill [USD/month]")
    bill_after_usd_per_month: float = Field(description="the current total monthly bill [USD/month]")
    bill_change_usd_per_month: float = Field(description="after − before; 0 when either is not finite [USD/month]")
    moved: tuple[MovedRoute, ...] = Field(description="workloads whose route changed, in the current order [-]")
    added_workloads: tuple[str, ...] = Field(description="names of workloads new since the reference [-]")
    removed_workloads: tuple[str, ...] = Field(description="names of workloads gone since the reference [-]")
    owned_nodes_before: int = Field(description="owned nodes (bought plus needed) in the reference [count]")
    owned_nodes_after: int = Field(description="owned nodes (bought plus needed) now [count]")

    @property
    def nodes_to_buy(self) -> int:
        """Owned nodes to add (negative: nodes no longer needed) [count]."""
        return self.owned_nodes_after - self.owned_nodes_before

    @property
    def unchanged(self) -> bool:
        """Nothing a reader acts on differs: same bill (to the cent), routes, workloads and fleet."""
        return (
            abs(self.bill_change_usd_per_month) < 0.005
            and not self.moved
            and not self.added_workloads
            and not self.removed_workloads
            and self.nodes_to_buy == 0
        )


def _chosen_names(result: Result) -> dict[str, str]:
    names = {o.option_id: o.option_name for o in result.options}
    return {d.workload_id: names.get(d.chosen_option_id or "", "") for d in result.decisions}


def what_changed(reference: Result, current: Result, *, reference_label: str) -> WhatChanged:
    """Compare the current result with a reference result.

    Parameters
    ----------
    reference : Result
        The result to compare with (a saved review's result as saved, or the preset evaluated).
    current : Result
        The result of the scenario being edited.
    reference_label : str
        How the reference is named to a reader ("the preset Singapore bank", "review 'Q3'").

    Returns
    -------
    WhatChanged
        Bill delta ``total_now − total_reference`` [USD/month], moved routes by workload id (a workload
        present in only one of the two is listed as added or removed, not as moved), and owned nodes.

    Examples
    --------
    >>> from economics import evaluate
    >>> from economics.io.scenarios import default_scenario
    >>> r = evaluate(default_scenario())
    >>> what_changed(r, r, reference_label="the preset").unchanged
    True
    """
    before_routes, after_routes = _chosen_names(reference), _chosen_names(current)
    before_names = {d.workload_id: d.workload_name for d in reference.decisions}
    moved = tuple(
        MovedRoute(
            workload_id=d.workload_id,
            workload_name=d.workload_name,
            before=before_routes[d.workload_id],
            after=after_routes[d.workload_id],
        )
        for d in current.decisions
        if d.workload_id in before_routes and before_routes[d.workload_id] != after_routes[d.workload_id]
    )
    before = reference.fleet.total_cost_usd_per_month
    after = current.fleet.total_cost_usd_per_month
    change = after - before if math.isfinite(before) and math.isfinite(after) else 0.0
    return WhatChanged(
        reference=reference_label,
        bill_before_usd_per_month=before,
        bill_after_usd_per_month=after,
        bill_change_usd_per_month=change,
        moved=moved,
        added_workloads=tuple(d.workload_name for d in current.decisions if d.workload_id not in before_routes),
        removed_workloads=tuple(n for i, n in before_names.items() if i not in after_routes),
        owned_nodes_before=reference.fleet.owned_nodes,
        owned_nodes_after=current.fleet.owned_nodes,
    )


def _by_id(items: Iterable[object]) -> dict[str, object]:
    return {str(getattr(x, "id")): x for x in items}  # noqa: B009 (every scenario item has an id)


def _changed_items(label: str, before: Iterable[object], after: Iterable[object]) -> list[str]:
    a, b = _by_id(before), _by_id(after)
    out = []
    added = [str(getattr(b[k], "name", k)) for k in b if k not in a]
    removed = [str(getattr(a[k], "name", k)) for k in a if k not in b]
    changed = [str(getattr(b[k], "name", k)) for k in b if k in a and a[k] != b[k]]
    if added:
        out.append(f"{label} added: {joined([quoted(x) for x in added])}")
    if removed:
        out.append(f"{label} removed: {joined([quoted(x) for x in removed])}")
    if changed:
        out.append(f"{label} changed: {joined([quoted(x) for x in changed])}")
    return out


def scenario_changes(before: Scenario, after: Scenario) -> list[str]:
    """What differs between two scenarios, as short phrases (empty when they are the same): the meeting pack's
    "modified from the preset: …" and the what-changed banner's "What differs: …".

    Workloads, node offers, owned options and APIs are matched by id; the review date, efficiency factors,
    policy, GPUs and models are compared as a whole.
    """
    out: list[str] = []
    out += _changed_items("workloads", before.workloads, after.workloads)
    out += _changed_items("node prices", before.nodes, after.nodes)
    out += _changed_items("owned options", before.owned_options, after.owned_options)
    out += _changed_items("API prices", before.apis, after.apis)
    if before.review_date != after.review_date:
        out.append(f"review date moved from {before.review_date:%-d %B %Y} to {after.review_date:%-d %B %Y}")
    if before.efficiency != after.efficiency:
        out.append("efficiency factors changed")
    if before.policy != after.policy:
        out.append("policy (utilization target or cost mode) changed")
    if before.gpus != after.gpus or before.models != after.models:
        out.append("GPU or model catalog changed")
    return out
