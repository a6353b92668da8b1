"""Tool definitions in every provider's shape, warnings, files, and schema checks."""

from __future__ import annotations

import copy
from dataclasses import FrozenInstanceError
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema.validators import Draft202012Validator

from inspector.core.base.errors import InspectorError
from inspector.core.providers import REGISTRY
from inspector.core.providers.gemini.schema import to_json_schema as gemini_to_json_schema
from inspector.core.verdicts.tools import ToolRegistry, ToolsError, ToolSpec

PARAMS = {
    "type": "object",
    "properties": {"location": {"type": "string"}},
    "required": ["location"],
}

CHAT = {
    "type": "function",
    "function": {"name": "chat_tool", "description": "from chat", "parameters": PARAMS},
}
RESPONSES = {
    "type": "function",
    "name": "responses_tool",
    "description": "from responses",
    "parameters": PARAMS,
    "strict": True,
}
ANTHROPIC = {"name": "anthropic_tool", "description": "from anthropic", "input_schema": PARAMS}
GEMINI_DECL = {
    "name": "gemini_tool",
    "description": "from gemini",
    "parameters": {
        "type": "OBJECT",
        "properties": {
            "location": {"type": "STRING", "description": "city"},
            "units": {"type": "STRING", "enum": ["C", "F"], "nullable": True},
            "days": {"type": "ARRAY", "items": {"type": "INTEGER"}},
        },
        "required": ["location"],
    },
}
GEMINI_JSON_DECL = {
    "name": "gemini_json_tool",
    "parametersJsonSchema": {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "required": ["q"],
    },
}


def one(reg: ToolRegistry) -> ToolSpec:
    specs = list(reg)
    assert len(specs) == 1, specs
    return specs[0]


# --- shapes -----------------------------------------------------------------------------------


def test_openai_chat_shape() -> None:
    spec = one(ToolRegistry.from_definitions([CHAT], REGISTRY))
    assert spec == ToolSpec(
        "chat_tool", "from chat", PARAMS, "openai-chat", schema_error=None, required=("location",)
    )


def test_openai_responses_shape() -> None:
    spec = one(ToolRegistry.from_definitions([RESPONSES], REGISTRY))
    assert (spec.name, spec.description, spec.shape) == (
        "responses_tool",
        "from responses",
        "openai-responses",
    )
    assert spec.schema == PARAMS and spec.required == ("location",)


def test_anthropic_shape() -> None:
    spec = one(ToolRegistry.from_definitions([ANTHROPIC], REGISTRY))
    assert (spec.name, spec.shape, spec.required) == ("anthropic_tool", "anthropic", ("location",))
    custom = one(ToolRegistry.from_definitions([{**ANTHROPIC, "type": "custom"}], REGISTRY))
    assert custom.shape == "anthropic" and custom.schema == PARAMS


def test_gemini_uppercase_types_become_json_schema() -> None:
    original = copy.deepcopy(GEMINI_DECL)
    reg = ToolRegistry.from_definitions([{"functionDeclarations": [GEMINI_DECL]}], REGISTRY)
    spec = one(reg)
    assert (spec.name, spec.shape, spec.required) == ("gemini_tool", "gemini", ("location",))
    assert spec.schema == {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "city"},
            "units": {"type": ["string", "null"], "enum": ["C", "F", None]},
            "days": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["location"],
    }
    assert original == GEMINI_DECL  # the caller's definitions are not touched
    assert reg.warnings == []


def test_gemini_parameters_json_schema_is_used_as_is() -> None:
    spec = one(
        ToolRegistry.from_definitions([{"functionDeclarations": [GEMINI_JSON_DECL]}], REGISTRY)
    )
    assert spec.schema == GEMINI_JSON_DECL["parametersJsonSchema"]
    assert spec.required == ("q",)
    # An uppercase type in parametersJsonSchema is not Gemini's OpenAPI form: it stays invalid.
    bad = {"name": "g", "parametersJsonSchema": {"type": "OBJECT"}}
    bad_spec = one(ToolRegistry.from_definitions([{"functionDeclarations": [bad]}], REGISTRY))
    assert bad_spec.schema_error is not None


def test_gemini_snake_case_and_type_unspecified() -> None:
    decl = {"name": "g", "parameters": {"type": "TYPE_UNSPECIFIED", "properties": {}}}
    spec = one(ToolRegistry.from_definitions([{"function_declarations": [decl]}], REGISTRY))
    assert spec.schema == {"properties": {}} and spec.schema_error is None


