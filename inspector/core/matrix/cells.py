"""One run of a cell (:class:`CellRun`) and a cell over its runs (:class:`Cell`), with their
words.

A run's word, in this order of precedence (the first that applies):
``error`` (the session failed: its error class says why) · ``skipped`` (not run: the reason
says why, e.g. no key) · ``no call`` (no tool call at all: calls written in the text do not
count) · ``wrong calls`` (tool calls, but not what the scenario's ``expect`` block asks for:
``expect_failures`` says why) · ``invalid`` (a call's arguments are invalid under the mode,
after any retry) · ``retried`` (the first response was invalid, its retry was not) ·
``breaks clients`` (a client replica would not get the calls) · ``quirk`` (the stream shows a
catalogued quirk) · ``pass`` (``not checked`` in its place when validation is off).

Invariants:
- A cell's word is its worst run's word by that precedence (a flaky cell shows what went
  wrong, its pass rate how often); a cell with no finished run is ``pending``.
- A run passes when its word is ``pass``, ``quirk`` or ``not checked``: the right calls
  arrived with valid arguments and every client replica got them. ``retried`` does not pass
  (a client without the retry rule got invalid arguments), nor ``breaks clients``.
- ``to_json`` writes what ``from_json`` reads, field for field (docs/matrix.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Final

from inspector.core.base.settings import DEFAULT_MODE
from inspector.core.capture.redaction import mask_secrets
from inspector.core.reports.words import MATRIX_WORDS, MatrixWord

PASSING: Final[frozenset[str]] = frozenset({"pass", "quirk", "not checked"})
"""The run words that count towards a cell's pass rate."""


@dataclass(frozen=True)
class ErrorInfo:
    """Why a session failed: its error class (``ProviderHTTPError``, ``ReadTimeout`` …) and
    the one-line message, credential-shaped words masked whoever made it (the session masks
    its own key before: :func:`~inspector.core.capture.redaction.mask_secrets`)."""

    type: str
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", mask_secrets(self.message))


@dataclass(frozen=True)
class RateLimit:
    """One 429 the matrix waited out: the ``retry-after`` header as sent and the seconds
    waited before the session was run again."""

    retry_after: str | None
    waited: float


@dataclass(frozen=True)
class ClientOutcome:
    """What one client replica made of the run: its word and whether it got the right calls
    (None: the replica does not speak the dialect, or nothing was judged)."""

    word: str
    right: bool | None


@dataclass(frozen=True)
class CellRun:
    """One session of a cell, as judged (see the module docstring for its word)."""

    run: int
    """1-based run number within the cell."""
    word: MatrixWord
    capture: str | None = None
    """The session's capture, relative to the matrix folder (None: nothing was sent)."""
    error: ErrorInfo | None = None
    skipped: str | None = None
    """Why the run was not made (no key, cancelled before it started …)."""
    expected: bool | None = None
    """The scenario's expected calls were made (None: not judged, e.g. an error)."""
    expect_failures: tuple[str, ...] = ()
    """What the expectation missed, one phrase each."""
    calls: int = 0
    """Tool calls in the final response (calls written as text not counted)."""
    text_calls: int = 0
    """Calls written in the final response's text (Hermes ``<tool_call>`` …): no client's."""
    valid: bool | None = None
    """Every call's arguments are valid under the mode (None: validation off / not judged)."""
    retried: bool = False
    retry_reason: str | None = None
    accepted_degraded: bool = False
    quirks: tuple[str, ...] = ()
    """Quirk codes the session's stream shows, in report order."""
    first_tool_fragment: float | None = None
    """Seconds from the final attempt's request to its first tool-call fragment."""
    duration: float = 0.0
    """Seconds the session took (its retry included; 429 waits not)."""
    tokens: dict[str, int] | None = None
    """Usage as the provider reported it in the stream (``input``/``output``/``total``)."""
    clients: dict[str, ClientOutcome] = field(default_factory=dict)
    rate_limits: tuple[RateLimit, ...] = ()

    @property
    def passed(self) -> bool:
        """The run counts towards the pass rate."""
        return self.word in PASSING

    def to_json(self) -> dict[str, Any]:
        """The run's entry in ``matrix.json``."""
        out = asdict(self)
        out["expect_failures"] = list(self.expect_failures)
        out["quirks"] = list(self.quirks)
        out["rate_limits"] = [asdict(r) for r in self.rate_limits]
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> CellRun:
        """A run from its ``matrix.json`` entry (KeyError/TypeError/ValueError on a bad one)."""
        if obj["word"] not in MATRIX_WORDS:
            raise ValueError(f"unknown cell word {obj['word']!r}")
        error = obj.get("error")
        return cls(
            run=int(obj["run"]), word=obj["word"], capture=obj.get("capture"),
            error=ErrorInfo(str(error["type"]), str(error["message"])) if error else None,
            skipped=obj.get("skipped"), expected=obj.get("expected"),
            expect_failures=tuple(obj.get("expect_failures", ())), calls=int(obj.get("calls", 0)),
            text_calls=int(obj.get("text_calls", 0)),
            valid=obj.get("valid"), retried=bool(obj.get("retried")),
            retry_reason=obj.get("retry_reason"),
            accepted_degraded=bool(obj.get("accepted_degraded")),
            quirks=tuple(obj.get("quirks", ())),
            first_tool_fragment=obj.get("first_tool_fragment"),
            duration=float(obj.get("duration", 0.0)), tokens=obj.get("tokens"),
            clients={k: ClientOutcome(str(v["word"]), v["right"])
                     for k, v in (obj.get("clients") or {}).items()},
            rate_limits=tuple(RateLimit(r.get("retry_after"), float(r["waited"]))
                              for r in obj.get("rate_limits", ())),
        )  # fmt: skip


