"""The inspector's one vocabulary: the word every view and ``analyze`` use for a call, a
fragment and an attempt, decided here from core state, with its symbol and its meaning.

Invariants:
- This is the only place a verdict becomes a word. Views, the compare view and the report
  call :func:`call_word` / :func:`attempt_word` and show :func:`label`; none of them decides
  "valid" on its own. Later issues extend the vocabulary here (new words, new symbols), not in
  a view.
- A call is ``valid`` only when it was checked: with validation ``off`` a call without a
  problem is ``not checked``, never ``valid``.
- An attempt is ``interrupted`` when its capture holds no end record for it (the writer was
  stopped first), ``cancelled`` when its end record says the user stopped it, and ``failed``
  when the request failed (HTTP status >= 400, a transport error, a wrong content type):
  these are facts of the recording and win over what the retry policy made of the calls.
- Words are plain lowercase strings (the JSON spelling); :func:`label` adds the symbol and
  shows ``invalid`` in capitals, as the views always have. Colour is never alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal, get_args

if TYPE_CHECKING:
    from inspector.core.analysis.attempt import AttemptView
    from inspector.core.capture.records import Capture
    from inspector.core.verdicts.attempts import AttemptRecord
    from inspector.core.verdicts.judge import CallVerdict

CallWord = Literal["valid", "invalid", "not checked", "streaming", "truncated", "orphan"]
"""What one tool call is, under the settings in force."""
CALL_WORDS: Final[tuple[CallWord, ...]] = get_args(CallWord)

FragmentWord = Literal["dropped"]
"""What happened to one fragment (only said when something did)."""
FRAGMENT_WORDS: Final[tuple[FragmentWord, ...]] = get_args(FragmentWord)

AttemptWord = Literal[
    "accepted",
    "retried",
    "accepted_degraded",
    "invalid",  # the retry policy's outcome when its calls were invalid and no retry is recorded
    "failed",
    "interrupted",
    "cancelled",
    "streaming",
]
"""What became of one attempt (one physical request)."""
ATTEMPT_WORDS: Final[tuple[AttemptWord, ...]] = get_args(AttemptWord)

Word = CallWord | FragmentWord | AttemptWord

MEANING: Final[dict[str, str]] = {
    # calls
    "valid": "checked under the validation mode in force, and fit to execute",
    "invalid": "checked, and not fit to execute (see its problems)",
    "not checked": (
        "validation is off: the call was not checked (only the legacy empty-required-arguments "
        "condition is)"
    ),
    "streaming": "still arriving: not judged until it ends",
    "truncated": "the stream ended before this call was complete",
    "orphan": "an id-only entry with no name and no arguments: left out of the turn",
    # fragments
    "dropped": "a fragment the empty-id policy could not place in any call",
    # attempts
    "accepted": "the response was used as it came",
    "retried": "its calls were invalid, so the request was sent again (one streaming retry)",
    "accepted_degraded": "the retry was invalid too: its invalid calls got error results",
    "failed": "the request failed (HTTP status >= 400, a transport error, a wrong content type)",
    "interrupted": "the capture has no end record for it: recording stopped mid-attempt",
    "cancelled": "the user stopped it before the body ended",
}
"""One line per word: what it means (tooltips, help, the README table)."""

SYMBOL: Final[dict[str, str]] = {
    "valid": "✔",
    "invalid": "✖",
    "not checked": "–",
    "streaming": "…",
    "truncated": "✂",
    "orphan": "○",
    "dropped": "⊖",
    "accepted": "✔",
    "retried": "↻",
    "accepted_degraded": "⚠",
    "failed": "✖",
    "interrupted": "✂",
    "cancelled": "⊘",
}
"""The symbol shown before each word (colour is never alone)."""


def shown_word(word: str) -> str:
    """The word as text shows it: ``invalid`` in capitals (as it always was), others as is."""
    return "INVALID" if word == "invalid" else word


def label(word: str) -> str:
    """The word as views show it: its symbol, then :func:`shown_word`."""
    symbol = SYMBOL.get(word)
    return f"{symbol} {shown_word(word)}" if symbol else shown_word(word)


def call_word(verdict: CallVerdict | None, *, validation: str, open_: bool = False) -> CallWord:
    """The word for one call: ``streaming`` while open (or not judged yet), ``orphan``,
    ``invalid`` when it has problems (with validation off only the legacy empty-required
    condition makes one), ``truncated`` when the stream cut it off, ``not checked`` when
    validation is off, else ``valid``."""
    if verdict is None or open_ or verdict.call.open:
        return "streaming"
    if verdict.orphan:
        return "orphan"
    if verdict.problems:
        return "invalid"
    if verdict.call.truncated:
        return "truncated"
    return "not checked" if validation == "off" else "valid"


def attempt_word(
    view: AttemptView, record: AttemptRecord | None = None, capture: Capture | None = None
) -> AttemptWord:
    """The word for one attempt: ``streaming`` until its body ended; then ``cancelled``,
    ``interrupted`` (no end record in its capture; a capture file whose header is all there is
    has attempt 1 interrupted), ``failed`` (HTTP >= 400 or an error ended it), else the retry
    policy's outcome from ``record``."""
    if not view.state.ended:
        return "streaming"
    source = view.source
    if source is None:
        if capture is not None and capture.kind == "capture":
            return "interrupted"  # a header and no records: the writer never got further
    else:
        end = source.end
        if end is not None and end.get("reason") == "cancelled":
            return "cancelled"
        if source.interrupted:
            return "interrupted"
    if is_failed_request(view):
        return "failed"
    return "accepted" if record is None else record.outcome


DECIDED_BY_RETRY_POLICY: Final = ("retried", "accepted_degraded", "invalid")
"""The attempt words the retry policy decided: only these are shown with a reason."""


def retry_facts(word: str, record: AttemptRecord | None) -> tuple[str | None, str | None]:
    """The attempt reason and recovery action shown beside ``word``: none for an attempt
    that never reached the retry decision (cancelled, interrupted, failed, streaming) or
    needed none (accepted); the recovery action only where a retry follows or would."""
    if record is None or word not in DECIDED_BY_RETRY_POLICY:
        return None, None
    recovery = record.recovery_action if word in ("retried", "invalid") else None
    return record.reason, recovery


def is_failed_request(view: AttemptView) -> bool:
    """The request itself failed (:attr:`AttemptView.failed`): HTTP status >= 400, or an error
    ended the attempt; a cancelled attempt did not fail."""
    return view.failed