def test_gemini_conversion_leaves_data_alone() -> None:
    schema = {
        "type": "OBJECT",
        "properties": {"type": {"type": "STRING", "enum": ["OBJECT"], "default": "OBJECT"}},
    }
    assert gemini_to_json_schema(schema) == {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": ["OBJECT"], "default": "OBJECT"}},
    }


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"model": "gpt-4o", "messages": [], "tools": [CHAT]}, id="openai-chat"),
        pytest.param({"model": "gpt-5", "input": "hi", "tools": [RESPONSES]}, id="responses"),
        pytest.param(
            {"model": "claude", "max_tokens": 10, "messages": [], "tools": [ANTHROPIC]},
            id="anthropic",
        ),
        pytest.param(
            {"contents": [], "tools": [{"functionDeclarations": [GEMINI_DECL]}]}, id="gemini"
        ),
    ],
)
def test_whole_request_bodies(body: dict[str, Any]) -> None:
    reg = ToolRegistry.from_definitions(body, REGISTRY)
    assert len(reg) == 1 and reg.warnings == []
    assert one(reg).required == ("location",)


def test_gemini_tools_list_with_several_declarations() -> None:
    reg = ToolRegistry.from_definitions(
        [{"functionDeclarations": [GEMINI_DECL, GEMINI_JSON_DECL]}, {"googleSearch": {}}], REGISTRY
    )
    assert reg.names() == ("gemini_tool", "gemini_json_tool")
    assert reg.warnings == []


def test_mixed_list_keeps_definition_order() -> None:
    reg = ToolRegistry.from_definitions(
        [CHAT, {"functionDeclarations": [GEMINI_DECL]}, ANTHROPIC, RESPONSES], REGISTRY
    )
    assert reg.names() == ("chat_tool", "gemini_tool", "anthropic_tool", "responses_tool")
    assert [s.shape for s in reg] == ["openai-chat", "gemini", "anthropic", "openai-responses"]
    assert len(reg) == 4
    assert "chat_tool" in reg and "nope" not in reg
    spec = reg.get("anthropic_tool")
    assert spec is not None and spec.shape == "anthropic"
    assert reg.get("nope") is None


def test_legacy_functions_body() -> None:
    reg = ToolRegistry.from_definitions({"model": "m", "functions": [CHAT["function"]]}, REGISTRY)
    spec = one(reg)
    assert (spec.name, spec.shape, spec.required) == ("chat_tool", "openai-chat", ("location",))


@pytest.mark.parametrize("empty", [None, [], {}, {"model": "m", "messages": []}, {"tools": []}])
def test_empty_inputs_give_an_empty_registry(empty: Any) -> None:
    reg = ToolRegistry.from_definitions(empty, REGISTRY)
    assert len(reg) == 0 and list(reg) == [] and reg.names() == () and reg.warnings == []
    assert not reg


def test_zero_argument_tools() -> None:
    reg = ToolRegistry.from_definitions(
        [
            {"type": "function", "function": {"name": "now"}},
            {"type": "function", "name": "later", "parameters": None},
            {"functionDeclarations": [{"name": "soon", "description": "d"}]},
        ],
        REGISTRY,
    )
    for spec in reg:
        assert spec.schema is None and spec.schema_error is None and spec.required == ()
        assert reg.validator(spec.name) is None
    assert reg.warnings == []


def test_hosted_tools_are_skipped_silently_and_custom_tools_kept_with_their_format() -> None:
    reg = ToolRegistry.from_definitions(
        [
            {"type": "web_search"},
            {"type": "code_interpreter", "container": {"type": "auto"}},
            {"type": "file_search", "vector_store_ids": ["vs"]},
            {"type": "custom", "name": "grammar_tool", "format": {"type": "text"}},
            {"googleSearch": {}},
            {"codeExecution": {}},
            CHAT,
        ],
        REGISTRY,
    )
    assert reg.names() == ("grammar_tool", "chat_tool")
    assert reg.get("grammar_tool").format == {"type": "text"}  # type: ignore[union-attr]
    assert reg.warnings == []


def test_anthropic_builtin_tools_are_known_by_name() -> None:
    reg = ToolRegistry.from_definitions(
        [{"type": "bash_20250124", "name": "bash"}, {"type": "text_editor_20250728", "name": "ed"}],
        REGISTRY,
    )
    assert reg.names() == ("bash", "ed")
    assert all(s.schema is None and s.shape == "anthropic" for s in reg)
    assert reg.warnings == []


