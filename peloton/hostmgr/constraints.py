"""HOST-kind scheduling constraints evaluated by the host manager (pure).

As Peloton's host manager does (reference/peloton.md §5.4), ``AcquireHosts``
leases only hosts whose labels (attributes, plus ``hostname``) satisfy the
HOST-kind leaves of a batch's constraint; TASK-kind leaves are not
applicable here (placement counts them). An AND fails when any applicable
leaf fails; an OR holds when any applicable leaf holds; a tree with no
applicable leaf holds everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from peloton.api.v0.task import task_pb2

HOSTNAME_LABEL = "hostname"
_LC = task_pb2.LabelConstraint
_C = task_pb2.Constraint

HostCheck = Callable[[str, Mapping[str, str]], bool]  # (hostname, attributes) -> ok


def _leaf(lc: task_pb2.LabelConstraint) -> HostCheck | None:
    if lc.kind != _LC.HOST:
        return None
    key, value, want, condition = lc.label.key, lc.label.value, lc.requirement, lc.condition

    def check(hostname: str, attributes: Mapping[str, str]) -> bool:
        have = (value == hostname) if key == HOSTNAME_LABEL else attributes.get(key) == value
        count = 1 if have else 0
        if condition == _LC.CONDITION_LESS_THAN:
            return count < want
        if condition == _LC.CONDITION_GREATER_THAN:
            return count > want
        return count == want
    return check


def host_check(constraint: task_pb2.Constraint) -> HostCheck | None:
    """A check of ``constraint``'s HOST-kind leaves, or None when it has none."""
    if constraint.type == _C.LABEL_CONSTRAINT:
        return _leaf(constraint.labelConstraint)
    if constraint.type in (_C.AND_CONSTRAINT, _C.OR_CONSTRAINT):
        items = (constraint.andConstraint if constraint.type == _C.AND_CONSTRAINT
                 else constraint.orConstraint).constraints
        checks = [c for c in map(host_check, items) if c is not None]
        if not checks:
            return None
        if constraint.type == _C.AND_CONSTRAINT:
            return lambda h, a: all(c(h, a) for c in checks)
        return lambda h, a: any(c(h, a) for c in checks)
    return None


def describe(constraint: task_pb2.Constraint) -> str:
    """The HOST-kind part of a constraint, readable: ``hostname == db-7``."""
    if constraint.type == _C.LABEL_CONSTRAINT:
        lc = constraint.labelConstraint
        op = {_LC.CONDITION_LESS_THAN: "<", _LC.CONDITION_GREATER_THAN: ">"}.get(
            lc.condition, "==")
        if lc.requirement == 1 and op == "==":
            return f"{lc.label.key} == {lc.label.value}"
        if lc.requirement == 0 and op == "==":
            return f"{lc.label.key} != {lc.label.value}"
        return f"count({lc.label.key} == {lc.label.value}) {op} {lc.requirement}"
    joiner = " and " if constraint.type == _C.AND_CONSTRAINT else " or "
    items = (constraint.andConstraint if constraint.type == _C.AND_CONSTRAINT
             else constraint.orConstraint).constraints
    parts = [describe(c) for c in items
             if c.type != _C.LABEL_CONSTRAINT or c.labelConstraint.kind == _LC.HOST]
    return "(" + joiner.join(parts) + ")"
