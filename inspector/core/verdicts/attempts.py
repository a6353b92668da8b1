"""Attempt semantics: which reason an invalid streamed response gets, and what follows.

The reasons, the recovery action and the one streaming retry come from "validating streamed
tool calls before execution" (docs/glossary.md).

Invariants:
- Reasons are exactly those: ``stream_empty_tool_arguments`` when every invalid call
  matches the legacy empty-required-arguments condition (``stream_empty_args_replay`` when a
  retry fails that way again), ``stream_invalid_tool_call`` otherwise. The recovery action is
  ``retry_streaming``; at most one retry follows an invalid attempt.
- A retry that is still invalid is ``accepted_degraded``: its invalid calls are reported with
  their raw arguments and answered with an error tool result instead of being executed.
- Pure functions of verdicts; the live session (net) and the report (core) share them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, get_args

from inspector.core.verdicts.tools import ToolRegistry
from inspector.core.verdicts.validation import matches_empty_required_condition

AttemptReason = Literal[
    "stream_empty_tool_arguments", "stream_empty_args_replay", "stream_invalid_tool_call"
]
"""Why an attempt's streamed response was invalid (the spellings of captures and reports)."""
ATTEMPT_REASONS: Final[tuple[AttemptReason, ...]] = get_args(AttemptReason)
EMPTY_ARGS: Final[AttemptReason] = "stream_empty_tool_arguments"
EMPTY_ARGS_REPLAY: Final[AttemptReason] = "stream_empty_args_replay"
INVALID_CALL: Final[AttemptReason] = "stream_invalid_tool_call"

RecoveryAction = Literal["retry_streaming"]
"""What follows an invalid attempt: one retry, streamed like the first request."""
RETRY_STREAMING: Final[RecoveryAction] = "retry_streaming"

Outcome = Literal["accepted", "retried", "accepted_degraded", "invalid", "failed"]
"""What the retry policy made of one attempt (see :attr:`AttemptRecord.outcome`)."""
OUTCOMES: Final[tuple[Outcome, ...]] = get_args(Outcome)
ACCEPTED: Final[Outcome] = "accepted"
RETRIED: Final[Outcome] = "retried"
DEGRADED: Final[Outcome] = "accepted_degraded"
INVALID: Final[Outcome] = "invalid"
FAILED: Final[Outcome] = "failed"


class VerdictLike(Protocol):
    """What attempt logic needs of a call verdict."""

    @property
    def valid(self) -> bool: ...
    @property
    def orphan(self) -> bool: ...
    @property
    def name(self) -> Any: ...
    @property
    def arguments(self) -> str: ...
    def diagnostic(self) -> dict[str, Any]: ...


@dataclass
class AttemptRecord:
    """One physical request and what the retry policy made of it."""

    attempt: int
    """1-based attempt number."""
    outcome: Outcome
    """accepted | retried | accepted_degraded | invalid (no retry recorded) | failed."""
    reason: AttemptReason | None = None
    """The attempt reason when the response had invalid native calls."""
    recovery_action: RecoveryAction | None = None
    """``retry_streaming`` when a retry follows (or would follow) this attempt."""
    invalid: Sequence[VerdictLike] = ()
    """The verdicts of the calls still invalid (their diagnostics are made when read)."""
    usage: Any = None
    """This request's own usage, as the provider reported it."""
    duration: float | None = None
    """Seconds from request to end of body, when timed."""
    error: str | None = None
    """Transport or provider error that ended the attempt, if any."""

    @property
    def invalid_tool_calls(self) -> list[dict[str, Any]]:
        """Diagnostics of the calls still invalid (raw arguments included), made when read:
        a record keeps verdicts, not a dict per invalid call."""
        return [v.diagnostic() for v in self.invalid]

    def to_json(self, lazy: bool = False) -> dict[str, Any]:
        """The ``--json`` shape; ``lazy``: its ``invalid_tool_calls`` an iterator of their
        entries (for a report written as it is made)."""
        diagnostics = (v.diagnostic() for v in self.invalid)
        return {
            "attempt": self.attempt,
            "outcome": self.outcome,
            "reason": self.reason,
            "recovery_action": self.recovery_action,
            "invalid_tool_calls": diagnostics if lazy else list(diagnostics),
            "usage": self.usage,
            "duration": self.duration,
            "error": self.error,
        }


def attempt_reason(
    verdicts: Sequence[VerdictLike],
    registry: ToolRegistry | None,
    previous: AttemptReason | None = None,
) -> AttemptReason | None:
    """The reason for an attempt's invalid calls (None when every call is valid)."""
    invalid = [v for v in verdicts if not v.valid and not v.orphan]
    if not invalid:
        return None
    empty = all(matches_empty_required_condition(v.name, v.arguments, registry) for v in invalid)
    if not empty:
        return INVALID_CALL
    return EMPTY_ARGS_REPLAY if previous in (EMPTY_ARGS, EMPTY_ARGS_REPLAY) else EMPTY_ARGS


def plan(
    attempts: Sequence[Sequence[VerdictLike]],
    registry: ToolRegistry | None,
    *,
    errors: Sequence[str | None] = (),
    recorded: Sequence[str | None] = (),
) -> list[AttemptRecord]:
    """Attempt records for a recorded sequence of attempts (each a list of call verdicts).

    An attempt followed by one recorded as its retry (``recorded[i]``: the reason attempt
    ``i`` was sent with, from its capture) was retried, whatever the validation mode in force
    says of its calls now (a recording made under a stricter mode), with that reason."""
    records: list[AttemptRecord] = []
    previous: AttemptReason | None = None
    for i, verdicts in enumerate(attempts):
        error = errors[i] if i < len(errors) else None
        reason = attempt_reason(verdicts, registry, previous)
        last = i == len(attempts) - 1
        retry = recorded[i + 1] if i + 1 < len(recorded) else None
        retried_for = next((r for r in ATTEMPT_REASONS if r == retry), None)
        if reason is None and retried_for is not None and not error:
            rec = AttemptRecord(i + 1, RETRIED, retried_for, RETRY_STREAMING)
            records.append(rec)
            previous = retried_for
            continue
        rec = AttemptRecord(attempt=i + 1, outcome=ACCEPTED, reason=reason, error=error)
        if reason is None:
            rec.outcome = FAILED if error else ACCEPTED
        elif not last:
            rec.outcome, rec.recovery_action = RETRIED, RETRY_STREAMING
        elif i > 0:
            rec.outcome = DEGRADED
        else:
            rec.outcome, rec.recovery_action = INVALID, RETRY_STREAMING
        if reason is not None and rec.outcome in (DEGRADED, INVALID):
            rec.invalid = [v for v in verdicts if not v.valid and not v.orphan]
        records.append(rec)
        previous = reason
    return records


def should_retry(record: AttemptRecord, *, retries_done: int, remaining_budget: float) -> bool:
    """At most one streaming retry, and only within the attempt's remaining budget."""
    return record.reason is not None and retries_done == 0 and remaining_budget > 0