def test_junk_entries_warn_and_never_raise() -> None:
    reg = ToolRegistry.from_definitions(
        [
            CHAT,
            "get_weather",
            42,
            {"foo": "bar"},
            {"type": "function", "function": {"description": "no name"}},
            {"type": "function"},
            {"functionDeclarations": {"name": "x"}},
            {"functionDeclarations": ["nope"]},
            {"name": "", "input_schema": {}},
            None,
        ],
        REGISTRY,
    )
    assert reg.names() == ("chat_tool",)
    assert reg.warnings == [
        "tools[1]: not a tool definition (a JSON string)",
        "tools[2]: not a tool definition (a JSON number)",
        "tools[3]: not a tool definition",
        "tools[4]: tool without a name",
        "tools[5]: function tool without a name",
        "tools[6].functionDeclarations: expected a list, got a JSON object",
        "tools[7].functionDeclarations[0]: not a function declaration (a JSON string)",
        "tools[8]: tool without a name",
        "tools[9]: not a tool definition (JSON null)",
    ]


@pytest.mark.parametrize(
    ("obj", "warning"),
    [
        (42, "tool definitions must be a list or an object, not a JSON number"),
        ({"foo": 1}, "not a list of tool definitions or a request body with 'tools'"),
        ({"tools": {"a": 1}}, "tools: expected a list, got a JSON object"),
    ],
)
def test_unusable_top_level_warns(obj: Any, warning: str) -> None:
    reg = ToolRegistry.from_definitions(obj, REGISTRY)
    assert len(reg) == 0 and reg.warnings == [warning]


def test_single_tool_object_is_accepted() -> None:
    assert ToolRegistry.from_definitions(CHAT, REGISTRY).names() == ("chat_tool",)


def test_duplicate_names_keep_the_first() -> None:
    other = {"name": "chat_tool", "input_schema": {"type": "object"}}
    reg = ToolRegistry.from_definitions([CHAT, other], REGISTRY)
    assert one(reg).shape == "openai-chat"
    assert reg.warnings == [
        "tool 'chat_tool' is defined more than once; the first definition is used"
    ]


def test_non_string_description_is_dropped() -> None:
    spec = one(ToolRegistry.from_definitions([{**ANTHROPIC, "description": ["x"]}], REGISTRY))
    assert spec.description is None


# --- schema checks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "fragment"),
    [
        ({"type": "objectt"}, "/type"),
        ({"type": "object", "required": "location"}, "/required"),
        ({"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}}, "pattern"),
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}, "#/$defs/missing"),
        ({"properties": {"a": {"$ref": "https://example.com/x.json"}}}, "not fetched"),
        ({"$schema": 7, "type": "object"}, "$schema"),
    ],
)
def test_invalid_schema_becomes_schema_error_and_warning(
    schema: dict[str, Any], fragment: str
) -> None:
    reg = ToolRegistry.from_definitions([{"name": "broken", "input_schema": schema}], REGISTRY)
    spec = one(reg)
    assert spec.schema_error is not None and fragment in spec.schema_error
    assert "\n" not in spec.schema_error
    assert spec.required == () and spec.schema == schema
    assert reg.validator("broken") is None
    (warning,) = reg.warnings
    assert warning.startswith("tool 'broken': schema is not valid JSON Schema (")
    assert warning.endswith("); validation is skipped for it")


@pytest.mark.parametrize("params", ["object", ["a"], True, 3])
def test_parameters_that_are_not_an_object(params: Any) -> None:
    reg = ToolRegistry.from_definitions(
        [{"type": "function", "name": "t", "parameters": params}], REGISTRY
    )
    spec = one(reg)
    assert spec.schema is None
    assert spec.schema_error is not None and "must be a JSON object" in spec.schema_error
    assert len(reg.warnings) == 1


def test_local_refs_and_anchors_resolve() -> None:
    schema = {
        "type": "object",
        "$defs": {"City": {"$anchor": "city", "type": "string"}},
        "properties": {"a": {"$ref": "#/$defs/City"}, "b": {"$ref": "#city"}},
        "required": ["a"],
    }
    spec = one(ToolRegistry.from_definitions([{"name": "t", "input_schema": schema}], REGISTRY))
    assert spec.schema_error is None and spec.required == ("a",)


def test_ref_shaped_data_is_not_a_reference() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"const": {"$ref": "#/nowhere"}},
            "b": {"default": {"$ref": "other.json"}, "examples": [{"$ref": "#/x"}]},
            "$ref": {"type": "string"},
        },
    }
    reg = ToolRegistry.from_definitions([{"name": "t", "input_schema": schema}], REGISTRY)
    assert one(reg).schema_error is None and reg.warnings == []


def test_ref_to_the_metaschema_resolves_offline() -> None:
    schema = {
        "type": "object",
        "properties": {"s": {"$ref": "https://json-schema.org/draft/2020-12/schema"}},
    }
    reg = ToolRegistry.from_definitions([{"name": "t", "input_schema": schema}], REGISTRY)
    assert one(reg).schema_error is None
    assert reg.validator("t") is not None


