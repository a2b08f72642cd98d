"""Which tasks give resources back: Peloton's preemption ranking, pure.

Peloton's ``pkg/resmgr/preemption`` (reference/peloton.md §4.7): a leaf
pool whose allocation has stayed above its entitlement gives back the
excess. The candidates are its admitted, preemptible tasks, ranked

1. by state: READY, then PLACING, then RUNNING (the cheaper to take back
   first: a READY or PLACING task has not started; other states, such as a
   task being placed or launched, are never chosen, so a launch is never
   cut in half);
2. within a state, by ascending priority;
3. within a priority, most recently started first (the least work lost).

and taken greedily: while some kind is still needed, the next candidate is
taken if it holds some of a needed kind, else skipped. Non-preemptible tasks
are never candidates (the caller never offers them).

This module holds the rules as functions over plain data; the state machine
keeps the per-pool index the candidates come from (``peloton.resmgr.tracker``)
and decides what a chosen task becomes (``peloton.resmgr.reclaim``). No clock, no I/O; the same
input gives the same output.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Reversible
from typing import TypeVar

from peloton.core.resources import EPSILON, ZERO, Resources
from peloton.core.states import TaskState

K = TypeVar("K", bound=Hashable)

# The states a victim may be in, in the order they are taken.
STATE_RANK: dict[int, int] = {TaskState.READY: 0, TaskState.PLACING: 1, TaskState.RUNNING: 2}
CANDIDATE_STATES = frozenset(STATE_RANK)


def excess(used: Resources, bound: Resources) -> Resources:
    """Per kind, how far ``used`` is above ``bound`` (0 within EPSILON)."""
    return Resources(*((u - b) if u > b + EPSILON else 0.0
                       for u, b in zip(used, bound, strict=True)))


def needs(need: Resources) -> bool:
    """Whether any kind of ``need`` is still to be freed."""
    return any(n > EPSILON for n in need)


def reduces(held: Resources, need: Resources) -> bool:
    """Whether a task holding ``held`` frees some kind that is still needed."""
    return any(n > EPSILON and h > EPSILON for h, n in zip(held, need, strict=True))


def rank_key(state: int, priority: int, started: int) -> tuple[int, int, int]:
    """The sort key of one candidate: state order, then ascending priority,
    then the most recent ``started`` (a larger number is more recent) first."""
    return (STATE_RANK[state], priority, -started)


def ranked(buckets: Mapping[int, Reversible[K]], state_of: Callable[[K], int], *,
           below: int | None = None) -> Iterator[K]:
    """Candidates in rank order, lazily.

    ``buckets`` maps a priority to its tasks in the order they started (the
    last one the most recent); ``state_of`` gives a task's state. Tasks in a
    state that is not a candidate state are left out, and with ``below`` only
    priorities strictly lower than it are visited. One sweep collects the
    READY and PLACING tasks (there are few: they wait for placement); RUNNING
    tasks are then yielded as a second sweep reaches them, so a caller that
    stops early never walks the rest of the pool.
    """
    priorities = sorted(p for p in buckets if below is None or p < below)
    early: tuple[list[K], list[K]] = ([], [])
    for priority in priorities:
        for task in reversed(buckets[priority]):
            rank = STATE_RANK.get(state_of(task))
            if rank is not None and rank < 2:
                early[rank].append(task)
    yield from early[0]
    yield from early[1]
    for priority in priorities:
        for task in reversed(buckets[priority]):
            if state_of(task) == TaskState.RUNNING:
                yield task


def select(units: Iterable[tuple[K, Resources]], need: Resources, *,
           whole: bool = False) -> tuple[list[K], Resources]:
    """Greedy choice of victims among ``units`` (``(key, resources held)`` in
    rank order) until nothing of ``need`` is left.

    A unit that frees no needed kind is skipped. Returns the chosen keys
    and what is still needed afterwards (all zero when covered). With
    ``whole``, a need the units cannot cover chooses nothing (taking some
    would not make room for what waits, and their work would be lost).
    Units repeating a key already chosen are skipped.
    """
    chosen: list[K] = []
    seen: set[K] = set()
    left = need.clamp_zero()
    if not needs(left):
        return [], ZERO
    for key, held in units:
        if key in seen or not reduces(held, left):
            continue
        seen.add(key)
        chosen.append(key)
        left = (left - held).clamp_zero()
        if not needs(left):
            return chosen, ZERO
    if whole:
        return [], left
    return chosen, left
