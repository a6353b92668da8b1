"""The real recorded streams of Cohere v2 chat (4), the Gemini Interactions API (8) and OpenAI's
legacy completions (1) in ``../shared/fixtures/realworld/``: each read in its own dialect
(sniffed from the body alone), every tool-call item of its ``.json`` shown exactly (id, name,
kind, arguments) and no false alarm at the end (a Cohere turn ending ``message-end`` with
``finish_reason: TOOL_CALL`` has its finish and its end marker).

The folder is read through a loader that fails when it is missing or holds another number of
streams than these tests were written for: never a pass over nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import SHARED

from inspector.cli import main
from inspector.core.base.kinds import CallKind
from inspector.core.base.model import DeltaKind, plain
from inspector.core.providers import (
    COHERE_V2,
    GEMINI_INTERACTIONS,
    OPENAI_COMPLETIONS,
    analyze_bytes,
)
from inspector.core.quirks.codes import MISSING_DONE, MISSING_FINISH_REASON

REALWORLD = SHARED / "fixtures" / "realworld"
FOLDERS = {"cohere": (COHERE_V2, 4), "google-interactions": (GEMINI_INTERACTIONS, 8),
           "openai-completion": (OPENAI_COMPLETIONS, 1)}  # fmt: skip
"""Folder -> (the dialect its streams are in, how many streams it holds)."""


def realworld(folder: str) -> list[tuple[Path, dict[str, Any]]]:
    """``(stream, its .json)`` for each ``.sse`` of ``folder``; fails the caller when the folder
    is missing, a stream has no ``.json``, or the count is not the one expected."""
    where = REALWORLD / folder
    paths = sorted(where.glob("*.sse"))
    expected = FOLDERS[folder][1]
    if len(paths) != expected:
        state = "is missing" if not where.is_dir() else f"holds {len(paths)} streams"
        pytest.fail(f"{where} {state}, not {expected}: the tests read the real recordings from "
                    "../shared/fixtures/realworld beside the checkout", pytrace=False)  # fmt: skip
    out = []
    for path in paths:
        meta = path.with_suffix(".json")
        if not meta.is_file():
            pytest.fail(f"{meta} is missing", pytrace=False)
        out.append((path, json.loads(meta.read_text())))
    return out


STREAMS = [(folder, path, meta) for folder in FOLDERS for path, meta in realworld(folder)]


def _shown(call: Any) -> dict[str, Any]:
    """A lane as the fixture's counter writes an item: the item is ``function`` for the agent's
    function calls, else the wire's own type; an absent name reads as ""."""
    name = plain(call.name)
    return {
        "id": plain(call.id),
        "name": "" if name is None else name,
        "item": "function" if call.kind == CallKind.FUNCTION else call.item_type,
        "client_side": call.kind in CallKind.AGENT,
        "arguments": call.arguments,
    }


@pytest.mark.parametrize(("folder", "path", "meta"), STREAMS, ids=[p.stem for _, p, _ in STREAMS])
def test_each_stream_reads_in_its_dialect_with_every_call_exact(
    folder: str, path: Path, meta: dict[str, Any]
) -> None:
    state = analyze_bytes(path.read_bytes())
    assert state.dialect_name == FOLDERS[folder][0] and not state.dialect.fallback
    assert [_shown(c) for c in state.calls] == meta["calls"]
    assert state.finish and state.done_seq is not None  # its finish, and its end marker
    assert not state.errors


@pytest.mark.parametrize(("folder", "path", "meta"), STREAMS, ids=[p.stem for _, p, _ in STREAMS])
def test_analyze_judges_each_stream_without_a_false_alarm(
    folder: str, path: Path, meta: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["analyze", "--json", str(path)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["valid"] and doc["dialect"] == FOLDERS[folder][0]
    codes = {q["code"] for q in doc["quirks"]}
    assert not codes & {MISSING_FINISH_REASON, MISSING_DONE}
    agent = [c for c in meta["calls"] if c["client_side"]]
    shown = [(c["id"], c["name"], c["arguments"]) for c in doc["tool_calls"]]
    assert [(c["id"], c["name"], c["arguments"]) for c in agent] == [
        s for s in shown if s[0] in {c["id"] for c in agent}
    ]
    assert not any(w for w in doc["warnings"] if "not recognised" in w)


def test_the_cohere_tool_turn_asks_for_both_results() -> None:
    (path, meta) = next((p, m) for p, m in realworld("cohere") if p.stem == "cohere-tool-call")
    state = analyze_bytes(path.read_bytes())
    assert state.finish_reason == "TOOL_CALL" and len(meta["calls"]) == 2
    assert state.provider is not None and state.provider.is_tool_finish("TOOL_CALL", 2)
    assert [c.close_reason for c in state.calls] == ["close", "close"]  # each tool-call-end
    assert "will use the weather tool" in "".join(state.reasoning)  # the tool plan


def test_a_hosted_search_is_shown_with_its_result_never_as_the_agents_call() -> None:
    (path, _) = next(
        (p, m) for p, m in realworld("google-interactions") if p.stem == "google-search"
    )
    state = analyze_bytes(path.read_bytes())
    (call,) = state.calls
    assert (call.kind, call.item_type) == (CallKind.HOSTED, "google_search_call")
    results = [d.value for d in state.deltas if d.kind == DeltaKind.RESULT]
    assert (
        results
        and results[0]["id"] == call.id
        and results[0]["item_type"] == ("google_search_result")
    )


def test_legacy_completions_say_the_dialect_has_no_tool_calls(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ((path, _),) = realworld("openai-completion")
    assert main(["analyze", str(path)]) == 0
    out = capsys.readouterr().out
    assert "no tool calls: openai-completions is text only" in out
    assert "text: 'The holiday is called" in out  # its text, not an empty one
