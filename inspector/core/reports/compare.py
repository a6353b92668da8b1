"""The same stream judged under two settings, call by call, side by side.

Invariants:
- "The same call" on both sides is the call opened by the same wire fragment: the key is the
  ``(seq, pos)`` of the call's first fragment. A call whose opening fragment opens nothing on
  the other side (e.g. ``literal`` opening a call for a continuation with id ``""`` and a
  name) is present on one side only.
- A fragment counts as dropped on one side only when that side's policy dropped it and the
  other side did not drop it anywhere; it is listed under the call it was shown in.
- Comparing reads both analyses (judging them if needed) and changes neither.
- Rows are ordered by key, i.e. by where the calls opened on the wire.
- Each side's verdict is said in the one vocabulary (:mod:`inspector.core.reports.words`)
  under that side's validation mode: a side with validation off says "not checked", never
  "valid".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.core.analysis.session import Analysis, AttemptView, CallVerdict
from inspector.core.base.model import OMITTED
from inspector.core.base.provider import Providers
from inspector.core.base.settings import Settings
from inspector.core.capture.records import Capture
from inspector.core.providers import REGISTRY
from inspector.core.reports.words import call_word
from inspector.core.verdicts.tools import ToolRegistry

Key = tuple[int, int]
"""(seq, pos) of a call's opening fragment."""


@dataclass
class CallDiff:
    """One call as judged on the left and on the right."""

    key: Key
    """(seq, pos) of the call's opening fragment: identifies the call on both sides."""
    left: CallVerdict | None
    """The left side's verdict, or None when the call does not exist there."""
    right: CallVerdict | None
    """The right side's verdict, or None when the call does not exist there."""
    verdict_changed: bool = False
    """Validity, orphan status or problem codes differ (or the call is on one side only)."""
    arguments_changed: bool = False
    """The assembled arguments differ (or the call is on one side only)."""
    identity_changed: bool = False
    """The id, name or effective (repaired) id differ (or the call is on one side only)."""
    dropped_left_only: list[int] = field(default_factory=list)
    """Seqs of this call's fragments dropped on the left but nowhere on the right."""
    dropped_right_only: list[int] = field(default_factory=list)
    """Seqs of this call's fragments dropped on the right but nowhere on the left."""
    left_verdict: str = ""
    """The left side's verdict in words (:func:`verdict_text`), "" when the call is not there."""
    right_verdict: str = ""
    """The right side's verdict in words, "" when the call is not there."""

    @property
    def changed(self) -> bool:
        """Anything differs for this call."""
        return (
            self.verdict_changed
            or self.arguments_changed
            or self.identity_changed
            or bool(self.dropped_left_only or self.dropped_right_only)
        )

    @property
    def slot(self) -> int:
        """The call's lane position (the left side's when it has the call)."""
        v = self.left or self.right
        assert v is not None
        return v.call.slot

    def summary(self) -> str:
        """One line, e.g. ``call 0 ExecCommand: valid → INVALID (invalid_json); …``."""
        v = self.left or self.right
        assert v is not None
        head = f"call {self.slot} {_name(v.call.name)}"
        if self.left is None or self.right is None:
            side = "right" if self.left is None else "left"
            return f"{head}: only on the {side}: {self.left_verdict or self.right_verdict}"
        lv, rv = self.left_verdict, self.right_verdict
        parts = [f"{lv} → {rv}" if self.verdict_changed else f"{lv} on both sides"]
        if self.arguments_changed:
            n, m = len(self.left.arguments), len(self.right.arguments)
            parts.append(f"arguments {n} → {m} chars")
        if self.identity_changed:
            parts.append(_identity_change(self.left, self.right))
        for seqs, side in ((self.dropped_left_only, "left"), (self.dropped_right_only, "right")):
            if seqs:
                s = "" if len(seqs) == 1 else "s"
                parts.append(f"{len(seqs)} fragment{s} dropped on the {side} only")
        return f"{head}: " + "; ".join(parts)


@dataclass
class Comparison:
    """Two judgements of the same attempt."""

    left: Settings
    """The left side's settings."""
    right: Settings
    """The right side's settings."""
    calls: list[CallDiff]
    """Every call of either side, ordered by where it opened."""
    quirks_left_only: list[str] = field(default_factory=list)
    """Quirk codes detected on the left only (e.g. under another dialect)."""
    quirks_right_only: list[str] = field(default_factory=list)
    """Quirk codes detected on the right only."""

    @property
    def differs(self) -> bool:
        """Any call or quirk differs."""
        return (
            any(c.changed for c in self.calls)
            or bool(self.quirks_left_only)
            or bool(self.quirks_right_only)
        )

    def lines(self) -> list[str]:
        """A readable summary: the settings, then one line per difference."""
        out = [_settings_line(self.left, self.right)]
        out += [c.summary() for c in self.calls if c.changed]
        out += [f"quirk {q} on the left only" for q in self.quirks_left_only]
        out += [f"quirk {q} on the right only" for q in self.quirks_right_only]
        if not self.differs:
            out.append("no differences")
        return out


