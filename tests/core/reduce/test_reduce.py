"""Reduction keeps what it was asked to keep, as ``analyze`` judges it, on the demo provider's
recorded captures: the reduced file, read back, still shows the property, is no larger than
the original, and shrinks a long stream at least five times; a timing fault is refused with a
reason. ``make test`` reduces a few scenarios; every quirk and fault scenario of every dialect
is the ``-m slow`` sweep."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TESTS

import inspector.api as api
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load_bytes
from inspector.core.clients.registry import REPLICAS
from inspector.core.providers import REGISTRY
from inspector.core.reduce.keep import Keep, KeepError, parse_keep
from inspector.core.reduce.reducer import NotReducible, reduce_capture
from inspector.core.reduce.units import units_of

CORPUS = TESTS / "clients" / "corpus"
CHOICES = {"empty-id": ("absent", "literal"), "validation": ("off", "structural", "strict")}
NAMES = [r.name for r in REPLICAS]


def _check(path: Path, keep: Keep) -> None:
    capture = api.load(path)
    reduced = reduce_capture(capture, keep, Settings(), REGISTRY)
    again = load_bytes(reduced.data, "reduced")
    assert keep.holds(again, Settings(), REGISTRY), f"{path.name}: {keep.text} lost"
    assert reduced.bytes_after <= path.stat().st_size
    assert reduced.events_after <= reduced.events_before
    assert len(again.attempts) == reduced.attempts_after >= 1
    if reduced.events_before > 50:
        assert reduced.events_after * 5 <= reduced.events_before, reduced.summary(keep)


@pytest.mark.parametrize(
    ("scenario", "keep"),
    [
        ("openai-chat/demo-glm-empty-string", "quirk:empty_string_continuation_id"),
        ("openai-chat/demo-glm-empty-string", "client:by-id"),
        ("openai-chat/demo-glm-empty-string", "diff:empty-id=absent,literal"),
        ("anthropic/demo-keepalives", "quirk:keepalive_comments"),
        ("openai-responses/demo-done-mismatch", "quirk:done_arguments_mismatch"),
        ("openai-chat/demo-truncated", "invalid"),
    ],
)
def test_a_reduced_capture_still_shows_what_was_kept(scenario: str, keep: str) -> None:
    _check(CORPUS / f"{scenario}.jsonl", parse_keep(keep, NAMES, CHOICES))


def test_a_long_stream_shrinks_at_least_five_times(tmp_path: Path) -> None:
    text = (CORPUS / "openai-chat" / "demo-glm-empty-string.jsonl").read_text().splitlines()
    ping = '{"type":"chunk","attempt":1,"t":0.06,"text":": OPENROUTER PROCESSING\\n\\n"}'
    long = tmp_path / "long.jsonl"
    long.write_text("\n".join([*text[:3], *[ping] * 120, *text[3:]]) + "\n")
    capture = api.load(long)
    assert len(units_of(capture.attempts[0].chunks)) > 130
    _check(long, Keep("quirk", "empty_string_continuation_id"))


def test_a_stall_is_not_reducible_by_events(tmp_path: Path) -> None:
    text = (CORPUS / "openai-chat" / "demo-truncated.jsonl").read_text()
    stalled = tmp_path / "stalled.jsonl"
    stalled.write_text(text.replace('"reason":"eof"', '"reason":"timeout"'))
    with pytest.raises(NotReducible, match="timing fault"):
        reduce_capture(api.load(stalled), Keep("invalid"), Settings(), REGISTRY)


def test_a_property_the_capture_does_not_show_is_refused() -> None:
    with pytest.raises(NotReducible, match="does not show"):
        capture = api.load(CORPUS / "openai-chat" / "demo-clean.jsonl")
        reduce_capture(capture, Keep("quirk", "null_id"), Settings(), REGISTRY)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("quirk:no_such_code", "no quirk code"),
        ("client:requests", "no client"),
        ("diff:empty-id=absent,absent", "two different"),
        ("diff:speed=1,2", "no setting"),
        ("invalid:bad", "no problem"),
        ("stall", "give quirk:CODE"),
    ],
)
def test_the_keep_grammar_says_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(KeepError, match=says):
        parse_keep(text, NAMES, CHOICES)


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/*.jsonl")), ids=lambda p: p.stem)
def test_every_demo_scenario_reduces(path: Path) -> None:
    """Every quirk the scenario shows, and every client it breaks, kept in turn."""
    result = api.analyze(path)
    keeps = [Keep("quirk", code) for code in result.quirk_codes]
    keeps += [Keep("client", name) for name in result.clients.broken]
    for keep in keeps:
        _check(path, keep)