def test_no_network_for_remote_refs(monkeypatch: pytest.MonkeyPatch) -> None:
    import urllib.request

    fetched: list[Any] = []

    def no_network(request: Any, *args: Any, **kwargs: Any) -> Any:
        fetched.append(request)
        raise OSError("network access attempted")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    # The nested $id hides the reference from the pre-check, so the validator meets it.
    schema = {
        "type": "object",
        "properties": {"a": {"$id": "https://example.com/a", "$ref": "remote.json"}},
    }
    reg = ToolRegistry.from_definitions([{"name": "t", "input_schema": schema}], REGISTRY)
    validator = reg.validator("t")
    assert validator is not None
    with pytest.raises(Exception):  # noqa: B017 - unresolvable, whatever jsonschema calls it
        list(validator.iter_errors({"a": 1}))
    assert fetched == []


def test_unknown_dialect_falls_back_to_2020_12_with_a_warning() -> None:
    schema = {"$schema": "https://example.com/my-dialect", "type": "object"}
    reg = ToolRegistry.from_definitions([{"name": "t", "input_schema": schema}], REGISTRY)
    assert isinstance(reg.validator("t"), Draft202012Validator)
    assert reg.warnings == [
        "tool 't': unknown $schema 'https://example.com/my-dialect'; validating it as Draft 2020-12"
    ]


def test_validator_is_cached_per_tool() -> None:
    reg = ToolRegistry.from_definitions([CHAT, ANTHROPIC], REGISTRY)
    a = reg.validator("chat_tool")
    assert a is not None and reg.validator("chat_tool") is a
    assert reg.validator("anthropic_tool") is not a


def test_toolspec_is_frozen_and_hashable() -> None:
    spec = one(ToolRegistry.from_definitions([CHAT], REGISTRY))
    with pytest.raises(FrozenInstanceError):
        spec.name = "x"  # type: ignore[misc]
    assert {spec: 1}[spec] == 1


# --- files --------------------------------------------------------------------------------------


def test_from_file_reads_a_body(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_bytes(orjson.dumps({"model": "m", "tools": [CHAT, RESPONSES]}))
    assert ToolRegistry.from_file(path, REGISTRY).names() == ("chat_tool", "responses_tool")
    assert ToolRegistry.from_file(str(path), REGISTRY).names() == ("chat_tool", "responses_tool")


def test_from_file_accepts_a_utf8_bom(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_bytes(b"\xef\xbb\xbf" + orjson.dumps([ANTHROPIC]))
    assert ToolRegistry.from_file(path, REGISTRY).names() == ("anthropic_tool",)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "cannot read tools file"),
        (b'[{"name": "x",\n', "is not valid JSON"),
        (b"\xff\xfe", "is not valid JSON"),
        (b"42", "holds a JSON number"),
        (b'"tools"', "holds a JSON string"),
    ],
)
def test_from_file_errors_are_one_line_naming_the_file(
    tmp_path: Path, content: bytes | None, reason: str
) -> None:
    path = tmp_path / "my tools.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ToolsError) as info:
        ToolRegistry.from_file(path, REGISTRY)
    message = str(info.value)
    assert str(path) in message and reason in message
    assert "\n" not in message
    assert isinstance(info.value, InspectorError)


def test_from_file_on_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ToolsError, match="cannot read tools file"):
        ToolRegistry.from_file(tmp_path, REGISTRY)


def test_an_entry_in_two_shapes_at_once_is_skipped_with_a_warning() -> None:
    both = {**CHAT, "functionDeclarations": [GEMINI_DECL]}  # a Chat function and a Gemini tool
    reg = ToolRegistry.from_definitions([both, ANTHROPIC], REGISTRY)
    assert reg.names() == ("anthropic_tool",)
    assert reg.warnings == [
        "tools[0]: a tool definition in more than one shape (openai-chat, gemini); skipped"
    ]


def test_a_bare_declaration_is_the_legacy_functions_list_s_or_gemini_s_by_where_it_sits() -> None:
    legacy = ToolRegistry.from_definitions({"model": "m", "functions": [GEMINI_DECL]}, REGISTRY)
    assert one(legacy).shape == "openai-chat" and one(legacy).schema == GEMINI_DECL["parameters"]
    listed = ToolRegistry.from_definitions({"model": "m", "tools": [GEMINI_DECL]}, REGISTRY)
    assert one(listed).shape == "gemini" and one(listed).schema["type"] == "object"
    # An Anthropic tool in the legacy list is Anthropic's: its input_schema proves it.
    odd = ToolRegistry.from_definitions({"functions": [ANTHROPIC]}, REGISTRY)
    assert one(odd).shape == "anthropic"
