"""What every report says of an item's kind: its ``kind`` and ``item_type`` words, and the
agent's calls counted apart from the hosted items.

Invariants:
- A call written in the text is a ``function`` of item type ``text:<format>``; every other
  call says what its opener said (:attr:`~inspector.core.calls.toolcall.ToolCall.kind`,
  :attr:`~inspector.core.calls.toolcall.ToolCall.item_type`).
- :func:`counts` counts an attempt's non-orphan lanes: hosted items apart from the agent's
  calls (function, custom, built-in). A report shows kinds (a column, the counts in the
  headline) only when some lane is not a function call (:func:`shows_kinds`), so a report of
  function calls alone reads as it always did.
"""

from __future__ import annotations

from typing import Any

from inspector.core.analysis.session import AttemptView
from inspector.core.base.kinds import CallKind
from inspector.core.calls.textobject import TextCall


def kind_word(call: Any) -> str:
    """The call's kind (``function`` for a call written in the text)."""
    return CallKind.FUNCTION if isinstance(call, TextCall) else str(call.kind)


def item_type_word(call: Any) -> str:
    """The call's wire item type (``text:<format>`` for a call written in the text)."""
    return f"text:{call.form}" if isinstance(call, TextCall) else str(call.item_type)


def counts(view: AttemptView) -> tuple[int, int]:
    """(the agent's calls, the hosted items) among the attempt's non-orphan lanes."""
    agent = hosted = 0
    for v in view.verdicts:
        if v.orphan:
            continue
        if kind_word(v.call) == CallKind.HOSTED:
            hosted += 1
        else:
            agent += 1
    return agent, hosted


def shows_kinds(view: AttemptView) -> bool:
    """Whether some lane of the attempt is not a function call."""
    return any(kind_word(v.call) != CallKind.FUNCTION for v in view.verdicts)


def counts_phrase(view: AttemptView) -> str:
    """``1 agent call · 6 hosted items`` (the headline's addition when kinds are shown)."""
    agent, hosted = counts(view)
    return (f"{agent} agent call{'' if agent == 1 else 's'} · "
            f"{hosted} hosted item{'' if hosted == 1 else 's'}")  # fmt: skip
