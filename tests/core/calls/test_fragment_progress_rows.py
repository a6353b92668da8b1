"""Per-fragment progress rows: they must always agree with what the accumulator assembled."""

from __future__ import annotations

import weakref
from pathlib import Path

import orjson
import pytest
from conftest import REPO, all_real_fixtures, real_fixture

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import OMITTED, ToolCallDelta
from inspector.core.base.settings import EMPTY_ID_POLICIES, LITERAL, Settings
from inspector.core.calls.accumulator import ToolCall
from inspector.core.calls.jsonprogress import JsonProgress
from inspector.core.calls.progress import CallProgress, fragment_text, progress_of, visible
from inspector.core.calls.stream import StreamState
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY, analyze_bytes


def _parses(text: str) -> bool:
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


@pytest.mark.parametrize("policy", EMPTY_ID_POLICIES)
@pytest.mark.parametrize("path", all_real_fixtures(), ids=lambda p: p.stem)
def test_rows_agree_with_the_assembled_arguments(path: Path, policy: str) -> None:
    state = analyze_bytes(path.read_bytes(), empty_id=policy)
    assert state.calls
    for call in state.calls:
        progress = progress_of(call, state.events)
        assert len(progress.rows) == len(call.fragments)
        assert progress.rows[-1].length == len(call.arguments) == progress.length
        assert "".join(r.text for r in progress.rows if r.appended) == call.arguments
        assert progress.json.complete == _parses(call.arguments)
        assert progress.rows[-1].complete == _parses(call.arguments)
        assert progress.json.length == len(call.arguments)


@pytest.mark.parametrize("path", all_real_fixtures(), ids=lambda p: p.stem)
def test_rows_built_while_streaming_equal_rows_built_at_the_end(path: Path) -> None:
    """Advancing after every small chunk gives the same rows as one pass over the whole call."""
    body = path.read_bytes()
    live = StreamState(REGISTRY.dialect("auto"))
    for i in range(0, len(body), 37):
        live.feed(body[i : i + 37], t=i / 1000)
        for call in live.calls:
            progress_of(call, live.events)
    live.end()
    whole = analyze_bytes(body)
    assert len(live.calls) == len(whole.calls)
    for a, b in zip(live.calls, whole.calls, strict=True):
        got = [_row_tuple(r) for r in progress_of(a, live.events).rows]
        want = [_row_tuple(r) for r in progress_of(b, whole.events).rows]
        assert got == want


def _row_tuple(r: object) -> tuple[object, ...]:
    fields = (
        "seq",
        "pos",
        "text",
        "accepted",
        "final",
        "appended",
        "length",
        "state",
        "complete",
        "error",
        "depth",
        "in_string",
    )
    return tuple(getattr(r, f) for f in fields)


def test_progress_is_cached_and_only_new_fragments_are_processed() -> None:
    state = analyze_bytes(real_fixture("gpt-4o-two-tools-usage-chunk").read_bytes())
    call = state.calls[0]
    first = progress_of(call, state.events)
    assert progress_of(call, state.events) is first
    assert first.advance(call, state.events) == 0
    assert first.json.length == len(call.arguments)  # nothing was fed twice


def test_the_cached_progress_goes_with_its_call_and_leaves_it_untouched() -> None:
    state = analyze_bytes(real_fixture("gpt-4o-two-tools-usage-chunk").read_bytes())
    call = state.calls[0]
    fields = [name for name in ToolCall.__slots__ if not name.startswith("__")]
    before = {name: getattr(call, name) for name in fields}
    progress_of(call, state.events)
    assert {name: getattr(call, name) for name in before} == before
    gone = weakref.ref(call)
    del call, state  # refcounting alone frees the call: the cache does not keep it alive
    assert gone() is None  # (nor a re-judge's old calls, nor their rows)


