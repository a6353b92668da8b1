"""What a session runner obeys: the settings of a live session and the retry rule.

The retry rule (the client's, which the inspector reproduces): when a round's first attempt
ends with an invalid native tool call, ONE streaming retry of the same request follows, if
retry is on and the attempt budget has time left. The attempt's reason and the retry decision
come from the core (:mod:`inspector.core.verdicts.attempts`); this module only says when to ask.

Invariants:
- The attempt budget starts with the round's first request and only gates and bounds the retry:
  no retry once it is spent, and a retry that outlives it ends with
  :class:`~inspector.net.errors.BudgetExhausted`. The first attempt itself is bounded only by
  the connect/read timeouts, so a slow but live stream is never cut for the inspector's sake.
- Transport and provider errors are never retried: only invalid calls are.
- A retry never spans two rounds, and a retried attempt is not retried again.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from inspector.core.base.settings import DEFAULT_MODE, VALIDATION_MODES, ValidationMode
from inspector.core.verdicts import attempts as core_attempts
from inspector.core.verdicts.attempts import AttemptRecord


@dataclass(frozen=True)
class LoopSettings:
    """The client's LoopConfig, as far as a live session needs it.

    ``tool_argument_validation`` and ``stream_transport`` are keyword-only (as in the client's
    config), so positional construction of the other fields is unaffected.
    """

    retry: bool = True
    """Retry an invalid streamed response once (within the round)."""
    attempt_budget: float = 120.0
    """Seconds from a round's first request within which the retry must start and finish."""
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    """Seconds without a byte before an attempt ends with ReadTimeout."""
    _: KW_ONLY
    tool_argument_validation: ValidationMode = DEFAULT_MODE
    """off | structural | strict: the validation modes."""
    stream_transport: bool | None = None
    """None: legacy automatic selection. The inspector always streams, so False is refused."""

    def __post_init__(self) -> None:
        if self.tool_argument_validation not in VALIDATION_MODES:
            raise ValueError(f"tool_argument_validation must be one of {VALIDATION_MODES}")
        if self.stream_transport is False:
            raise ValueError("stream_transport=False is not supported: the inspector streams")
        if self.attempt_budget < 0 or self.connect_timeout <= 0 or self.read_timeout <= 0:
            raise ValueError("the budget must be >= 0 and the timeouts > 0")

    def may_retry(self, attempt_in_round: int) -> bool:
        """Could this attempt still be replaced by a retry? (Only a round's first attempt, and
        only with retry on; the budget is checked when the attempt has ended.)"""
        return self.retry and attempt_in_round == 1

    def retry_reason(
        self, record: AttemptRecord, *, attempt_in_round: int, remaining: float
    ) -> str | None:
        """The attempt reason a retry is recorded with, or None when no retry follows.

        ``record`` is the core's record of the attempt that just ended; ``remaining`` the
        seconds of the round's budget left now.
        """
        if not self.may_retry(attempt_in_round) or record.reason is None:
            return None
        if not core_attempts.should_retry(record, retries_done=0, remaining_budget=remaining):
            return None
        return record.reason
