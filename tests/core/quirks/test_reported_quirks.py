"""The tool-call quirks agents, gateways and inference servers reported in 2025-2026: each code
on a small stream shaped like the report, and on its conforming twin (the same stream without
the quirk), which must not show it.

``REPORTED_POSITIVE`` and ``REPORTED_NEGATIVE`` join ``test_every_code.py``'s tables, so every
case here also runs through its checks (exact chunks, both empty-id policies agreeing, the
incremental scan equal to a fresh one). Chunks are SSE event numbers from 0, counted in the
comment beside each event. The demo provider's scenario for each class is held to its codes
by ``tests/net/demo/test_demo_provider.py``; here, only what the codes mean beyond being reported.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from inspector.core.base.settings import EMPTY_ID_POLICIES as POLICIES
from inspector.core.providers import analyze_bytes
from inspector.core.quirks.codes import ORDER
from inspector.core.quirks.detect import detect
from inspector.net.demo import SCENARIOS
from inspector.net.demo.reported import REPORTED

_ = object()
"""A key left out of the JSON."""

# -- wire builders (small copies of test_every_code.py's, which imports this module) ----------


def tc(index: Any = _, id: Any = _, name: Any = _, args: Any = _, **extra: Any) -> dict[str, Any]:
    """One ``delta.tool_calls[]`` entry; ``extra`` keys go into ``function``."""
    entry: dict[str, Any] = {k: v for k, v in (("index", index), ("id", id)) if v is not _}
    if id is not _:
        entry["type"] = "function"
    fn = {k: v for k, v in (("name", name), ("arguments", args)) if v is not _}
    entry["function"] = {**fn, **extra}
    return entry


def chunk(*calls: dict[str, Any], finish: Any = None, choice: int = 0) -> dict[str, Any]:
    delta: dict[str, Any] = {"tool_calls": list(calls)} if calls else {}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": choice, "delta": delta, "finish_reason": finish}],
    }


def chat(*items: Any) -> bytes:
    """Chat Completions events (bytes items verbatim), then ``data: [DONE]``."""
    out = [
        i if isinstance(i, bytes) else b"data: " + json.dumps(i).encode() + b"\n\n" for i in items
    ]
    return b"".join(out) + b"data: [DONE]\n\n"


def typed(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def gemini(*chunks: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)


def g_chunk(*parts: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}, "index": 0}
    if finish is not None:
        cand["finishReason"] = finish
    return {"candidates": [cand], "modelVersion": "gemini-3-pro-preview"}


def r_item(kind: str, call_id: str, args: str, name: str = "run") -> dict[str, Any]:
    item = {"id": "fc_0", "type": "function_call", "call_id": call_id, "name": name}
    return {
        "type": f"response.output_item.{kind}",
        "output_index": 0,
        "item": {**item, "arguments": args},
    }


R_CREATED = {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}
R_DELTA = {
    "type": "response.function_call_arguments.delta",
    "item_id": "fc_0",
    "output_index": 0,
    "delta": '{"cmd":"ls"}',
}
R_DONE_ARGS = {
    "type": "response.function_call_arguments.done",
    "item_id": "fc_0",
    "output_index": 0,
    "arguments": '{"cmd":"ls"}',
}
R_COMPLETED = {"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}

OPEN = tc(0, "call_1", "run", "")
ARGS = [tc(0, args='{"command": '), tc(0, args='"ls"}')]
WHOLE = '{"command": "ls"}'

# -- the reported streams, and their conforming twins ----------------------------------------

CONFORMING = chat(chunk(OPEN), *map(chunk, ARGS), chunk(finish="tool_calls"))  # 0-3, [DONE] 4

ZOO_ARGS_BEFORE_ID = chat(  # Zoo-Code #695: LiteLLM passes a fragment on before the identity
    chunk(tc(0, args='{"command": ')),  # 0
    chunk(tc(0, "call_1", "run", '"ls"}')),  # 1
    chunk(finish="tool_calls"),  # 2
)
ELIZA_REPLAYED = chat(  # elizaOS #16973: the consolidated entry sends the arguments again
    chunk(OPEN), *map(chunk, ARGS),  # 0-2
    chunk(tc(0, "call_1", "run", WHOLE)),  # 3
    chunk(finish="tool_calls"),  # 4
)  # fmt: skip
HERMES_COMPLETE_EVERY_CHUNK = chat(  # hermes-agent #5384, codex-lb: the whole call every delta
    chunk(tc(0, "call_1", "run", WHOLE)),  # 0
    chunk(tc(0, "call_1", "run", WHOLE)),  # 1
    chunk(finish="tool_calls"),  # 2
)
HERMES_SO_FAR_EVERY_CHUNK = chat(  # the same with the arguments so far: a cumulative stream
    chunk(tc(0, "call_1", "run", '{"command": ')),  # 0
    chunk(tc(0, "call_1", "run", WHOLE)),  # 1
    chunk(finish="tool_calls"),  # 2
)
NIM_NAME_EVERY_CHUNK = chat(  # hermes-agent #8259: MiniMax via NVIDIA NIM repeats the name
    chunk(OPEN),  # 0
    chunk(tc(0, name="run", args='{"command": ')),  # 1
    chunk(tc(0, name="run", args='"ls"}')),  # 2
    chunk(finish="tool_calls"),  # 3
)
SGLANG_FINISH_PER_CALL = chat(  # sglang #8417: one finish chunk per call index
    chunk(OPEN), chunk(tc(0, args="{}")),  # 0-1
    chunk(tc(1, "call_2", "ls", "")), chunk(tc(1, args="{}")),  # 2-3
    chunk(finish="tool_calls"), chunk(finish="tool_calls"),  # 4-5
)  # fmt: skip
JCODE_FINISH_EVERY_CHUNK = chat(  # jcode #1326: OpenWebUI adds a "stop" chunk after each one
    chunk(OPEN), chunk(finish="stop"),  # 0-1
    chunk(ARGS[0]), chunk(finish="stop"),  # 2-3
    chunk(ARGS[1]), chunk(finish="stop"),  # 4-5
    chunk(finish="tool_calls"),  # 6
)  # fmt: skip
DYNAMO_EXTRA_STOP = chat(  # dynamo #4153: an extra final chunk saying "stop"
    chunk(OPEN),
    *map(chunk, ARGS),
    chunk(finish="tool_calls"),
    chunk(finish="stop"),  # 0-4
)
TWO_CHOICES = chat(  # n=2: each choice has its own finish, which is no repeat
    chunk(OPEN), *map(chunk, ARGS),  # 0-2
    chunk(finish="tool_calls"), chunk(finish="stop", choice=1),  # 3-4
)  # fmt: skip
CC_SWITCH_NO_ID = chat(  # cc-switch #5093: a named call without id, finish_reason ""
    chunk(tc(0, name="run", args="")), *map(chunk, ARGS),  # 0-2
    chunk(finish=""),  # 3
)  # fmt: skip
QWEN_OPENER_REPLAYED = chat(  # qwen-code #5107: the opener again after the arguments
    chunk(OPEN),
    *map(chunk, ARGS),
    chunk(OPEN),
    chunk(finish="tool_calls"),  # 0-4
)
TRAILING_EMPTY = chat(
    chunk(OPEN), *map(chunk, ARGS), chunk(tc(0, args="")), chunk(finish="tool_calls")
)
A3S_NULL_PARAMETERS = chat(  # A3S-Lab Code #139: "name": "" and "parameters": null
    chunk(OPEN),  # 0
    chunk(tc(0, name="", args='{"command": ', parameters=None)),  # 1
    chunk(tc(0, name="", args='"ls"}', parameters=None)),  # 2
    chunk(finish="tool_calls"),  # 3
)
HERMES_CUT_AT_STOP = chat(chunk(OPEN), chunk(ARGS[0]), chunk(finish="stop"))  # 0-2; #75179
DYNAMO_STOP_WITH_CALLS = chat(chunk(OPEN), *map(chunk, ARGS), chunk(finish="stop"))  # #10988
CUT_AT_LENGTH = chat(chunk(OPEN), chunk(ARGS[0]), chunk(finish="length"))
SAME_ID_TWICE = chat(  # oh-my-pi #2055, nanobot #3943: two calls, one id
    chunk(OPEN), *map(chunk, ARGS),  # 0-2
    chunk(tc(1, "call_1", "ls", "{")), chunk(tc(1, args="}")),  # 3-4
    chunk(finish="tool_calls"),  # 5
)  # fmt: skip
TWO_IDS = SAME_ID_TWICE.replace(b'"index": 1, "id": "call_1"', b'"index": 1, "id": "call_2"')
CC_SWITCH_CALL_ID_CLEARED = typed(  # cc-switch #4671 (and -cli #341): call_id, name ""
    R_CREATED, r_item("added", "call_1", ""), R_DELTA, R_DONE_ARGS,  # 0-3
    r_item("done", "", '{"cmd":"ls"}', ""), R_COMPLETED,  # 4-5
)  # fmt: skip
RESPONSES_CONFORMING = typed(
    R_CREATED, r_item("added", "call_1", ""), R_DELTA, R_DONE_ARGS,
    r_item("done", "call_1", '{"cmd":"ls"}'), R_COMPLETED,
)  # fmt: skip
_LOST = [tc(0, args='"l'), tc(0, args='s"')]
_JOINED = b"".join(b"data: " + json.dumps(chunk(a)).encode() + b"\n" for a in _LOST) + b"\n"
BASETEN_NOT_SEPARATED = chat(  # opencode #27365: two data: lines and no blank line between
    chunk(tc(0, "call_1", "run", '{"command": ')),  # 0
    _JOINED,  # 1: two argument fragments in one event, which reads as no JSON (both lost)
    chunk(tc(0, args="}")),  # 2
    chunk(finish="tool_calls"),  # 3
)
CUT_FRAME = chat(chunk(OPEN), b'data: {"id": "chatcmpl-1", "choi\n\n', chunk(finish="tool_calls"))
GEMINI_MALFORMED = gemini(  # hermes-agent #83886: Gemini 3 rejects its own call
    g_chunk({"text": "default_api.run(command='ls')"}),  # 0
    g_chunk(finish="MALFORMED_FUNCTION_CALL"),  # 1
)
GEMINI_CONFORMING = gemini(
    g_chunk({"functionCall": {"name": "run", "args": {"command": "ls"}}}),
    g_chunk({"text": ""}, finish="STOP"),
)

REPORTED_POSITIVE: dict[str, tuple[str, bytes, list[int]]] = {
    "zoo-args-before-id": ("arguments_before_identity", ZOO_ARGS_BEFORE_ID, [0]),
    "eliza-replayed": ("arguments_replayed", ELIZA_REPLAYED, [3]),
    "nim-name-every-chunk": ("name_repeated_every_chunk", NIM_NAME_EVERY_CHUNK, [1, 2]),
    "sglang-finish-per-call": ("repeated_finish_reason", SGLANG_FINISH_PER_CALL, [4, 5]),
    "cc-switch-empty-finish": ("empty_finish_reason", CC_SWITCH_NO_ID, [3]),
    "cc-switch-no-id": ("missing_call_id", CC_SWITCH_NO_ID, [0]),
    "qwen-opener-replayed": ("opener_replayed", QWEN_OPENER_REPLAYED, [3]),
    "hermes-cut-at-stop": ("silent_truncation", HERMES_CUT_AT_STOP, [1, 2]),
    "same-id-twice": ("duplicate_call_id", SAME_ID_TWICE, [3]),
    "cc-switch-call-id-cleared": ("done_identity_mismatch", CC_SWITCH_CALL_ID_CLEARED, [4]),
    "baseten-not-separated": ("events_not_separated", BASETEN_NOT_SEPARATED, [1]),
    "gemini-malformed": ("malformed_function_call", GEMINI_MALFORMED, [1]),
}
"""Case name -> (code, stream, chunks): the reported stream shows the code at those chunks.
One per code, on few distinct streams: test_every_code.py also scans each incrementally, byte by
byte (~0.3 s a stream); the other reported shapes are :data:`MORE_POSITIVE`."""

REPORTED_NEGATIVE: dict[str, tuple[str, bytes]] = {
    "identity-first": ("arguments_before_identity", CONFORMING),
    "no-replay": ("arguments_replayed", CONFORMING),
    "name-on-opener-only": ("name_repeated_every_chunk", CONFORMING),
    "one-finish": ("repeated_finish_reason", CONFORMING),
    "finish-named": ("empty_finish_reason", CONFORMING),
    "id-sent": ("missing_call_id", CONFORMING),
    "no-second-opener": ("opener_replayed", CONFORMING),
    "complete-arguments": ("silent_truncation", CONFORMING),
    "two-ids": ("duplicate_call_id", TWO_IDS),
    "done-restates-the-id": ("done_identity_mismatch", RESPONSES_CONFORMING),
    "separate-events": ("events_not_separated", CONFORMING),
    "gemini-stop": ("malformed_function_call", GEMINI_CONFORMING),
}
"""Case name -> (code, stream): the conforming twin does not show the code."""

MORE_POSITIVE: dict[str, tuple[str, bytes, list[int]]] = {
    "hermes-complete-every-chunk": ("arguments_replayed", HERMES_COMPLETE_EVERY_CHUNK, [1]),
    "jcode-finish-every-chunk": ("repeated_finish_reason", JCODE_FINISH_EVERY_CHUNK, [1, 3, 5, 6]),
    "dynamo-extra-stop": ("repeated_finish_reason", DYNAMO_EXTRA_STOP, [3, 4]),
}
"""More reported shapes of the same codes."""

MORE_NEGATIVE: dict[str, tuple[str, bytes]] = {
    "cumulative-is-no-replay": ("arguments_replayed", HERMES_SO_FAR_EVERY_CHUNK),
    "a-finish-per-choice": ("repeated_finish_reason", TWO_CHOICES),
    "gemini-sends-no-ids": ("missing_call_id", GEMINI_CONFORMING),
    "trailing-empty-is-no-opener": ("opener_replayed", TRAILING_EMPTY),
    "complete-under-stop": ("silent_truncation", DYNAMO_STOP_WITH_CALLS),
    "cut-under-length": ("silent_truncation", CUT_AT_LENGTH),
    "cut-frame-is-not-joined": ("events_not_separated", CUT_FRAME),
}
"""More near misses."""


def _found(body: bytes) -> dict[str, list[int]]:
    """code -> chunks, after checking both empty-id policies report the same."""
    found = [{q.code: q.chunks for q in detect(analyze_bytes(body, empty_id=p))} for p in POLICIES]
    assert found[0] == found[1]
    return found[0]


@pytest.mark.parametrize("name", list(MORE_POSITIVE))
def test_more_reported_shapes_show_their_code(name: str) -> None:
    code, body, chunks = MORE_POSITIVE[name]
    assert _found(body).get(code) == chunks


@pytest.mark.parametrize("name", list(MORE_NEGATIVE))
def test_more_near_misses_do_not_show_the_code(name: str) -> None:
    code, body = MORE_NEGATIVE[name]
    assert code not in _found(body)


def _codes(body: bytes) -> set[str]:
    return {q.code for q in detect(analyze_bytes(body))}


def test_every_reported_code_is_a_known_one() -> None:
    codes = {code for code, _, _ in REPORTED_POSITIVE.values()}
    assert codes <= set(ORDER) and codes == {code for code, _ in REPORTED_NEGATIVE.values()}
    assert {code for code, _, _ in MORE_POSITIVE.values()} <= codes
    assert {code for code, _ in MORE_NEGATIVE.values()} <= codes


def test_a_replay_is_named_a_replay_and_the_arguments_are_doubled() -> None:
    state = analyze_bytes(ELIZA_REPLAYED)
    (call,) = state.calls
    assert call.arguments == WHOLE + WHOLE  # appended as received: {…}{…}
    quirks = {q.code: q for q in detect(state)}
    assert set(quirks) == {"arguments_replayed"}
    assert "17 characters sent again" in quirks["arguments_replayed"].message


def test_the_whole_call_so_far_in_every_delta_shows_the_existing_codes() -> None:
    """hermes-agent #5384 with the arguments so far: the codes that already named it (its
    doubled text is a JSON prefix by chance, which is no truncation)."""
    assert _codes(HERMES_SO_FAR_EVERY_CHUNK) == {
        "id_repeated_every_chunk",
        "name_repeated_every_chunk",
        "cumulative_arguments",
    }


def test_a_finish_on_every_chunk_closes_the_call_early() -> None:
    """jcode #1326: each stop closes the call, so its fragments arrive after its close."""
    assert _codes(JCODE_FINISH_EVERY_CHUNK) == {"repeated_finish_reason", "fragment_after_close"}
    (call,) = analyze_bytes(JCODE_FINISH_EVERY_CHUNK).calls
    assert call.arguments == WHOLE and call.late_fragments == [2, 4]


