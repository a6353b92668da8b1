"""What the Clients view says about one client, and where: the few words of what went wrong,
its calls beside the inspector's field by field, and which lanes it gets wrong.

Invariants:
- Everything here reads a :class:`ClientsVerdict` (its results, words and the inspector's calls
  each result was compared with) and decides nothing: the word is the verdict's
  (:func:`inspector.core.reports.words.client_word`), a field differs exactly when the driver's
  comparison (:mod:`inspector.core.clients.judge`) says it does.
- Pure (a core module, no Qt): the Clients view and the lanes lay out what these functions
  return; the per-call comparison is the driver's own
  (:func:`inspector.core.clients.judge.same_call`).
- Long values are cut for display (:func:`short`); whole texts go to tooltips, themselves cut
  at :data:`TOOLTIP_CHARS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspector.core.analysis.attempt import AttemptView
from inspector.core.calls.textcalls import from_text
from inspector.core.clients.agreement import same_call, same_id, same_input, same_name
from inspector.core.clients.base import HandedCall, Replica
from inspector.core.clients.judge import ClientResult
from inspector.core.reports.clients import ClientsVerdict
from inspector.core.reports.words import CLIENT_BREAKS, spoken

MAX_POSITIONS = 100
"""The comparison lists this many call positions at most (it says how many more there are)."""
SHOWN_CHARS = 120
"""A value in the comparison shows at most this many characters."""
TOOLTIP_CHARS = 2000
"""A tooltip shows at most this many characters of a value."""
NONE = "— (no call)"
"""What a side without a call at that position shows."""


def short(text: str | None, limit: int = SHOWN_CHARS) -> str:
    """``text`` cut to ``limit`` characters with "…"; ``None`` as the word ``null``."""
    if text is None:
        return "null"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _calls(n: int) -> str:
    return f"{n} call{'s' if n != 1 else ''}"


def what_happened(
    replica: Replica, result: ClientResult, word: str, expected: Sequence[HandedCall]
) -> str:
    """What ``replica``'s library did, in a few words: ``merged 3 calls into 1``, ``raised
    TypeError: …``, ``call #0: id call_1call_1… instead of call_1``."""
    if word == "n/a":
        return ", ".join(sorted(replica.dialects)) + " only"
    if word == "pending":
        return "the stream is still arriving"
    got = result.calls
    if result.error is not None and got:
        return f"{spoken(word, result)}: {result.error.type}: {result.error.message}"
    if result.error is not None:
        raised = f"raised {result.error.type}: {result.error.message}"
        return f"{raised} (as it should: the request failed)" if word == "agrees" else raised
    if word == "agrees":
        hosted = len(result.hosted)
        more = f" (+ {hosted} hosted item{'s' if hosted != 1 else ''})" if hosted else ""
        return f"the same {_calls(len(got))}{more}"
    if word == "merged":
        return f"merged {_calls(len(expected))} into {len(got)}"
    if word == "dropped calls":
        return f"hands over {len(got)} of {_calls(len(expected))}"
    if word == "silent failure":
        return f"raised nothing for a failed request: hands over {_calls(len(got))}"
    if word == "phantom calls":
        return f"hands over {_calls(len(got))} for {len(expected)}"
    for pos, (want, have) in enumerate(zip(expected, got, strict=False)):
        if not same_id(want.id, have.id):
            return f"call #{pos}: id {short(have.id, 32)} instead of {short(want.id, 32)}"
        if not same_name(want, have):
            return f"call #{pos}: name {short(have.name, 32)} instead of {short(want.name, 32)}"
        if not same_input(want, have):
            return f"call #{pos}: {_arguments(word, want.arguments, have.arguments)}"
        if have.object:
            return f"call #{pos}: arguments handed over as an object, not a string"
    return word


def _arguments(word: str, want: str, have: str) -> str:
    """How the client's arguments differ, in a few words."""
    if word == "cut arguments":
        return f"{len(have):,} of {len(want):,} characters"
    if word == "empty arguments":
        shown = have or '""'
        return f"{shown} for {len(want):,} characters"
    return f"arguments {short(have, 40)}"


