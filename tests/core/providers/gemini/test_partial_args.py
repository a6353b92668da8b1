"""Gemini 3 streamed function-call arguments (Vertex ``partialArgs``) read as one call.

Hand-built streams in the shape Vertex AI sends (the Vercel AI SDK's recorded fixture
``google-vertex-stream-tool-call-arguments-nested``: a named part with ``willContinue``, one
leaf update per part, strings ended by an empty piece, an empty ``functionCall`` last), the
path grammar, hostile values, and the demo provider's ``demo-partial-args`` scenario judged
under strict validation with the trip request's schema.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from net.demo.test_demo_provider import FAST, client

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import OMITTED, Delta
from inspector.core.base.settings import Settings
from inspector.core.calls.stream import StreamState
from inspector.core.providers import REGISTRY, analyze_bytes
from inspector.core.providers.gemini import PROVIDER
from inspector.core.providers.gemini.partial import PartialArgs, normal_path, parse_path
from inspector.core.quirks.detect import detect
from inspector.core.quirks.events.wrongtype import field_problem
from inspector.core.requests.scenarios import find_scenario
from inspector.core.verdicts.tools import ToolRegistry
from inspector.net.demo import DemoProvider


def event(*parts: dict[str, Any], finish: str | None = None) -> bytes:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if finish:
        cand["finishReason"] = finish
    return b"data: " + orjson.dumps({"candidates": [cand]}) + b"\r\n\r\n"


def fc(**fields: Any) -> dict[str, Any]:
    return {"functionCall": fields}


def update(path: str, **value: Any) -> dict[str, Any]:
    """One part carrying one leaf update (the call goes on)."""
    return fc(partialArgs=[{"jsonPath": path, **value}], willContinue=True)


def read(*events: bytes) -> StreamState:
    return analyze_bytes(b"".join(events), "gemini")


RECIPE = [
    event(fc(name="cookRecipe", willContinue=True)),
    event(update("$.recipe.name", stringValue="Lasagna ", willContinue=True)),
    event(update("$.recipe.name", stringValue='al "forno"', willContinue=True)),
    event(update("$.recipe.name", stringValue="")),
    event(update("$.recipe.ingredients[0].amount", numberValue=16)),
    event(update("$.recipe.ingredients[0].vegan", boolValue=False)),
    event(update("$.recipe.ingredients[1].amount", numberValue=2.5)),
    event(update("$.recipe['serving notes']", nullValue="NULL_VALUE")),
    event(update("$.steps[0]", stringValue="Boil.")),
    event(update("$.steps[1]", stringValue="Bake.")),
    event(fc(), finish="STOP"),
]
RECIPE_ARGS = {
    "recipe": {
        "name": 'Lasagna al "forno"',
        "ingredients": [{"amount": 16, "vegan": False}, {"amount": 2.5}],
        "serving notes": None,
    },
    "steps": ["Boil.", "Bake."],
}


def test_leaf_updates_assemble_into_one_call_in_arrival_order() -> None:
    state = read(*RECIPE)
    (call,) = state.calls
    assert call.name == "cookRecipe" and call.id is OMITTED and not call.open
    assert orjson.loads(call.arguments) == RECIPE_ARGS
    assert call.arguments == orjson.dumps(RECIPE_ARGS).decode()  # keys as they arrived
    assert len(call.fragments) == len(RECIPE)  # every functionCall part is a fragment
    assert detect(state) == []


def test_each_fragment_names_its_normalised_path() -> None:
    (call,) = read(*RECIPE).calls
    paths = [(f.extra or {}).get("jsonPaths") for f in call.fragments]
    assert paths[0] is None and paths[-1] is None  # the opener and the closing part
    assert paths[4] == ["$.recipe.ingredients[0].amount"]
    assert paths[7] == ["$.recipe['serving notes']"]
    assert call.fragments[2].arguments == 'al \\"forno\\"'  # a string goes on, escaped
    assert call.fragments[-1].arguments == "]}"  # the closing part closes what is open


def test_several_updates_in_one_part_and_two_calls_in_a_row() -> None:
    two = fc(
        partialArgs=[
            {"jsonPath": "$.a", "numberValue": 1},
            {"jsonPath": "$.b", "stringValue": "x", "willContinue": True},
        ],
        willContinue=True,
    )
    state = read(
        event(fc(name="first", willContinue=True)),
        event(two),
        event(fc(partialArgs=[{"jsonPath": "$.b", "stringValue": "y"}])),  # ends the call
        event(fc(name="second", willContinue=True)),
        event(update("$.q", boolValue=True)),
        event(fc(), finish="STOP"),
    )
    first, second = state.calls
    assert (first.name, orjson.loads(first.arguments)) == ("first", {"a": 1, "b": "xy"})
    assert first.fragments[1].extra["jsonPaths"] == ["$.a", "$.b"]
    assert (second.name, orjson.loads(second.arguments)) == ("second", {"q": True})


def test_a_call_left_open_by_the_next_one_keeps_its_cut_text() -> None:
    state = read(
        event(fc(name="first", willContinue=True)),
        event(update("$.a", stringValue="x", willContinue=True)),
        event(fc(name="second", args={"k": 1})),
        event(fc(), finish="STOP"),
    )
    first, second = state.calls
    assert first.arguments == '{"a":"x' and second.arguments == '{"k":1}'


def test_a_finish_before_the_end_leaves_the_arguments_incomplete() -> None:
    analysis = Analysis(Settings(), providers=REGISTRY)
    analysis.feed(b"".join([*RECIPE[:5], event(finish="STOP")]))
    analysis.end()
    (verdict,) = analysis.final.verdicts
    assert [p.code for p in verdict.problems] == ["invalid_json"]


def test_paths_revisited_or_skipped_are_written_where_they_arrive() -> None:
    text = PartialArgs()
    pieces = [
        text.add(("a", "b"), "1", False, False),
        text.add(("c",), "2", False, False),
        text.add(("a", "d"), "3", False, False),  # back into the closed $.a
        text.add(("e", 2), '"z"', False, False),  # [0] and [1] never sent
    ]
    assert [again for _, again in pieces] == [False, False, True, False]
    joined = "".join(p for p, _ in pieces) + text.end()
    assert joined == '{"a":{"b":1},"c":2,"a":{"d":3},"e":[null,null,"z"]}'


@pytest.mark.parametrize(
    ("path", "steps", "normal"),
    [
        ("$.a[0].b", ("a", 0, "b"), "$.a[0].b"),
        ("$['a b'][12]", ("a b", 12), "$['a b'][12]"),
        ('$["x"].y_2', ("x", "y_2"), "$.x.y_2"),
        ("$['it\\'s']", ("it's",), "$['it\\'s']"),
        ("$.café", ("café",), "$['café']"),
    ],
)
def test_json_paths_read_and_normalised(path: str, steps: tuple[Any, ...], normal: str) -> None:
    assert parse_path(path) == steps
    assert normal_path(steps) == normal


@pytest.mark.parametrize("path", ["", "$", "a.b", "$.", "$[x]", "$.a..b", "$[-1]"])
def test_what_is_no_path(path: str) -> None:
    assert parse_path(path) is None


def test_hostile_updates_are_wire_field_problems_never_exceptions() -> None:
    state = read(
        event(fc(name="f", willContinue=True)),
        event(fc(partialArgs="nope", willContinue=True)),
        event(
            fc(
                partialArgs=[7, {"jsonPath": 3}, {"jsonPath": "$[x]", "numberValue": 1}],
                willContinue=True,
            )
        ),
        event(update("$.a", numberValue=True)),
        event(update("$.b", stringValue=["x"])),
        event(update("$.c")),  # no value: left out silently
        event(update("$.ok", numberValue=1)),
        event(fc(), finish="STOP"),
    )
    (call,) = state.calls
    assert call.arguments == '{"ok":1}'
    (quirk,) = detect(state)
    assert (quirk.code, quirk.chunks) == ("wire_field_type", [1, 2, 3, 4])
    where = "candidates[0].content.parts[0].functionCall."
    problems = [field_problem(d) for d in state.deltas if isinstance(d, Delta)]
    fields = [p["wire_field_type"].removeprefix(where) for p in problems if p is not None]
    assert fields == [
        "partialArgs",
        "partialArgs[0]",
        "partialArgs[1].jsonPath",
        "partialArgs[2].jsonPath",
        "partialArgs[0].numberValue",
        "partialArgs[0].stringValue",
    ]


# -- the demo provider's scenario, judged with the trip request's schema ----------------------


async def test_demo_scenario_is_valid_under_strict_with_its_schema(
    demo_provider: DemoProvider,
) -> None:
    trip = find_scenario("trip")
    tools = PROVIDER.tools(list(trip.tools))
    body = {"contents": [{"role": "user", "parts": [{"text": trip.prompt}]}], "tools": tools}
    path = "/v1beta/models/demo-partial-args:streamGenerateContent?alt=sse"
    async with client(demo_provider.url, timeout=10) as c:
        raw = (await c.post(path, json=body, headers=FAST)).content
    analysis = Analysis(
        Settings(validation="strict"),
        ToolRegistry.from_definitions(tools, REGISTRY),
        providers=REGISTRY,
    )
    analysis.feed(raw)
    analysis.end()
    (verdict,) = analysis.final.verdicts
    assert verdict.valid, verdict.problems
    args = orjson.loads(verdict.call.arguments)
    assert args["travellers"][1] == {"name": "alice", "age": 30, "child": True}
    assert args["budget"] == {"amount": 1200.5, "currency": "EUR", "flexible": True}
    assert args["note"] == "Hello from the demo provider" and args["return_date"] is None
    assert analysis.final.quirks == []
    frags = verdict.call.fragments
    note = [f for f in frags if (f.extra or {}).get("jsonPaths") == ["$.note"]]
    assert len(note) >= 3  # the string went on over several parts
    assert frags[-1].arguments == "}" and frags[0].name == "plan_trip"
