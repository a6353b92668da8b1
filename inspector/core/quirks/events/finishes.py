"""Finish reasons as they arrive (:class:`Finishes`): counted per choice, so a second one for
the same choice repeats it; ``""`` is no reason; a rejected call's reason is named.

Invariants: fed each finish delta of one stream once, in arrival order (by the wire scan), it
reports what a single pass over the finished stream reports; a choice that is no JSON integer
or string shares one key (the dialect flagged it).
"""

from __future__ import annotations

from typing import Any, Final

from inspector.core.base.model import Delta
from inspector.core.calls.wirefield import is_key
from inspector.core.quirks.codes import (
    EMPTY_FINISH_REASON,
    MALFORMED_FUNCTION_CALL,
    REPEATED_FINISH_REASON,
)
from inspector.core.quirks.seen import Seen

MALFORMED_CALL_REASONS: Final = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"})
"""Finish reasons saying the model's tool call was rejected by the server (none delivered)."""


class Finishes:
    """The finish reasons seen so far, per choice: [first seq, reason, repeated]."""

    __slots__ = ("choices",)

    def __init__(self) -> None:
        self.choices: dict[Any, list[Any]] = {}

    def feed(self, d: Delta, seen: Seen) -> None:
        """The finish delta ``d``: what it shows goes to ``seen``."""
        reason = d.value
        if reason == "":
            seen.add(EMPTY_FINISH_REASON, d.seq)
            return
        if type(reason) is str and reason in MALFORMED_CALL_REASONS:
            seen.add(MALFORMED_FUNCTION_CALL, d.seq, reason)
        raw = d.raw
        choice = raw.get("index", 0) if isinstance(raw, dict) else 0
        key = choice if is_key(choice) else None
        first = self.choices.get(key)
        if first is None:
            self.choices[key] = [d.seq, reason, False]
            return
        if not first[2]:
            first[2] = True
            seen.add(REPEATED_FINISH_REASON, first[0], f"{first[1]!r} then {reason!r}")
        seen.add(REPEATED_FINISH_REASON, d.seq)