def test_an_empty_finish_is_not_called_a_mismatch() -> None:
    assert _codes(CC_SWITCH_NO_ID) == {"missing_call_id", "empty_finish_reason"}
    (call,) = analyze_bytes(CC_SWITCH_NO_ID).calls
    assert call.name == "run" and orjson.loads(call.arguments) == {"command": "ls"}


def test_empty_name_with_null_parameters_is_the_empty_name_quirk() -> None:
    """A3S-Lab Code #139: the existing code; the name survives under the default policy."""
    assert _codes(A3S_NULL_PARAMETERS) == {"empty_string_continuation_name"}
    (call,) = analyze_bytes(A3S_NULL_PARAMETERS).calls
    assert call.name == "run" and call.arguments == WHOLE


def test_stop_with_calls_is_a_mismatch_and_a_cut_under_stop_also_a_truncation() -> None:
    """dynamo #10988 (complete calls, "stop") and hermes-agent #75179 (cut arguments, "stop")."""
    assert _codes(DYNAMO_STOP_WITH_CALLS) == {"finish_reason_mismatch"}
    assert _codes(HERMES_CUT_AT_STOP) == {"finish_reason_mismatch", "silent_truncation"}
    assert _codes(CUT_AT_LENGTH) == {"finish_reason_mismatch"}


def test_joined_events_are_not_called_a_cut_frame() -> None:
    assert _codes(BASETEN_NOT_SEPARATED) == {"events_not_separated"}
    assert "undecodable_data" in _codes(CUT_FRAME)


def test_a_malformed_call_is_the_only_code_though_no_call_arrived() -> None:
    state = analyze_bytes(GEMINI_MALFORMED)
    assert state.calls == [] and _codes(GEMINI_MALFORMED) == {"malformed_function_call"}


def test_every_reported_scenario_is_in_the_table_with_its_report() -> None:
    """The demo provider plays each class (tests/net/demo/test_demo_provider.py holds the codes)."""
    for name, description, quirks, calls in REPORTED:
        scenario = SCENARIOS[name]
        assert scenario.quirks == quirks and scenario.calls == calls
        assert "#" in description, name  # the report it reproduces
