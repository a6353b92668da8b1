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

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, Literal, get_args

from inspector.core.clients.agreement import same_input, same_name
from inspector.core.verdicts.judge import NOT_CHECKED

if TYPE_CHECKING:
    from inspector.core.analysis.attempt import AttemptView
    from inspector.core.capture.records import Capture
    from inspector.core.clients.base import HandedCall
    from inspector.core.clients.judge import ClientResult
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

ClientWord = Literal[
    "agrees",
    "n/a",
    "pending",
    "stopped",
    "raised",
    "raised with calls",
    "merged",
    "dropped calls",
    "phantom calls",
    "doubled id",
    "wrong id",
    "doubled name",
    "wrong name",
    "cut arguments",
    "empty arguments",
    "wrong arguments",
    "object arguments",
    "silent failure",
]
"""What one client library would have made of the stream (:func:`client_word`)."""
CLIENT_WORDS: Final[tuple[ClientWord, ...]] = get_args(ClientWord)
CLIENT_BREAKS: Final[frozenset[str]] = frozenset(CLIENT_WORDS[4:])
"""The client words that mean the client would not get the inspector's calls."""

SessionWord = Literal["valid", "invalid", "not checked", "failed", "interrupted", "streaming"]
"""What a whole session is, as its headline leads with it
(:func:`inspector.core.reports.headline.headline`): a failed request or an interrupted attempt
first, then ``invalid`` (an invalid call, or a body that is not UTF-8), ``not checked``
(validation off), ``valid``; ``streaming`` until the last attempt's body ended."""
SESSION_WORDS: Final[tuple[SessionWord, ...]] = get_args(SessionWord)

MatrixWord = Literal[
    "error",
    "skipped",
    "no call",
    "wrong calls",
    "invalid",
    "retried",
    "breaks clients",
    "quirk",
    "pass",
    "not checked",
    "pending",
]
"""What one compatibility-matrix cell (or one run of it) is, in this order of precedence
(:mod:`inspector.core.matrix.cells`): the first that applies wins; ``not checked`` stands for
``pass`` when validation is off; ``pending`` until a run finished."""
MATRIX_WORDS: Final[tuple[MatrixWord, ...]] = get_args(MatrixWord)

Word = CallWord | FragmentWord | AttemptWord | ClientWord | SessionWord | MatrixWord

