"""Looking up a scenario's item by its id: one helper, one named error.

A page's settings, a share link or an edited form can carry an id that the scenario no longer has (the
workload was removed, the link is old). :func:`by_id` turns that into :class:`UnknownOptionError`, a
``KeyError`` that names the kind of item, the id and the ids that exist, instead of the bare
``StopIteration`` of ``next(x for x in items if x.id == ...)``.

>>> from economics.io.scenarios import default_scenario
>>> s = default_scenario()
>>> by_id(s.workloads, s.workloads[0].id, "workload").id == s.workloads[0].id
True
>>> by_id(s.apis, "gone", "API")
Traceback (most recent call last):
    ...
economics.lookup.UnknownOptionError: unknown API id 'gone'; the scenario has: ...
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

__all__ = ["UnknownOptionError", "by_id"]


class UnknownOptionError(KeyError):
    """An id that names no item of its kind in the scenario; ``kind``, ``item_id`` and ``known`` say which."""

    def __init__(self, kind: str, item_id: str, known: Iterable[str] = ()) -> None:
        self.kind = kind
        self.item_id = item_id
        self.known: tuple[str, ...] = tuple(known)
        super().__init__(kind, item_id)

    def __str__(self) -> str:
        known = ", ".join(repr(k) for k in self.known[:20]) + (", …" if len(self.known) > 20 else "")
        return f"unknown {self.kind} id {self.item_id!r}; the scenario has: {known or 'none'}"


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


ItemT = TypeVar("ItemT", bound=_HasId)


def by_id(items: Sequence[ItemT], item_id: str, kind: str) -> ItemT:
    """The first item of ``items`` whose ``id`` is ``item_id``; :class:`UnknownOptionError` naming ``kind`` if none.

    ``kind`` is the plain name of what is looked up ("workload", "owned option", "API", "node", "GPU", "model").
    """
    for item in items:
        if item.id == item_id:
            return item
    raise UnknownOptionError(kind, item_id, (item.id for item in items))