@dataclass(frozen=True)
class FieldRow:
    """One line of the comparison: a field of one call position, on both sides."""

    label: str
    """``#0 id``, ``#1 arguments``, ``raised``."""
    inspector: str
    client: str
    differs: bool


def comparison(result: ClientResult, expected: Sequence[HandedCall]) -> tuple[list[FieldRow], int]:
    """The client's calls beside the inspector's, position by position (id, name, arguments,
    and ``type`` where the client handed arguments over as an object), with what it raised
    where it raised it: before every call, or after the calls it had handed over by then
    (``ClientResult.error_after``); then the hosted items it handed over (``hosted #0``: the
    provider ran them, so nothing of the inspector's is beside them); and how many positions
    were left out (:data:`MAX_POSITIONS`)."""
    rows: list[FieldRow] = []
    raised: FieldRow | None = None
    if result.error is not None:
        text = f"{result.error.type}: {result.error.message}"
        raised = FieldRow("raised", "—", text, differs=not result.agrees)
    after = result.error_after if result.calls else 0
    got = result.calls
    count = max(len(expected), len(got))
    for pos in range(min(count, MAX_POSITIONS)):
        if raised is not None and pos == after:
            rows.append(raised)
            raised = None
        rows += _position(pos, expected, got)
    if raised is not None:
        rows.append(raised)
    for pos, item in enumerate(result.hosted[:MAX_POSITIONS]):
        what = f"{item.item_type or item.kind} {item.name or ''}".strip()
        rows.append(FieldRow(f"hosted #{pos}", "— (the provider ran it)", what, differs=False))
    return rows, max(0, count - MAX_POSITIONS)


def _position(
    pos: int, expected: Sequence[HandedCall], got: Sequence[HandedCall]
) -> list[FieldRow]:
    """The rows of one call position."""
    want = expected[pos] if pos < len(expected) else None
    have = got[pos] if pos < len(got) else None
    if want is None or have is None:
        return [
            FieldRow(
                f"#{pos} {name}",
                NONE if want is None else str(getattr(want, name)),
                NONE if have is None else str(getattr(have, name)),
                differs=True,
            )
            for name in ("id", "name", "arguments")
        ]
    rows = [
        FieldRow(f"#{pos} id", str(want.id), str(have.id), not same_id(want.id, have.id)),
        FieldRow(f"#{pos} name", str(want.name), str(have.name), not same_name(want, have)),
        FieldRow(f"#{pos} arguments", want.arguments, have.arguments, not same_input(want, have)),
    ]
    if have.object:
        rows.append(FieldRow(f"#{pos} type", "string", "object", differs=True))
    return rows


def lane_marks(verdict: ClientsVerdict, view: AttemptView) -> dict[int, list[tuple[str, str]]]:
    """The lanes of ``view`` some client gets wrong: lane slot -> [(client as shown, word)],
    from the results that describe this attempt. A client that raised gets every call wrong
    (it hands over none); phantom calls beyond the inspector's have no lane, nor do calls
    written in the text (no client expects them)."""
    slots = [v.call.slot for v in view.verdicts if not v.orphan and not from_text(v.call)]
    marks: dict[int, list[tuple[str, str]]] = {}
    for name in verdict.broken:
        result, word = verdict.results[name], verdict.words[name]
        if result.attempt != view.number or word not in CLIENT_BREAKS:
            continue
        expected = verdict.expected[name]
        for pos, want in enumerate(expected[: len(slots)]):
            have = result.calls[pos] if pos < len(result.calls) else None
            if result.error is not None or have is None or not same_call(want, have):
                marks.setdefault(slots[pos], []).append((verdict.shown_name(name), word))
    return marks


def badge(marks: list[tuple[str, str]]) -> tuple[str, str]:
    """A lane's badge and its tooltip: ``✗ 2 clients`` and one line per client."""
    n = len(marks)
    lines = [f"{name}: {word}" for name, word in marks]
    tip = "\n".join(["Clients that would not hand this call over as shown:", *lines])
    return f"✗ {n} client{'s' if n != 1 else ''}", tip + "\n(View ▸ Clients shows how)"
