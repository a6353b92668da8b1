"""Tool calls written as text in the assistant's content, read into calls of their own.

Each format whole and streamed in small pieces (every marker and tag split across deltas),
in all four dialects; malformed calls are invalid with a clear problem, text that merely
mentions a marker and a JSON answer are no calls; the calls count toward the verdict and the
exit code, the clients expect none of them, and the quirk says the provider left them as text.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import OMITTED
from inspector.core.base.settings import Settings
from inspector.core.calls.stream import StreamState
from inspector.core.calls.textcalls import TextCalls, from_text, written_as
from inspector.core.clients.judge import expected_calls
from inspector.core.providers import REGISTRY, analyze_bytes
from inspector.core.quirks.detect import detect
from inspector.core.reports.clients import clients_verdict
from inspector.core.reports.exitcodes import session_status
from inspector.core.verdicts.tools import ToolRegistry

# -- bodies in the four dialects -------------------------------------------------------------


def _sse(obj: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n".encode() if event else b""
    return head + b"data: " + orjson.dumps(obj) + b"\n\n"


def chat(*texts: str, finish: str = "stop", calls: list[Any] | None = None) -> bytes:
    out = [_sse({"choices": [{"index": 0, "delta": {"content": t}}]}) for t in texts]
    if calls:
        out.append(_sse({"choices": [{"index": 0, "delta": {"tool_calls": calls}}]}))
    out.append(_sse({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}))
    return b"".join(out) + b"data: [DONE]\n\n"


def anthropic(*texts: str) -> bytes:
    msg = {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m"}
    events = [("message_start", {"type": "message_start", "message": msg})]
    block = {"type": "text", "text": ""}
    events.append(("content_block_start", {"type": "content_block_start", "index": 0,
                                           "content_block": block}))  # fmt: skip
    for t in texts:
        delta = {"type": "text_delta", "text": t}
        events.append(("content_block_delta", {"type": "content_block_delta", "index": 0,
                                               "delta": delta}))  # fmt: skip
    events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": "end_turn"}}))  # fmt: skip
    events.append(("message_stop", {"type": "message_stop"}))
    return b"".join(_sse(obj, name) for name, obj in events)


def responses(*texts: str) -> bytes:
    resp = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
    out = [_sse({"type": "response.created", "response": resp}, "response.created")]
    for t in texts:
        delta = {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
                 "content_index": 0, "delta": t}  # fmt: skip
        out.append(_sse(delta, delta["type"]))
    done = {**resp, "status": "completed"}
    out.append(_sse({"type": "response.completed", "response": done}, "response.completed"))
    return b"".join(out)


def gemini(*texts: str) -> bytes:
    def ev(parts: list[Any], finish: str | None = None) -> bytes:
        cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
        if finish:
            cand["finishReason"] = finish
        return _sse({"candidates": [cand]})

    return b"".join([*(ev([{"text": t}]) for t in texts), ev([{"text": ""}], "STOP")])


DIALECTS = {"openai-chat": chat, "anthropic": anthropic, "openai-responses": responses,
            "gemini": gemini}  # fmt: skip


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def written(state: StreamState) -> list[tuple[Any, Any, Any, str]]:
    """(form, name, id, arguments) of the calls written in the text."""
    return [(c.form, c.name, c.id, c.arguments) for c in state.calls if from_text(c)]


# -- the formats ------------------------------------------------------------------------------

FORMATS: dict[str, tuple[str, list[tuple[Any, Any, Any, str]]]] = {
    "hermes": (
        'Let me look. <tool_call>\n{"name": "read_file", "arguments": {"path": "a}b.md"}}\n'
        '</tool_call>\n<tool_call>{"arguments": {"q": "x"}, "name": "search"}</tool_call>',
        [
            ("hermes", "read_file", OMITTED, '{"path": "a}b.md"}'),
            ("hermes", "search", OMITTED, '{"q": "x"}'),
        ],
    ),
    "mistral v11": (
        '[TOOL_CALLS]read_file[ARGS]{"path": "x"}[TOOL_CALLS]search[CALL_ID]a1B2c3D4e'
        '[ARGS]{"q": [1, {"r": "]"}]}',
        [
            ("mistral", "read_file", OMITTED, '{"path": "x"}'),
            ("mistral", "search", "a1B2c3D4e", '{"q": [1, {"r": "]"}]}'),
        ],
    ),
    "mistral v11 without [ARGS]": (
        'ok [TOOL_CALLS]read_file{"path": "x"}',
        [("mistral", "read_file", OMITTED, '{"path": "x"}')],
    ),
    "mistral array": (
        '[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "x"}, "id": "abcDEF123"}, '
        '{"name": "search", "arguments": {}}]',
        [
            ("mistral", "read_file", "abcDEF123", '{"path": "x"}'),
            ("mistral", "search", OMITTED, "{}"),
        ],
    ),
    "llama python_tag": (
        '<|python_tag|>{"name": "search", "parameters": {"q": "a;b"}}; '
        '{"name": "read_file", "parameters": {"path": "x"}}',
        [
            ("llama", "search", OMITTED, '{"q": "a;b"}'),
            ("llama", "read_file", OMITTED, '{"path": "x"}'),
        ],
    ),
    "json object": (
        '\n {"name": "search", "parameters": {"q": "\\"quoted\\""}}',
        [("json", "search", OMITTED, '{"q": "\\"quoted\\""}')],
    ),
    "json array": (
        '[{"name": "search", "arguments": {"q": "x"}}, {"name": "read_file", "arguments": '
        '{"path": "y"}}]',
        [
            ("json", "search", OMITTED, '{"q": "x"}'),
            ("json", "read_file", OMITTED, '{"path": "y"}'),
        ],
    ),
}


@pytest.mark.parametrize("form", FORMATS)
def test_each_format_whole_and_in_pieces_of_every_size(form: str) -> None:
    text, calls = FORMATS[form]
    assert written(analyze_bytes(chat(text))) == calls
    for size in range(1, 9):  # every marker, tag and key is split somewhere
        state = analyze_bytes(chat(*pieces(text, size)))
        assert written(state) == calls, size
        assert [c.open for c in state.calls] == [False] * len(calls)
        assert not any(c.truncated for c in state.calls)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_text_of_all_four_dialects_is_read(dialect: str) -> None:
    text, calls = FORMATS["hermes"]
    state = analyze_bytes(DIALECTS[dialect](*pieces(text, 5)))
    assert state.dialect_name == dialect
    assert written(state) == calls
    assert [q.code for q in detect(state)] == ["text_mode_tool_call"]  # no finish mismatch


def test_fragments_arrive_live_each_delta_once() -> None:
    """Each delta inside the arguments adds exactly its own text as one fragment, stamped
    with its event; the call opens at the delta that completes its name."""
    text = '<tool_call>{"name": "search", "arguments": {"q": "the weather in Paris"}}</tool_call>'
    body = chat(*pieces(text, 6)).split(b"\n\n")
    state = StreamState(REGISTRY.dialect("openai-chat"))
    opened_at = None
    for n, event in enumerate(body):
        state.feed(event + b"\n\n")
        if opened_at is None and state.calls:
            opened_at = n
            (call,) = state.calls
            assert call.name == "search" and call.open and from_text(call)
    assert opened_at == 4  # '<tool_call>{"name": "search"' ends in the fifth delta
    (call,) = state.calls
    assert [f.seq for f in call.fragments] == [4, 7, 8, 9, 10, 11]  # 5, 6: the key, no value
    assert "".join(f.text for f in call.fragments) == call.arguments
    assert [f.text for f in call.fragments[1:3]] == ['{"q":', ' "the ']  # as the deltas cut it


def test_a_long_text_without_calls_holds_back_only_a_marker_prefix() -> None:
    calls: list[Any] = []
    reader = TextCalls(calls)
    for n in range(2000):
        reader.feed(n, f"word {n} <tool" if n % 3 == 0 else "_calls are [TOOL_ text ")
        assert len(reader._tail) < len("<|python_tag|>")
    assert calls == []


# -- what is no call, and what is a broken one ------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Use the <tool_call> tag to call tools; [TOOL_CALLS] is a special token.",
        "Wrap it as <tool_call>name</tool_call> or <|python_tag|> python code.",
        '{"answer": 42, "name": "the answer"}',  # a JSON answer: no arguments key
        '[{"city": "Paris"}, {"city": "Tokyo"}]',
        "[TOOL_CALLS]",
    ],
)
def test_text_that_merely_mentions_a_marker_is_no_call(text: str) -> None:
    for size in (1, 4, len(text)):
        assert analyze_bytes(chat(*pieces(text, size))).calls == []


def _verdict(text: str, **settings: str) -> Any:
    analysis = Analysis(Settings(**settings), providers=REGISTRY)  # type: ignore[arg-type]
    analysis.feed(chat(*pieces(text, 3)))
    analysis.end()
    (verdict,) = analysis.final.verdicts
    return analysis, verdict


def test_broken_arguments_are_invalid_json_at_their_offset() -> None:
    _, v = _verdict('<tool_call>{"name": "ls", "arguments": {"path": }}</tool_call>')
    assert v.call.arguments == '{"path": }' and [p.code for p in v.problems] == ["invalid_json"]
    assert v.problems[0].offset == 9


def test_an_object_that_is_no_json_is_a_nameless_invalid_call_with_its_text() -> None:
    analysis, v = _verdict('<tool_call>{name: "ls", arguments: {}}</tool_call> done')
    assert v.call.name is OMITTED and v.call.arguments == '{name: "ls", arguments: {}}'
    assert v.call.problem == "expected a key in double quotes or } at offset 1, got 'n'"
    assert [p.code for p in v.problems] == ["missing_name", "invalid_json"]
    assert session_status(analysis).code == 1


@pytest.mark.parametrize(
    ("text", "arguments", "offset"),
    [
        ('{"name": "ls" "arguments": {}}', '{"name": "ls" "arguments": {}}', 14),  # before
        ('{"name": "ls", "arguments": {"a": 1} junk}', '{"a": 1} junk}', 9),  # after them
    ],
)
def test_a_named_call_whose_object_breaks_is_invalid_with_the_text_as_written(
    text: str, arguments: str, offset: int
) -> None:
    written = f"<tool_call>{text}</tool_call> and then prose"
    _, v = _verdict(written)
    assert (v.call.name, v.call.arguments) == ("ls", arguments)
    assert v.call.problem.startswith("expected , or } after a value")
    assert [(p.code, p.offset) for p in v.problems] == [("invalid_json", offset)]
    for size in range(1, 8):  # the break and the text around it in any pieces
        state = analyze_bytes(chat(*pieces(written, size)))
        assert [c.arguments for c in state.calls] == [arguments], size


def test_an_object_without_a_name_is_a_nameless_call() -> None:
    _, v = _verdict('<tool_call>{"arguments": {"a": 1}}</tool_call>')
    assert v.call.problem == "the call object has no name"
    assert [p.code for p in v.problems] == ["missing_name"]
    assert written_as(v.call) == "hermes <tool_call>; the call object has no name"


def test_text_ending_inside_a_call_truncates_it() -> None:
    _, v = _verdict('<tool_call>{"name": "ls", "arguments": {"path": "a')
    assert v.call.truncated and "truncated" in [p.code for p in v.problems]


# -- verdicts, exit codes, clients, history ----------------------------------------------------

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": SCHEMA}}]


def test_text_calls_are_validated_and_decide_the_exit_code_like_wire_calls() -> None:
    def run(args: str) -> Any:
        tools = ToolRegistry.from_definitions(TOOLS, REGISTRY)
        analysis = Analysis(Settings(validation="strict"), tools, providers=REGISTRY)
        analysis.feed(chat(f'<tool_call>{{"name": "read_file", "arguments": {args}}}</tool_call>'))
        analysis.end()
        return analysis

    good, bad = run('{"path": "x"}'), run('{"path": 3}')
    assert good.final.verdicts[0].valid and session_status(good).code == 0
    assert [p.code for p in bad.final.verdicts[0].problems] == ["schema_violation"]
    assert session_status(bad).code == 1


def test_clients_expect_none_of_them_and_the_headline_counts_them() -> None:
    wire = [{"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "search", "arguments": '{"q": "x"}'}}]  # fmt: skip
    text = '<tool_call>{"name": "read_file", "arguments": {"path": "x"}}</tool_call>'
    analysis = Analysis(Settings(), providers=REGISTRY)
    analysis.feed(chat(text, calls=wire, finish="tool_calls"))
    analysis.end()
    view = analysis.final
    assert [(v.call.slot, from_text(v.call)) for v in view.verdicts] == [(0, True), (1, False)]
    assert [c.name for c in expected_calls(view)] == ["search"]
    assert [c.name for c in analysis.assistant_turn(view).calls] == ["search"]
    assert clients_verdict(analysis).written_note() == (
        "; 1 call written as text: every client hands it over as text"
    )
    assert written_as(view.verdicts[0].call) == "hermes <tool_call>"


def test_a_rejudge_reads_the_text_again() -> None:
    state = analyze_bytes(chat(*pieces(FORMATS["mistral array"][0], 4)))
    before = written(state)
    state.rejudge("literal")
    assert written(state) == before and len(state.calls) == 2


def test_the_json_report_says_how_a_call_was_written() -> None:
    from inspector.core.reports.report import to_json

    analysis = Analysis(Settings(), providers=REGISTRY)
    analysis.feed(chat(FORMATS["llama python_tag"][0]))
    analysis.end()
    doc = json.loads(json.dumps(to_json(analysis)))
    assert [c["written_as"] for c in doc["tool_calls"]] == ["llama", "llama"]
    assert [q["code"] for q in doc["quirks"]] == ["text_mode_tool_call"]


def test_a_wire_fragment_never_joins_a_call_read_from_text() -> None:
    """A nameless, index-less wire call with no call open joins the latest *wire* call (or
    opens one): never a call read from the text before it."""
    body = gemini('<tool_call>{"name": "a", "arguments": {}}</tool_call>')
    part = {"functionCall": {"args": {"x": 1}}}
    body = body.replace(b'{"text":""}', orjson.dumps(part))  # the call rides the last event
    state = analyze_bytes(body)
    text, wire = state.calls
    assert (from_text(text), text.arguments) == (True, "{}")
    assert (from_text(wire), wire.name, wire.arguments) == (False, OMITTED, '{"x":1}')