def test_advance_returns_the_number_of_new_rows() -> None:
    d0 = ToolCallDelta(0, 0, 0, "call_1", "f", '{"a"')
    call = ToolCall(0, d0)
    call.add_text(d0.text)
    progress = CallProgress()
    assert progress.advance(call, []) == 1
    for seq, text in ((1, ": 1"), (2, "}")):
        call.take(ToolCallDelta(seq, 0, 0, OMITTED, OMITTED, text), text)
    assert progress.advance(call, []) == 2
    assert [r.length for r in progress.rows] == [4, 7, 8]
    assert [r.state for r in progress.rows][-1] == "complete"
    assert progress.rows[0].t == 0.0  # no events: no time known


def test_dropped_rows_keep_the_previous_state() -> None:
    """The empty-id bug under literal: the opener "{" is accepted, every continuation dropped."""
    state = analyze_bytes(
        real_fixture("qwen3-max-empty-id-continuations").read_bytes(), empty_id=LITERAL
    )
    (call,) = state.calls
    rows = progress_of(call, state.events).rows
    assert [r.accepted for r in rows] == [True, False, False, False]
    opener = rows[0]
    for r in rows[1:]:
        assert (r.length, r.state, r.depth, r.in_string, r.complete) == (
            opener.length,
            opener.state,
            opener.depth,
            opener.in_string,
            opener.complete,
        )
        assert not r.appended
        assert r.id == ""  # identity exactly as received
    assert rows[1].text == '{"location": "San Francisco'


def test_streamed_responses_call_does_not_append_its_final_restatements() -> None:
    state = analyze_bytes(real_fixture("responses-gpt-5-1-function-call").read_bytes())
    (call,) = state.calls
    rows = progress_of(call, state.events).rows
    finals = [r for r in rows if r.final]
    assert len(finals) == 2
    assert all(r.accepted and not r.appended for r in finals)
    assert all(r.length == len(call.arguments) for r in finals)
    assert all(r.text == call.arguments for r in finals)  # the restated arguments are shown
    assert rows[-1].state == "complete"


def test_arguments_only_in_done_are_fed_once() -> None:
    state = analyze_bytes(real_fixture("responses-lmstudio-no-deltas").read_bytes())
    (call,) = state.calls
    assert call.args_from_final
    progress = progress_of(call, state.events)
    assert [r.final for r in progress.rows] == [False, True, True]
    assert [r.appended for r in progress.rows] == [False, True, False]
    assert [r.length for r in progress.rows] == [0, len(call.arguments), len(call.arguments)]
    assert progress.json.length == len(call.arguments)
    assert [r.state for r in progress.rows] == ["empty", "complete", "complete"]


def test_truncated_call_ends_open_inside_a_string() -> None:
    state = analyze_bytes(real_fixture("anthropic-max-tokens-mid-arguments").read_bytes())
    (call,) = state.calls
    last = progress_of(call, state.events).rows[-1]
    assert last.in_string and not last.complete and not last.error
    assert last.depth == 2  # inside {"lines_of_text": [ ...
    assert last.state == "open: in string (depth 2)"


def test_row_times_come_from_the_wire_events() -> None:
    chunks = [
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1",'
        b'"type":"function","function":{"name":"f","arguments":"{\\"a\\""}}]}}]}\n\n',
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,'
        b'"function":{"arguments":": tru"}}]}}]}\n\n',
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,'
        b'"function":{"arguments":"e}"}}]}}]}\n\n',
    ]
    state = StreamState(REGISTRY.dialect("auto"))
    for t, chunk in zip((0.25, 0.5, 1.0), chunks, strict=True):
        state.feed(chunk, t)
    (call,) = state.calls
    rows = progress_of(call, state.events).rows
    assert [r.t for r in rows] == [0.25, 0.5, 1.0]
    assert [r.state for r in rows] == ["open: depth 1", "open: in literal (depth 1)", "complete"]
    assert [r.id for r in rows] == ["c1", OMITTED, OMITTED]
    assert [r.name for r in rows] == ["f", OMITTED, OMITTED]