def run_word(
    *,
    error: bool = False,
    skipped: bool = False,
    expected: bool = True,
    called: bool = True,
    valid: bool | None = True,
    retried: bool = False,
    breaks_clients: bool = False,
    quirks: bool = False,
    validation: str = DEFAULT_MODE,
) -> MatrixWord:
    """A run's word from its facts, by the precedence in the module docstring. ``called``:
    the response made some tool call on the wire (an expectation missed without one is
    ``no call``, with one ``wrong calls``)."""
    if error:
        return "error"
    if skipped:
        return "skipped"
    if not expected:
        return "wrong calls" if called else "no call"
    if valid is False:
        return "invalid"
    if retried:
        return "retried"
    if breaks_clients:
        return "breaks clients"
    if quirks:
        return "quirk"
    return "not checked" if validation == "off" else "pass"


PRECEDENCE: Final[tuple[MatrixWord, ...]] = (
    "error", "skipped", "no call", "wrong calls", "invalid", "retried", "breaks clients", "quirk",
    "not checked", "pass", "pending",
)  # fmt: skip
"""The cell words, worst first: a cell shows its worst run's word."""


@dataclass
class Cell:
    """One target x scenario: its runs so far (a rerun replaces them)."""

    target: str
    scenario: str
    runs: list[CellRun] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str]:
        """(target, scenario): where the cell sits."""
        return self.target, self.scenario

    @property
    def word(self) -> MatrixWord:
        """The worst run's word; ``pending`` before any run finished."""
        if not self.runs:
            return "pending"
        return min((r.word for r in self.runs), key=PRECEDENCE.index)

    @property
    def passed(self) -> int:
        """Runs that pass."""
        return sum(1 for r in self.runs if r.passed)

    @property
    def pass_rate(self) -> str:
        """``2/3``: passing runs over finished runs (``-`` before any)."""
        return f"{self.passed}/{len(self.runs)}" if self.runs else "-"

    @property
    def failed(self) -> bool:
        """Worth a rerun: some run ended in ``error`` (or none finished)."""
        return not self.runs or any(r.word == "error" for r in self.runs)

    def to_json(self) -> dict[str, Any]:
        """The cell's entry in ``matrix.json``."""
        return {
            "target": self.target,
            "scenario": self.scenario,
            "word": self.word,
            "passed": self.passed,
            "runs": [r.to_json() for r in self.runs],
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Cell:
        """A cell from its ``matrix.json`` entry."""
        return cls(str(obj["target"]), str(obj["scenario"]),
                   [CellRun.from_json(r) for r in obj["runs"]])  # fmt: skip
