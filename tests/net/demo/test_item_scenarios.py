"""The demo's item scenarios (:mod:`inspector.net.demo.items`) over real loopback HTTP: each
new kind shows in the dialects that have it, its events parse as the pinned SDKs' own stream
types, its wire matches the recorded stream of the same kind (``../shared/fixtures/realworld``,
through the loader that fails loudly when the folder is missing), and the follow-ups a tool
loop sends (outputs of custom and apply_patch calls, a programmatic call's result) go on."""

from __future__ import annotations

import json
from typing import Annotated, Any, get_args, get_origin

import orjson
import pytest
from anthropic.types import RawMessageStreamEvent
from openai.types.responses import ResponseStreamEvent
from realworld.loader import REALWORLD

from inspector.core.providers import analyze_bytes
from inspector.net.demo import DemoProvider
from inspector.net.demo.items import CODE_TOOL, SQL, SQL_TOOL
from net.demo.test_demo_provider import fetch, post, request, user

RESP, ANTH = "openai-responses", "anthropic"

EXPECTED = {
    ("demo-web-search", RESP): ([("hosted", "web_search_call")], [["web_search_call"]]),
    ("demo-web-search", ANTH): ([("hosted", "server_tool_use")], [["web_search_tool_result"]]),
    ("demo-apply-patch", RESP): ([("builtin", "apply_patch_call")], [[]]),
    ("demo-custom-sql", RESP): ([("custom", "custom_tool_call")], [[]]),
    ("demo-programmatic", ANTH): (
        [("hosted", "server_tool_use"), ("function", "tool_use")], [[], []],
    ),
}  # fmt: skip
"""(scenario, dialect) -> the lanes' (kind, item type), and the results each carries."""

RECORDED = {
    ("demo-web-search", RESP): "openai-web-search-tool.1",
    ("demo-web-search", ANTH): "anthropic-web-search-tool.1",
    ("demo-apply-patch", RESP): "openai-apply-patch-tool.1",
    ("demo-custom-sql", RESP): "openai-custom-tool.1",
    ("demo-programmatic", ANTH): "anthropic-programmatic-tool-calling.1",
}
"""The recorded stream each scenario's wire is held to."""


def payloads(body: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line[6:]) for line in body.splitlines() if line.startswith(b"data: ")]


def recorded(name: str) -> list[dict[str, Any]]:
    path = next(REALWORLD.glob(f"*/{name}.sse"), None)
    assert path is not None, f"missing realworld stream {name} under {REALWORLD}"
    return payloads(path.read_bytes())


