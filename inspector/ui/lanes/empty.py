"""What the lanes say in place of lanes: an attempt without tool calls, and why.

Invariants:
- A failed request says that it failed and how (its status, or the error that ended it):
  an error body is no stream, so "No tool calls in this attempt." would read as a model
  that answered in text.
- "(yet)" only while the body is still coming; nothing open says "No tool calls yet.".
- A later round without calls (a tool loop's closing text answer) keeps the earlier round's
  calls in reach: it names the last attempt with calls in an earlier round and links to it
  (``attempt:N``), so the lanes the user watched are one click away, never just gone.
"""

from __future__ import annotations

from typing import Final

from inspector.core.analysis.numbering import attempt_places
from inspector.core.analysis.session import Analysis, AttemptView

NO_CALLS_YET: Final = "No tool calls yet."
LINK: Final = "attempt:"
"""The placeholder's link to an earlier round's attempt: ``attempt:N`` (session-wide N)."""


def earlier_calls(analysis: Analysis | None, view: AttemptView | None) -> str:
    """For a call-less ``view`` after an earlier round with calls: a link to the last attempt
    of an earlier round that has calls ("" when there is none)."""
    if analysis is None or view is None or view.state.calls or view.round <= 1:
        return ""
    places = attempt_places(analysis.attempts)
    for other in reversed(analysis.attempts[: view.number - 1]):
        if other.round < view.round and other.state.calls:
            n = len(other.state.calls)
            return (
                f'<a href="{LINK}{other.number}">Show the {n} tool call{"s" if n != 1 else ""}'
                f" of {places[other.number]}</a>"
            )
    return ""


def empty_text(view: AttemptView | None, analysis: Analysis | None = None) -> str:
    """The placeholder text for ``view`` when it has no calls (see the module docstring);
    rich text with a link when an earlier round had calls."""
    if view is None or view.state.calls:
        return NO_CALLS_YET
    if view.failed:
        source = view.source
        status = source.status if source is not None else None
        how = f"HTTP {status}" if status is not None and status >= 400 else view.error or "failed"
        return f"The request failed ({how}): no stream, so no tool calls. The raw wire shows it."
    if not view.state.ended:
        return "No tool calls in this attempt (yet)."
    earlier = earlier_calls(analysis, view)
    if earlier:
        return f"No tool calls in round {view.round}: the model answered in text.<br>{earlier}"
    return "No tool calls in this attempt."
