"""Where a live session is: its state, and "round R · attempt N".

States, in the order a session goes through them::

    idle ─> connecting ─> streaming ─┬─> running_tools ─> connecting (the next round) ...
                                     └─> retrying ─> streaming ...
    any state ─> done | failed | cancelled                                   (final)

A session's place is "round R · attempt N": :mod:`inspector.core.analysis.numbering`, the
numbering every view and report uses.
"""

from __future__ import annotations

from enum import StrEnum


class RunState(StrEnum):
    """What a session is doing (a ``str``: it compares equal to its value)."""

    IDLE = "idle"
    """Created, not started."""
    CONNECTING = "connecting"
    """A round's first request is on its way; no response yet."""
    STREAMING = "streaming"
    """A response is arriving (a tool loop may already run tools: streaming dispatch)."""
    RUNNING_TOOLS = "running_tools"
    """The body has ended; the round's tools are finishing before the next round."""
    RETRYING = "retrying"
    """The retry of an invalid response is on its way; no response yet."""
    DONE = "done"
    FAILED = "failed"
    """Ended by an error (the session's ``error`` says which)."""
    CANCELLED = "cancelled"

    @property
    def final(self) -> bool:
        """done, failed or cancelled: nothing runs any more."""
        return self in _FINAL

    @property
    def label(self) -> str:
        """The state in words ("running tools")."""
        return self.value.replace("_", " ")


_FINAL = frozenset({RunState.DONE, RunState.FAILED, RunState.CANCELLED})