def items_of(events: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Item / content-block type -> the keys it carries, over every event."""
    keys: dict[str, set[str]] = {}
    for e in events:
        found = [e.get("item"), e.get("content_block")]
        found += (e.get("message") or {}).get("content") or []
        for it in found:
            if isinstance(it, dict) and isinstance(it.get("type"), str):
                keys.setdefault(it["type"], set()).update(it)
    return keys


@pytest.mark.parametrize(("name", "dialect"), list(EXPECTED))
async def test_each_item_scenario_shows_its_kinds_live(
    demo_provider: DemoProvider, name: str, dialect: str
) -> None:
    state = analyze_bytes(await fetch(demo_provider, dialect, name))
    lanes, results = EXPECTED[name, dialect]
    assert [(c.kind, c.item_type) for c in state.calls] == lanes
    assert [[r.value["item_type"] for r in state.results_of(c)] for c in state.calls] == results
    assert not state.errors and state.finish_reason is not None


def event_classes(union: Any) -> dict[str, Any]:
    """Event type -> the SDK's model class for it (the union's members, by their literal)."""
    members = get_args(get_args(union)[0]) if get_origin(union) is Annotated else get_args(union)
    return {get_args(m.model_fields["type"].annotation)[0]: m for m in members}


def sdk_union(dialect: str) -> Any:
    return ResponseStreamEvent if dialect == RESP else RawMessageStreamEvent


@pytest.mark.parametrize(("name", "dialect"), list(EXPECTED))
async def test_item_scenarios_events_are_the_sdks_stream_events(
    demo_provider: DemoProvider, name: str, dialect: str
) -> None:
    classes = event_classes(sdk_union(dialect))
    events = payloads(await fetch(demo_provider, dialect, name))
    real = {e["type"] for e in recorded(RECORDED[name, dialect])}
    assert events
    for e in events:
        if e["type"] not in classes:  # newer than the pinned SDK: the recorded stream has it
            assert e["type"] in real, e["type"]
            continue
        fields = classes[e["type"]].model_fields  # every field the SDK requires is there
        required = {f.alias or n for n, f in fields.items() if f.is_required()}
        assert required <= set(e), (e["type"], required - set(e))


@pytest.mark.parametrize(("name", "dialect"), list(EXPECTED))
async def test_item_scenarios_wire_matches_the_recorded_stream(
    demo_provider: DemoProvider, name: str, dialect: str
) -> None:
    ours = payloads(await fetch(demo_provider, dialect, name))
    real = recorded(RECORDED[name, dialect])
    known = {e["type"] for e in real} | set(event_classes(sdk_union(dialect)))
    assert {e["type"] for e in ours} <= known  # what the API sends (recorded, or in its SDK)
    mine, theirs = items_of(ours), items_of(real)
    for kind in set(mine) - {"message", "text", "reasoning"}:
        assert kind in theirs, kind
        assert mine[kind] == theirs[kind], (kind, mine[kind] ^ theirs[kind])


async def test_the_custom_input_matches_the_grammar_and_a_requests_own_tool_is_called(
    demo_provider: DemoProvider,
) -> None:
    import lark

    state = analyze_bytes(await fetch(demo_provider, RESP, "demo-custom-sql"))
    (call,) = state.calls
    assert (call.name, call.arguments) == ("write_sql", SQL)
    lark.Lark(SQL_TOOL["format"]["definition"]).parse(call.arguments)
    mine = {"type": "custom", "name": "run_query", "description": "Run SQL"}
    path, body = request(RESP, "demo-custom-sql")
    body["tools"] = [*body["tools"], mine]
    r = await post(demo_provider, path, body)
    (call,) = analyze_bytes(r.content).calls
    assert (call.kind, call.name) == ("custom", "run_query")
    echoed = payloads(r.content)[0]["response"]["tools"]
    assert mine in echoed and SQL_TOOL not in echoed


@pytest.mark.parametrize(
    ("name", "output"),
    [
        ("demo-custom-sql", "custom_tool_call_output"),
        ("demo-apply-patch", "apply_patch_call_output"),
    ],
)
async def test_outputs_of_custom_and_built_in_calls_end_the_loop(
    demo_provider: DemoProvider, name: str, output: str
) -> None:
    events = payloads(await fetch(demo_provider, RESP, name))
    item = next(e["item"] for e in events if e["type"] == "response.output_item.done")
    convo = [user(RESP), item, {"type": output, "call_id": item["call_id"], "output": "done"}]
    state = analyze_bytes(await fetch(demo_provider, RESP, name, convo=convo))
    assert not state.calls and "returned done" in "".join(state.text)


async def test_programmatic_calls_come_whole_in_message_start_until_the_answer(
    demo_provider: DemoProvider,
) -> None:
    body = await fetch(demo_provider, ANTH, "demo-programmatic")
    server, call = analyze_bytes(body).calls
    assert call.fragments[0].extra["caller"] == {"type": CODE_TOOL, "tool_id": server.id}
    convo: list[Any] = [user(ANTH)]
    for round_ in (1, 2):
        blocks = [b for e in payloads(body) if (b := e.get("content_block")) and "id" in b]
        blocks += [b for e in payloads(body) for b in (e.get("message") or {}).get("content", [])]
        tool_use = [b for b in blocks if b["type"] == "tool_use"]
        convo += [
            {"role": "assistant", "content": blocks},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": b["id"],
                                          "content": f"rolled {round_}"} for b in tool_use]},
        ]  # fmt: skip
        body = await fetch(demo_provider, ANTH, "demo-programmatic", convo=convo)
        events = payloads(body)
        state = analyze_bytes(body)
        if round_ == 1:  # the next call, whole in message_start, then message_stop
            assert [e["type"] for e in events] == ["message_start", "message_stop"]
            (block,) = events[0]["message"]["content"]
            assert block["caller"] == {"type": CODE_TOOL, "tool_id": server.id}
            (again,) = state.calls
            assert (again.kind, again.item_type, again.id) == ("function", "tool_use", block["id"])
            assert json.loads(again.arguments) == block["input"]
        else:  # the answer
            assert not state.calls and state.finish_reason == "end_turn"


async def test_gemini_code_execution_is_a_hosted_lane_with_its_result(
    demo_provider: DemoProvider,
) -> None:
    """``demo-code-execution`` on Gemini: an ``executableCode`` part the provider runs (a hosted
    lane holding the code), its ``codeExecutionResult`` beside it, the answer, STOP; every
    event is a google-genai ``GenerateContentResponse`` whose parts the SDK reads as code and
    result."""
    from google.genai.types import GenerateContentResponse

    from inspector.net.demo.items import GEMINI_CODE, GEMINI_OUTPUT

    body = await fetch(demo_provider, "gemini", "demo-code-execution")
    state = analyze_bytes(body)
    (lane,) = state.calls
    assert (lane.kind, lane.item_type, lane.arguments) == ("hosted", "executableCode", GEMINI_CODE)
    (result,) = state.results_of(lane)
    assert result.value["item_type"] == "codeExecutionResult"
    assert result.value["output"] == GEMINI_OUTPUT and "17.6" in "".join(state.text)
    assert state.finish_reason == "STOP" and not state.errors
    parts = [p for e in payloads(body)
             for p in GenerateContentResponse.model_validate(e).candidates[0].content.parts]  # type: ignore[index, union-attr]  # fmt: skip
    assert parts[0].executable_code is not None and parts[0].executable_code.code == GEMINI_CODE
    assert parts[1].code_execution_result is not None
    assert parts[1].code_execution_result.outcome == "OUTCOME_OK"