def compare(left: Analysis, right: Analysis, attempt: int | None = None) -> Comparison:
    """Compare attempt number ``attempt`` (1-based; default: the final one) of both sides."""
    lview, rview = _view(left, attempt), _view(right, attempt)
    lby, rby = _by_key(lview), _by_key(rview)
    ldrop, rdrop = _dropped(lview), _dropped(rview)
    lall = {k for ks in ldrop.values() for k in ks}
    rall = {k for ks in rdrop.values() for k in ks}
    calls = []
    modes = (left.settings.validation, right.settings.validation)
    for key in sorted(lby.keys() | rby.keys()):
        diff = _diff(key, lby.get(key), rby.get(key), modes)
        diff.dropped_left_only = [s for s, p in ldrop.get(key, []) if (s, p) not in rall]
        diff.dropped_right_only = [s for s, p in rdrop.get(key, []) if (s, p) not in lall]
        calls.append(diff)
    lq = [q.code for q in lview.quirks]
    rq = [q.code for q in rview.quirks]
    return Comparison(
        left.settings,
        right.settings,
        calls,
        [q for q in lq if q not in rq],
        [q for q in rq if q not in lq],
    )


def compare_capture(
    capture: Capture,
    left: Settings,
    right: Settings,
    tools: ToolRegistry | None = None,
    providers: Providers = REGISTRY,
) -> Comparison:
    """Analyze ``capture`` under both settings and compare the final attempts."""
    return compare(
        Analysis.from_capture(capture, left, tools, providers=providers),
        Analysis.from_capture(capture, right, tools, providers=providers),
    )


def _view(analysis: Analysis, attempt: int | None) -> AttemptView:
    final = analysis.final  # judges
    if attempt is None:
        return final
    if not 1 <= attempt <= len(analysis.attempts):
        raise ValueError(f"no attempt {attempt} (there are {len(analysis.attempts)})")
    return analysis.attempts[attempt - 1]


def _key(v: CallVerdict) -> Key:
    first = v.call.fragments[0]
    return (first.seq, first.pos)


def _by_key(view: AttemptView) -> dict[Key, CallVerdict]:
    return {_key(v): v for v in view.verdicts}


def _dropped(view: AttemptView) -> dict[Key, list[Key]]:
    """Per call key, the (seq, pos) of the fragments dropped in that call's lane."""
    out: dict[Key, list[Key]] = {}
    for v in view.verdicts:
        drops = [(d.seq, d.pos) for d in v.call.dropped]
        if drops:
            out[_key(v)] = drops
    return out


def _diff(
    key: Key, left: CallVerdict | None, right: CallVerdict | None, modes: tuple[str, str]
) -> CallDiff:
    lv = verdict_text(left, modes[0]) if left is not None else ""
    rv = verdict_text(right, modes[1]) if right is not None else ""
    if left is None or right is None:
        return CallDiff(key, left, right, True, True, True, left_verdict=lv, right_verdict=rv)
    return CallDiff(
        key,
        left,
        right,
        verdict_changed=lv != rv,
        arguments_changed=left.arguments != right.arguments,
        identity_changed=_identity(left) != _identity(right),
        left_verdict=lv,
        right_verdict=rv,
    )


def _identity(v: CallVerdict) -> tuple[Any, Any, Any]:
    return (v.call.id, v.call.name, v.effective_id)


def verdict_text(v: CallVerdict, validation: str) -> str:
    """The call's word under ``validation`` (:func:`~inspector.core.reports.words.call_word`),
    with the problem codes of an invalid one: ``valid``, ``not checked``, ``orphan``,
    ``INVALID (code, code)`` …"""
    word = call_word(v, validation=validation)
    if word == "invalid":
        return "INVALID (" + ", ".join(p.code for p in v.problems) + ")"
    return word


def _name(value: Any) -> str:
    if value is OMITTED or value is None or value == "":
        return "(no name)"
    return str(value)


def _identity_change(left: CallVerdict, right: CallVerdict) -> str:
    pairs = zip(_identity(left), _identity(right), strict=True)
    whats = ("id", "name", "effective id")
    return ", ".join(f"{w} {a!r} → {b!r}" for w, (a, b) in zip(whats, pairs, strict=True) if a != b)


def _settings_line(left: Settings, right: Settings) -> str:
    lj, rj = left.to_json(), right.to_json()
    changed = [f"{k} {lj[k]} → {rj[k]}" for k in lj if lj[k] != rj[k]]
    return "settings: " + (", ".join(changed) if changed else "identical")
