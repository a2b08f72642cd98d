"""Where bulk work yields to the other trio tasks, as a string of marks."""

from __future__ import annotations

from typing import Any

import pytest
import trio


def mark_steps(patch: pytest.MonkeyPatch, *calls: tuple[Any, str, str]) -> list[str]:
    """Patch each ``(owner, name, mark)`` so that a call notes ``mark``, and
    ``trio.lowlevel.checkpoint`` so that a yield notes ``"|"``; return the
    notes, which fill in call order while the patches last."""
    seen: list[str] = []
    for owner, name, mark in calls:
        real = getattr(owner, name)

        def noted(*args: Any, real: Any = real, mark: str = mark) -> Any:
            seen.append(mark)
            return real(*args)

        patch.setattr(owner, name, noted)
    real_checkpoint = trio.lowlevel.checkpoint

    async def checkpoint() -> None:
        seen.append("|")
        await real_checkpoint()

    patch.setattr(trio.lowlevel, "checkpoint", checkpoint)
    return seen