UNDECODABLE_AT: Final = "the body is not valid UTF-8 at byte {byte}"
"""A body with bytes that are not UTF-8, as a headline says it (the clients' phrase follows)."""
UNDECODABLE: Final = UNDECODABLE_AT + ": a client raises there or reads U+FFFD in its place"
BAD_FRAME_AT: Final = "a frame of the body cannot be read whole at byte {byte}"
"""A binary frame with a CRC that does not match, cut off, or bytes outside any frame, as a
headline says it."""
BAD_FRAME: Final = BAD_FRAME_AT + ": the AWS SDKs raise there (a checksum or length error)"
"""The session-level reason such a body is invalid (exit 1), whatever its calls."""
"""The session-level reason a body with bytes that are not UTF-8 is invalid (exit 1), whatever
its calls: the provider sent bytes no client reads as sent. Measured over the demo provider's
``fault-invalid-utf8`` stream: the Python SDKs that decode each line strictly raise
(UnicodeDecodeError, or their wrapper of it), the readers that decode leniently (httpx's text
lines, a JavaScript TextDecoder) read U+FFFD instead; the clients' section says which."""

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
    # clients
    "agrees": "the client hands over exactly the inspector's calls",
    "n/a": "the client library does not speak this dialect",
    "pending": "the stream is still arriving",
    "stopped": (
        "the attempt was stopped before its stream ended (a user's Stop, an agent that hung "
        "up): a cut stream says nothing about the client, so none is judged on it"
    ),
    "raised": "the client raises instead of handing over calls",
    "raised with calls": (
        "the client hands calls over AND reports an error (e.g. raised after 2 calls): an "
        "agent stopping at the error loses the calls, one reading them misses the error"
    ),
    "merged": "the client merges several calls into one (names, ids or arguments run together)",
    "dropped calls": "the client hands over fewer calls than the stream holds",
    "phantom calls": "the client hands over calls the stream does not hold",
    "doubled id": "the client runs a call's id into itself: an id the provider never issued",
    "wrong id": "the client keeps an id other than the call's",
    "doubled name": "the client concatenates a call's name with itself",
    "wrong name": "the client hands over another name",
    "cut arguments": "the client hands over only the start of a call's arguments",
    "empty arguments": "the client hands over empty arguments for a call that has some",
    "wrong arguments": "the client hands over other arguments than the stream's",
    "object arguments": (
        "the client hands over a call's arguments as an object where its API promises a "
        "string (the wire sent an object): the agent's json.loads fails"
    ),
    "silent failure": (
        "the request failed, yet the client raises nothing: the agent gets an empty answer, "
        "not an error"
    ),
    # matrix cells ("invalid" and "not checked" as above)
    "error": "the session failed (its error class says why): no verdict on its calls",
    "skipped": "not run (the reason says why, e.g. the target's key is not set)",
    "no call": "the model made no tool call (calls written in its text are no client's calls)",
    "wrong calls": (
        "the model called tools, but not as the scenario expects (too few or too many calls, "
        "not parallel, a tool not called, other arguments: the reason says which)"
    ),
    "breaks clients": "the calls are right, but some client library would not get them",
    "quirk": "the right calls, every client gets them, and the stream shows a known quirk",
    "pass": "the expected calls, valid, every client gets them, no quirk",
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
    "agrees": "✓",
    "pending": "…",
    "stopped": "⊘",
    **dict.fromkeys(CLIENT_WORDS[4:], "✗"),
    "error": "✖",
    "skipped": "⊘",
    "no call": "∅",
    "wrong calls": "≠",
    "breaks clients": "✗",
    "quirk": "◐",
    "pass": "✔",
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
    validation is off or the item was not checked (a hosted item, a custom call whose tool
    declared no format), else ``valid``."""
    if verdict is None or open_ or verdict.call.open:
        return "streaming"
    if verdict.orphan:
        return "orphan"
    if verdict.problems:
        return "invalid"
    if verdict.call.truncated:
        return "truncated"
    if verdict.problems is NOT_CHECKED:  # a hosted item, a custom input with no format
        return "not checked"
    return "not checked" if validation == "off" else "valid"


def attempt_word(
    view: AttemptView, record: AttemptRecord | None = None, capture: Capture | None = None
) -> AttemptWord:
    """The word for one attempt: ``streaming`` until its body ended; then ``cancelled``,
    ``interrupted`` (no end record in its capture; a capture file whose header is all there is
    has attempt 1 interrupted), ``failed`` (HTTP >= 400 or an error ended it, or the provider
    sent an error inside the stream: :func:`provider_error`), else the retry policy's outcome
    from ``record``."""
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
    outcome = "accepted" if record is None else record.outcome
    if outcome in ("accepted", "accepted_degraded") and provider_error(view) is not None:
        return "failed"  # the provider's error inside the 200 stream: whatever came before
    return outcome


def provider_error(view: AttemptView) -> str | None:
    """The first error the provider sent inside the stream (an ``error`` object or event
    where chunks were expected), or None; a wire decoding error is not one."""
    for d in view.state.errors:
        raw = d.raw if isinstance(d.raw, dict) else {}
        if raw.get("wire") != "decode":
            return str(d.value)
    return None


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


def client_word(result: ClientResult, expected: Sequence[HandedCall]) -> ClientWord:
    """The word for what one client made of an attempt whose inspector calls are ``expected``:
    ``n/a``, ``pending``, ``agrees``, ``raised``, then by call count (``merged`` when fewer
    calls hold several calls' text run together, else ``dropped``; ``phantom`` when more),
    then by the first call that differs: id, name, arguments (``cut arguments`` when the
    client's are a prefix of the inspector's); ``silent failure`` when it hands over the
    inspector's very calls yet does not agree (the driver's only such case: a failed request
    the client raised nothing for)."""
    if not result.applies:
        return "n/a"
    if result.agrees is None:
        return "pending"
    if result.agrees:
        return "agrees"
    if result.error is not None:
        return "raised with calls" if result.calls else "raised"
    got = result.calls
    if len(got) < len(expected):
        return "merged" if _runs_together(expected, got) else "dropped calls"
    if len(got) > len(expected):
        return "phantom calls"
    for want, have in zip(expected, got, strict=True):
        if want.id and want.id != have.id:
            return "doubled id" if _repeats(want.id, have.id) else "wrong id"
        if not same_name(want, have):
            return "doubled name" if _repeats(want.name, have.name) else "wrong name"
        if not same_input(want, have):
            return _arguments_word(want.arguments, have.arguments)
        if have.object:
            return "object arguments"
    return "silent failure"  # the same calls, yet no agreement: a failure it did not raise


def spoken(word: str, result: ClientResult) -> str:
    """The word as a sentence says it: ``raised with calls`` says both, in order
    (``raised after 2 calls``, ``raised before 2 calls``, ``raised after 1 of 3 calls``);
    every other word as it is."""
    if word != "raised with calls":
        return word
    n, after = len(result.calls), result.error_after
    calls = f"{n} call{'s' if n != 1 else ''}"
    if after is None or after >= n:
        return f"raised after {calls}"
    if after == 0:
        return f"raised before {calls}"
    return f"raised after {after} of {calls}"


def _repeats(want: str | None, have: str | None) -> bool:
    return bool(want and have and have != want and have.startswith(want * 2))


def _runs_together(expected: Sequence[HandedCall], got: Sequence[HandedCall]) -> bool:
    names = [c.name or "" for c in expected]
    return any(
        sum(1 for n in names if n and n in (c.name or "")) > 1
        or "}{" in c.arguments.replace(" ", "")
        for c in got
    )


def _arguments_word(want: str, have: str) -> ClientWord:
    if have and want.startswith(have):
        return "cut arguments"
    if have.strip() in ("", "{}") and want.strip() not in ("", "{}"):
        return "empty arguments"
    return "wrong arguments"
