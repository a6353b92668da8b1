"""What the lanes say in place of lanes: an attempt without tool calls, and why.

Invariants:
- A failed request says that it failed and how (its status, or the error that ended it):
  an error body is no stream, so "No tool calls in this attempt." would read as a model
  that answered in text.
- "(yet)" only while the body is still coming; nothing open says "No tool calls yet.".
"""

from __future__ import annotations

from typing import Final

from inspector.core.analysis.session import AttemptView

NO_CALLS_YET: Final = "No tool calls yet."


def empty_text(view: AttemptView | None) -> str:
    """The placeholder text for ``view`` when it has no calls (see the module docstring)."""
    if view is None or view.state.calls:
        return NO_CALLS_YET
    if view.failed:
        source = view.source
        status = source.status if source is not None else None
        how = f"HTTP {status}" if status is not None and status >= 400 else view.error or "failed"
        return f"The request failed ({how}): no stream, so no tool calls. The raw wire shows it."
    if not view.state.ended:
        return "No tool calls in this attempt (yet)."
    return "No tool calls in this attempt."
