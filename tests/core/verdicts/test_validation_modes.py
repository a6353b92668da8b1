"""The validation modes' table (validation before execution): every mode against every kind of
call."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema.validators import Draft7Validator, Draft202012Validator

from inspector.core.base.settings import DEFAULT_MODE, VALIDATION_MODES, validation_mode
from inspector.core.providers import REGISTRY
from inspector.core.verdicts import tools as tools_module
from inspector.core.verdicts.tools import ToolRegistry, ToolSpec
from inspector.core.verdicts.validation import (
    Problem,
    matches_empty_required_condition,
    validate_call,
)

OFF, STRUCTURAL, STRICT = VALIDATION_MODES

WEATHER = {
    "type": "object",
    "properties": {
        "location": {"type": "string"},
        "units": {"type": "string", "enum": ["c", "f"]},
        "days": {"type": "integer", "minimum": 1},
    },
    "required": ["location"],
}


def chat_tool(name: str, parameters: Any = None) -> dict[str, Any]:
    fn: dict[str, Any] = {"name": name, "description": f"{name} tool"}
    if parameters is not None:
        fn["parameters"] = parameters
    return {"type": "function", "function": fn}


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    return ToolRegistry.from_definitions(
        [
            chat_tool("get_weather", WEATHER),
            chat_tool("now"),  # declares no parameters at all
            chat_tool("ping", {"type": "object", "properties": {}}),
            chat_tool("broken_type", {"type": "objectt", "required": ["location"]}),
            chat_tool("broken_required", {"type": "object", "required": "location"}),
        ],
        REGISTRY,
    )


def codes(problems: list[Problem]) -> list[str]:
    return [p.code for p in problems]


# (tool name, arguments, expected codes for off / structural / strict)
TABLE: list[tuple[str, str | None, str, list[str], list[str], list[str]]] = [
    # id, name, arguments, off, structural, strict
    ("valid", "get_weather", '{"location": "Paris"}', [], [], []),
    ("valid-all", "get_weather", '{"location":"Paris","units":"c","days":3}', [], [], []),
    (
        "blank-required",
        "get_weather",
        "",
        ["empty_required_arguments"],
        ["missing_required"],
        ["missing_required"],
    ),
    (
        "whitespace-required",
        "get_weather",
        " \n\t ",
        ["empty_required_arguments"],
        ["missing_required"],
        ["missing_required"],
    ),
    (
        "empty-object-required",
        "get_weather",
        "{}",
        ["empty_required_arguments"],
        ["missing_required"],
        ["missing_required"],
    ),
    (
        "spaced-empty-object-required",
        "get_weather",
        " { } ",
        ["empty_required_arguments"],
        ["missing_required"],
        ["missing_required"],
    ),
    ("blank-zero-arg-no-schema", "now", "", [], [], []),
    ("blank-zero-arg-empty-schema", "ping", "", [], [], []),
    ("empty-object-zero-arg", "ping", "{}", [], [], []),
    ("wrong-type", "get_weather", '{"location": 600519}', [], [], ["schema_violation"]),
    (
        "wrong-enum",
        "get_weather",
        '{"location": "x", "units": "kelvin"}',
        [],
        [],
        ["schema_violation"],
    ),
    (
        "missing-required-with-others",
        "get_weather",
        '{"units": "c"}',
        [],
        ["missing_required"],
        ["missing_required"],
    ),
    (
        "missing-required-and-wrong-type",
        "get_weather",
        '{"days": "x"}',
        [],
        ["missing_required"],
        ["missing_required", "schema_violation"],
    ),
    ("array", "get_weather", "[1]", [], ["not_an_object"], ["not_an_object"]),
    ("string", "get_weather", '"x"', [], ["not_an_object"], ["not_an_object"]),
    ("number", "get_weather", "3", [], ["not_an_object"], ["not_an_object"]),
    ("null", "get_weather", "null", [], ["not_an_object"], ["not_an_object"]),
    ("unclosed", "get_weather", "{", [], ["invalid_json"], ["invalid_json"]),
    ("no-value", "get_weather", '{"a":}', [], ["invalid_json"], ["invalid_json"]),
    ("unknown-tool", "get_wether", '{"location": "x"}', [], ["unknown_tool"], ["unknown_tool"]),
    ("unknown-tool-blank", "nope", "", [], ["unknown_tool"], ["unknown_tool"]),
    ("missing-name-none", None, '{"location": "x"}', [], ["missing_name"], ["missing_name"]),
    ("missing-name-empty", "", "", [], ["missing_name"], ["missing_name"]),
    # A tool whose schema is not valid JSON Schema never fails on schema grounds ...
    ("broken-type-blank", "broken_type", "", [], [], []),
    ("broken-type-args", "broken_type", '{"x": [1, 2]}', [], [], []),
    ("broken-required-blank", "broken_required", "{}", [], [], []),
    ("broken-required-wrong", "broken_required", '{"location": 5}', [], [], []),
    # ... but JSON and object checks still apply to it.
    ("broken-not-object", "broken_type", "[1]", [], ["not_an_object"], ["not_an_object"]),
    ("broken-invalid-json", "broken_required", "{", [], ["invalid_json"], ["invalid_json"]),
]


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        pytest.param(
            row[1], row[2], dict(zip((OFF, STRUCTURAL, STRICT), row[3:], strict=True)), id=row[0]
        )
        for row in TABLE
    ],
)
@pytest.mark.parametrize("mode", [OFF, STRUCTURAL, STRICT])
def test_the_validation_mode_table(
    registry: ToolRegistry,
    mode: str,
    name: str | None,
    arguments: str,
    expected: dict[str, list[str]],
) -> None:
    assert codes(validate_call(name, arguments, registry, mode)) == expected[mode]


@pytest.mark.parametrize("mode", [OFF, STRUCTURAL, STRICT])
def test_truncated_is_reported_in_addition(registry: ToolRegistry, mode: str) -> None:
    cut = validate_call("get_weather", '{"location": "Par', registry, mode, truncated=True)
    whole = validate_call("get_weather", '{"location": "Paris"}', registry, mode, truncated=True)
    if mode == OFF:
        assert cut == [] and whole == []
    else:
        assert codes(cut) == ["truncated", "invalid_json"]
        assert codes(whole) == ["truncated"]
        assert "ended before" in whole[0].message


def test_default_mode_is_structural(registry: ToolRegistry) -> None:
    assert DEFAULT_MODE == "structural"
    assert validate_call("get_weather", '{"location": 600519}', registry) == []
    assert codes(validate_call("get_weather", "{}", registry)) == ["missing_required"]


def test_unknown_mode_raises(registry: ToolRegistry) -> None:
    with pytest.raises(ValueError, match="unknown validation mode 'lenient'"):
        validate_call("get_weather", "{}", registry, "lenient")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="expected one of off, structural, strict"):
        validation_mode("Strict")


def test_the_mode_type_gives_the_spellings_in_order(registry: ToolRegistry) -> None:
    assert VALIDATION_MODES == ("off", "structural", "strict")
    assert [validation_mode(m) for m in VALIDATION_MODES] == list(VALIDATION_MODES)
    assert codes(validate_call("get_weather", "{}", registry, "off")) == [
        "empty_required_arguments"
    ]


# --- individual problems -------------------------------------------------------------------


def test_missing_required_lists_every_name_once() -> None:
    reg = ToolRegistry.from_definitions(
        [chat_tool("t", {"type": "object", "required": ["a", "b", "c"]})], REGISTRY
    )
    for mode in (STRUCTURAL, STRICT):
        problems = validate_call("t", '{"b": 1}', reg, mode)
        assert len(problems) == 1, mode
        assert problems[0].code == "missing_required"
        assert problems[0].detail == {"missing": ["a", "c"]}
        assert problems[0].message == "missing required arguments 'a', 'c'"


def test_empty_required_arguments_detail(registry: ToolRegistry) -> None:
    (p,) = validate_call("get_weather", "", registry, OFF)
    assert p.detail == {"missing": ["location"]}
    assert "location" in p.message


@pytest.mark.parametrize(
    ("arguments", "kind"),
    [("[1]", "a JSON array"), ('"x"', "a JSON string"), ("3", "a JSON number"),
     ("true", "a JSON boolean"), ("null", "JSON null")],
)  # fmt: skip
def test_not_an_object_message(registry: ToolRegistry, arguments: str, kind: str) -> None:
    (p,) = validate_call("get_weather", arguments, registry)
    assert p.message == f"arguments are {kind}, not an object"


@pytest.mark.parametrize(
    ("arguments", "offset"),
    [("{", 1), ('{"a":}', 5), ('{"location": "x",}', 16), ('{"é":}', 6), ('{"😀":}', 8)],
)
def test_invalid_json_offsets_are_utf8_bytes(
    registry: ToolRegistry, arguments: str, offset: int
) -> None:
    (p,) = validate_call("get_weather", arguments, registry)
    assert p.code == "invalid_json"
    assert p.offset == offset
    assert f"at byte {offset}" in p.message
    assert "\n" not in p.message


class _TrackerError:
    def __init__(self, offset: int, reason: str) -> None:
        self.offset = offset
        self.reason = reason


def test_invalid_json_uses_the_trackers_error(registry: ToolRegistry) -> None:
    err = _TrackerError(4, "expected a value after ':'")
    (p,) = validate_call("get_weather", '{"a":}', registry, json_error=err)
    assert p.offset == 4
    assert "expected a value after ':'" in p.message
    # A reason that already names the byte is not told twice.
    said = _TrackerError(5, "unexpected '}' where a value was expected at byte 5")
    (q,) = validate_call("get_weather", '{"a":}', registry, json_error=said)
    assert q.message == (
        "arguments are not valid JSON: unexpected '}' where a value was expected at byte 5"
    )
    # orjson still decides whether the arguments are JSON: a stale tracker error is ignored.
    assert validate_call("get_weather", '{"location": "x"}', registry, json_error=err) == []


def test_unknown_tool_suggests_the_close_name(registry: ToolRegistry) -> None:
    (p,) = validate_call("get_weatherget_weather", "{}", registry)
    assert p.code == "unknown_tool"
    assert p.detail == {"name": "get_weatherget_weather", "suggestion": "get_weather"}
    (q,) = validate_call("zzzz", "{}", registry)
    assert q.detail == {"name": "zzzz"}
    assert "5 tools defined" in q.message


@pytest.mark.parametrize("mode", [STRUCTURAL, STRICT])
def test_unknown_tool_is_no_problem_when_tools_are_unknown(mode: str) -> None:
    assert validate_call("anything", '{"x": 1}', None, mode) == []
    assert (
        validate_call("anything", '{"x": 1}', ToolRegistry.from_definitions([], REGISTRY), mode)
        == []
    )
    # without a registry the object check still applies
    assert codes(validate_call("anything", "[1]", None, mode)) == ["not_an_object"]


def test_missing_name_does_not_look_up_required(registry: ToolRegistry) -> None:
    assert codes(validate_call(None, "", registry, STRICT)) == ["missing_name"]


# --- strict: schema violations --------------------------------------------------------------


def test_strict_violation_pointer_message_and_detail(registry: ToolRegistry) -> None:
    (p,) = validate_call("get_weather", '{"location": "x", "units": "kelvin"}', registry, STRICT)
    assert p.pointer == "/units"
    assert p.message == "/units: 'kelvin' is not one of ['c', 'f']"
    assert p.detail is not None
    assert p.detail["validator"] == "enum"
    assert p.detail["expected"] == ["c", "f"]
    (q,) = validate_call("get_weather", '{"location": 3}', registry, STRICT)
    assert q.pointer == "/location"
    assert q.detail is not None
    assert (q.detail["validator"], q.detail["expected"]) == ("type", "string")
    assert q.detail["schema_path"] == "/properties/location/type"


def test_strict_violations_sorted_by_path_with_rfc6901_escaping() -> None:
    schema = {
        "type": "object",
        "properties": {
            "z": {"type": "string"},
            "a/b~c": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
    }
    reg = ToolRegistry.from_definitions([chat_tool("t", schema)], REGISTRY)
    args = '{"z": 1, "tags": ["ok", 2, "ok", 3, 4, 5, 6, 7, 8, 9, 10, 11], "a/b~c": "x"}'
    problems = validate_call("t", args, reg, STRICT)
    pointers = [p.pointer for p in problems]
    expected_tags = [f"/tags/{i}" for i in (1, *range(3, 12))]  # numeric, not string, order
    assert pointers == ["/a~1b~0c", *expected_tags, "/z"]
    assert all(p.code == "schema_violation" for p in problems)


def test_strict_root_violation_has_empty_pointer() -> None:
    schema = {"type": "object", "properties": {"a": {}}, "additionalProperties": False}
    reg = ToolRegistry.from_definitions([chat_tool("t", schema)], REGISTRY)
    (p,) = validate_call("t", '{"a": 1, "b": 2}', reg, STRICT)
    assert p.pointer == ""
    assert p.message.startswith("(root): ")
    assert validate_call("t", '{"a": 1, "b": 2}', reg, STRUCTURAL) == []


def test_strict_does_not_repeat_top_level_required_but_keeps_nested() -> None:
    schema = {
        "type": "object",
        "properties": {"loc": {"type": "object", "required": ["lat"]}},
        "required": ["loc", "when"],
        "allOf": [{"required": ["mode"]}],
    }
    reg = ToolRegistry.from_definitions([chat_tool("t", schema)], REGISTRY)
    problems = validate_call("t", '{"loc": {}}', reg, STRICT)
    assert codes(problems) == ["missing_required", "schema_violation", "schema_violation"]
    assert problems[0].detail == {"missing": ["when"]}
    # the allOf requirement is not a top-level "required", so jsonschema reports it
    assert [(p.pointer, p.detail and p.detail["validator"]) for p in problems[1:]] == [
        ("", "required"),
        ("/loc", "required"),
    ]


def test_strict_gemini_uppercase_types_and_nullable() -> None:
    reg = ToolRegistry.from_definitions(
        [
            {
                "functionDeclarations": [
                    {
                        "name": "search",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {
                                "q": {"type": "STRING"},
                                "limit": {"type": "INTEGER", "nullable": True},
                            },
                            "required": ["q"],
                        },
                    }
                ]
            }
        ],
        REGISTRY,
    )
    assert validate_call("search", '{"q": "x", "limit": null}', reg, STRICT) == []
    problems = validate_call("search", '{"q": 1, "limit": "ten"}', reg, STRICT)
    assert [p.pointer for p in problems] == ["/limit", "/q"]


def test_strict_message_is_one_bounded_line() -> None:
    reg = ToolRegistry.from_definitions(
        [chat_tool("t", {"type": "object", "maxProperties": 0})], REGISTRY
    )
    big = orjson.dumps({f"key{i}\n": "v\nv" * 50 for i in range(50)}).decode()
    (p,) = validate_call("t", big, reg, STRICT)
    assert "\n" not in p.message
    assert len(p.message) <= 300


# --- $schema dialects ------------------------------------------------------------------------


DEPENDENCIES = {
    "type": "object",
    "properties": {"card": {"type": "string"}, "billing": {"type": "string"}},
    "dependencies": {"card": ["billing"]},
}


def test_draft7_schema_is_honoured_and_2020_12_is_the_default() -> None:
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", **DEPENDENCIES}
    reg = ToolRegistry.from_definitions(
        [chat_tool("d7", draft7), chat_tool("d2020", DEPENDENCIES)], REGISTRY
    )
    assert isinstance(reg.validator("d7"), Draft7Validator)
    assert isinstance(reg.validator("d2020"), Draft202012Validator)
    # "dependencies" is a Draft-07 keyword; 2020-12 ignores it.
    (p,) = validate_call("d7", '{"card": "4111"}', reg, STRICT)
    assert p.detail is not None and p.detail["validator"] == "dependencies"
    assert validate_call("d2020", '{"card": "4111"}', reg, STRICT) == []


def test_draft7_array_items_valid_there_but_not_in_2020_12() -> None:
    tuple_items = {
        "type": "object",
        "properties": {
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}
        },
    }
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema", **tuple_items}
    reg = ToolRegistry.from_definitions(
        [chat_tool("d7", draft7), chat_tool("d2020", tuple_items)], REGISTRY
    )
    assert reg.get("d7") is not None and reg.get("d7").schema_error is None  # type: ignore[union-attr]
    assert codes(validate_call("d7", '{"pair": ["a", "b"]}', reg, STRICT)) == ["schema_violation"]
    spec = reg.get("d2020")
    assert spec is not None and spec.schema_error is not None
    assert validate_call("d2020", '{"pair": ["a", "b"]}', reg, STRICT) == []


# --- malformed tool schemas ------------------------------------------------------------------


def test_malformed_schema_warns_and_has_no_validator(registry: ToolRegistry) -> None:
    joined = "\n".join(registry.warnings)
    for name in ("broken_type", "broken_required"):
        assert f"tool '{name}': schema is not valid JSON Schema (" in joined
        spec = registry.get(name)
        assert spec is not None and spec.schema_error and spec.required == ()
        assert registry.validator(name) is None
        assert not matches_empty_required_condition(name, "", registry)
    assert "validation is skipped for it" in joined


def test_hand_built_spec_with_schema_error_never_fails_on_schema_grounds() -> None:
    spec = ToolSpec(
        "t", None, {"type": "objectt", "required": ["a"]}, "anthropic",
        schema_error="bad", required=("a",),
    )  # fmt: skip
    reg = ToolRegistry([spec])
    for mode in (OFF, STRUCTURAL, STRICT):
        assert validate_call("t", "{}", reg, mode) == [], mode
    assert not matches_empty_required_condition("t", "", reg)


def test_schema_that_breaks_at_validation_time_never_fails_a_call() -> None:
    # A nested $id hides the dangling relative $ref from the registry's offline pre-check;
    # jsonschema only finds out while validating.
    schema = {
        "type": "object",
        "properties": {"a": {"$id": "https://example.com/a", "$ref": "missing.json"}},
        "required": ["a"],
    }
    reg = ToolRegistry.from_definitions([chat_tool("t", schema)], REGISTRY)
    assert validate_call("t", '{"a": 1}', reg, STRICT) == []
    assert codes(validate_call("t", "{}", reg, STRICT)) == ["missing_required"]


# --- the legacy condition ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("get_weather", "", True),
        ("get_weather", "  ", True),
        ("get_weather", "{}", True),
        ("get_weather", "{ }", True),
        ("get_weather", '{"units": "c"}', False),
        ("get_weather", '{"location": "x"}', False),
        ("get_weather", "[]", False),
        ("get_weather", "{", False),
        ("now", "", False),
        ("ping", "{}", False),
        ("broken_type", "", False),
        ("unknown", "", False),
        (None, "", False),
        ("", "", False),
    ],
)
def test_matches_empty_required_condition(
    registry: ToolRegistry, name: str | None, arguments: str, expected: bool
) -> None:
    assert matches_empty_required_condition(name, arguments, registry) is expected


def test_empty_required_condition_without_registry() -> None:
    assert matches_empty_required_condition("get_weather", "", None) is False


# --- Problem ---------------------------------------------------------------------------------


def test_problem_to_json_and_immutability(registry: ToolRegistry) -> None:
    (p,) = validate_call("get_weather", '{"location": 3}', registry, STRICT)
    data = p.to_json()
    assert data["code"] == "schema_violation"
    assert data["pointer"] == "/location"
    assert "offset" not in data
    assert orjson.loads(orjson.dumps(data)) == data
    (q,) = validate_call("get_weather", "{", registry)
    assert q.to_json() == {"code": "invalid_json", "message": q.message, "offset": 1}
    with pytest.raises(FrozenInstanceError):
        p.code = "x"  # type: ignore[misc]
    assert hash(p) == hash(p)  # usable in sets despite the dict detail


# --- caching ------------------------------------------------------------------------------------


def test_validator_is_built_once_and_reused(
    registry: ToolRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    reg = ToolRegistry.from_definitions(
        [chat_tool("get_weather", WEATHER), chat_tool("now")], REGISTRY
    )
    builds: list[dict[str, Any]] = []
    real = tools_module._build_validator

    def counting(schema: dict[str, Any]) -> Any:
        builds.append(schema)
        return real(schema)

    monkeypatch.setattr(tools_module, "_build_validator", counting)
    first = reg.validator("get_weather")
    assert first is not None and reg.validator("get_weather") is first
    for i in range(1000):
        args = '{"location": 3}' if i % 2 else '{"location": "x"}'
        validate_call("get_weather", args, reg, STRICT)
        validate_call("now", "", reg, STRICT)
    assert len(builds) == 1
    assert reg.validator("get_weather") is first
    assert reg.validator("now") is None and reg.validator("nope") is None


# --- properties --------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(extra=st.dictionaries(st.text(max_size=6), json_values, max_size=5), loc=json_values)
def test_structural_never_checks_types(
    registry: ToolRegistry, extra: dict[str, Any], loc: Any
) -> None:
    args = orjson.dumps({**extra, "location": loc}).decode()
    assert validate_call("get_weather", args, registry, STRUCTURAL) == []


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40), mode=st.sampled_from([OFF, STRUCTURAL, STRICT]))
def test_any_text_gives_deterministic_problems_and_never_raises(
    registry: ToolRegistry, text: str, mode: str
) -> None:
    first = validate_call("get_weather", text, registry, mode)
    assert first == validate_call("get_weather", text, registry, mode)
    for p in first:
        assert "\n" not in p.message
        if p.code == "invalid_json":
            assert p.offset is not None and 0 <= p.offset <= len(text.encode("utf-8", "replace"))