def test_error_rows() -> None:
    d0 = ToolCallDelta(0, 0, 0, "c", "f", '{"a": 1}}')
    call = ToolCall(0, d0)
    call.add_text(d0.text)
    (row,) = progress_of(call, []).rows
    assert row.error and not row.complete
    assert row.state.startswith("error: unexpected '}' after the end of the JSON value")


def test_fragment_text_matches_what_the_accumulator_appends() -> None:
    assert fragment_text(ToolCallDelta(0, 0, 0, OMITTED, OMITTED, OMITTED)) == ""
    assert fragment_text(ToolCallDelta(0, 0, 0, OMITTED, OMITTED, None)) == ""
    assert fragment_text(ToolCallDelta(0, 0, 0, OMITTED, OMITTED, 5)) == "5"
    assert fragment_text(ToolCallDelta(0, 0, 0, OMITTED, OMITTED, "x")) == "x"


def test_non_string_arguments_agree_with_the_call() -> None:
    """A number where a string belongs is appended as its repr; the rows must follow."""
    body = (
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c",'
        b'"function":{"name":"f","arguments":42}}]}}]}\n\ndata: [DONE]\n\n'
    )
    state = analyze_bytes(body)
    (call,) = state.calls
    progress = progress_of(call, state.events)
    assert progress.rows[-1].length == len(call.arguments) > 0
    assert progress.json.complete == _parses(call.arguments)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("", "∅"),
        ("a\nb", "a↵b"),
        ("\t{", "⇥{"),
        ("  x y  ", "··x y··"),
        ("   ", "···"),
        ("\\n", "\\n"),  # a JSON escape is already visible
        ("a\x00b\x1f", "a\\u0000b\\u001F"),
        ("\r\n", "\\u000D↵"),
        ("a\u00a0b", "a\\u00A0b"),  # an unusual space
        ("\u200b", "\\u200B"),  # zero-width space (a format character)
        ("工具运行", "工具运行"),
        ("\U000e0001", "\\U000E0001"),
    ],
)
def test_visible(text: str, shown: str) -> None:
    assert visible(text) == shown


def test_visible_clips_to_the_limit() -> None:
    assert visible("x" * 10, limit=5) == "xxxx…"
    assert visible("x" * 5, limit=5) == "xxxxx"
    clipped = visible("\n" * 300)
    assert len(clipped) == 200 and clipped.endswith("…")
    assert visible(" " * 300, limit=10) == "·" * 9 + "…"
    assert len(visible("a" * 10**6)) == 200


def test_json_completeness_for_hand_made_cases() -> None:
    for text in ('{"a": [1, 2, {"b": "c"}]}', "[]", '"s"', "{", "", " ", "12"):
        d = ToolCallDelta(0, 0, 0, "c", "f", text)
        call = ToolCall(0, d)
        call.add_text(text)
        progress = progress_of(call, [])
        assert progress.rows[-1].complete == _parses(text), text
        ref = JsonProgress()
        ref.feed(text)
        assert progress.rows[-1].state == ref.label()


SAMPLES = sorted((REPO / "resources" / "samples").glob("*.jsonl"))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_rows_agree_on_the_sample_captures(path: Path) -> None:
    analysis = Analysis.from_capture(load(path), Settings(empty_id="literal"), providers=REGISTRY)
    assert all(view.state.calls for view in analysis.attempts)  # every sample has calls
    for view in analysis.attempts:
        for call in view.state.calls:
            progress = progress_of(call, view.state.events)
            assert progress.rows[-1].length == len(call.arguments)
            assert progress.json.complete == _parses(call.arguments)
            assert all(r.t > 0 for r in progress.rows)  # timed captures: real arrival times


def test_a_fragment_reads_the_same_everywhere() -> None:
    """The delta's own text, the progress rows and the report's dropped fragments agree with
    what the accumulator appends (a scalar where a string belongs shows as its repr)."""
    d = ToolCallDelta(0, 0, 0, OMITTED, OMITTED, 5)
    assert d.text == fragment_text(d) == "5"
