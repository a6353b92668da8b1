"""Profiles, scenarios and the request each dialect sends (pure: no network)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from inspector.core.providers import REGISTRY
from inspector.core.providers.anthropic.provider import VERSION as ANTHROPIC_VERSION
from inspector.core.providers.gemini.schema import gemini_schema
from inspector.core.requests.scenarios import (
    BUILTIN_PROFILES,
    Profile,
    Scenario,
    ScenarioError,
    build_request,
    find_profile,
    find_scenario,
    load_profiles,
    load_scenarios,
)
from inspector.core.verdicts.tools import ToolRegistry

SECRET = "sk-test-SECRET-0123456789"


def _scenario(name: str) -> Scenario:
    return find_scenario(name)


def _profile(dialect: str) -> Profile:
    return next(p for p in BUILTIN_PROFILES if p.dialect == dialect and not p.is_demo)


def test_shipped_scenarios_load_with_their_tools() -> None:
    scenarios = {s.name: s for s in load_scenarios()}
    assert set(scenarios) >= {"weather", "filesystem", "zero-arg", "parallel"}
    names = {s: [(t.get("function") or t.get("custom"))["name"] for t in scenarios[s].tools]
             for s in scenarios}  # fmt: skip
    assert names["weather"] == ["get_weather"]
    assert names["filesystem"] == ["ReadFile", "Grep", "Glob", "ExecCommand"]
    assert 2 <= len(names["parallel"]) <= 3
    (zero,) = scenarios["zero-arg"].tools
    assert not zero["function"]["parameters"].get("properties")
    for s in scenarios.values():
        written = s.tools if s.functions_only else REGISTRY.get("openai-responses").tools(s.tools)
        reg = ToolRegistry.from_definitions(written, REGISTRY)
        assert reg.warnings == [] and list(reg.names()) == names[s.name]


def test_builtin_profiles_cover_the_providers() -> None:
    names = {p.name for p in BUILTIN_PROFILES}
    assert {
        "demo",
        "openai",
        "openai-responses",
        "anthropic",
        "gemini",
        "openrouter",
        "groq",
        "deepseek",
        "mistral",
        "ollama",
        "vllm",
    } <= names
    assert {p.dialect for p in BUILTIN_PROFILES} == set(REGISTRY.names())
    assert find_profile("ollama").base_url == "http://localhost:11434/v1"
    assert find_profile("vllm").base_url == "http://localhost:8000/v1"
    assert all(p.key_env is None for p in BUILTIN_PROFILES if p.is_demo)
    with pytest.raises(ScenarioError, match=r"unknown profile 'nope'.*openai"):
        find_profile("nope")


def test_openai_chat_request() -> None:
    spec = build_request(find_profile("openai"), _scenario("weather"))
    assert spec.method == "POST" and spec.url == "https://api.openai.com/v1/chat/completions"
    assert spec.key_header == "authorization"
    assert spec.key_headers(SECRET) == {"authorization": f"Bearer {SECRET}"}
    b = spec.body
    assert b["stream"] is True and b["model"] == "gpt-4o-mini"
    assert b["stream_options"] == {"include_usage": True}
    assert [m["role"] for m in b["messages"]] == ["system", "user"]
    assert b["tools"] == _scenario("weather").tools  # the neutral form is chat's own


def test_responses_request_converts_tools() -> None:
    spec = build_request(find_profile("openai-responses"), _scenario("weather"))
    assert spec.url == "https://api.openai.com/v1/responses"
    b = spec.body
    assert (
        b["stream"] is True
        and b["input"] == [{"role": "user", "content": b["input"][0]["content"]}]
        and "Paris" in b["input"][0]["content"]
    )
    assert b["instructions"].startswith("You are")
    (tool,) = b["tools"]
    assert tool["type"] == "function" and tool["name"] == "get_weather"
    assert tool["parameters"]["required"] == ["city"] and tool["strict"] is False
    assert "function" not in tool


def test_anthropic_request() -> None:
    spec = build_request(find_profile("anthropic"), _scenario("filesystem"))
    assert spec.url == "https://api.anthropic.com/v1/messages"
    assert spec.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert spec.key_header == "x-api-key" and spec.key_headers(SECRET) == {"x-api-key": SECRET}
    b = spec.body
    assert b["max_tokens"] == 1024 and b["stream"] is True and isinstance(b["system"], str)
    assert [m["role"] for m in b["messages"]] == ["user"]
    assert [t["name"] for t in b["tools"]] == ["ReadFile", "Grep", "Glob", "ExecCommand"]
    assert all(set(t) == {"name", "description", "input_schema"} for t in b["tools"])
    assert b["tools"][0]["input_schema"]["required"] == ["path"]


def test_gemini_request() -> None:
    spec = build_request(find_profile("gemini"), _scenario("weather"), model="gemini-x")
    assert spec.url == (
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-x"
        ":streamGenerateContent?alt=sse"
    )
    assert spec.key_header == "x-goog-api-key" and "key=" not in spec.url
    b = spec.body
    assert b["contents"] == [{"role": "user", "parts": [{"text": _scenario("weather").prompt}]}]
    assert b["systemInstruction"]["parts"][0]["text"].startswith("You are")
    (decl,) = b["tools"][0]["functionDeclarations"]
    assert decl["parameters"]["type"] == "OBJECT"
    assert decl["parameters"]["properties"]["city"]["type"] == "STRING"
    # the registry reads the converted declarations back to the same required names
    spec_ = ToolRegistry.from_definitions(b, REGISTRY).get("get_weather")
    assert spec_ is not None and spec_.required == ("city",)


def test_zero_arg_tool_in_every_dialect() -> None:
    tools = _scenario("zero-arg").tools
    assert REGISTRY.get("anthropic").tools(tools)[0]["input_schema"] == {
        "type": "object",
        "properties": {},
    }
    assert "parameters" not in REGISTRY.get("gemini").tools(tools)[0]["functionDeclarations"][0]
    assert REGISTRY.get("openai-responses").tools(tools)[0]["parameters"]["type"] == "object"


def test_gemini_schema_conversion() -> None:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "$schema": "x",
        "properties": {
            "n": {"type": ["integer", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
    }
    assert gemini_schema(schema) == {
        "type": "OBJECT",
        "properties": {
            "n": {"type": "INTEGER", "nullable": True},
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}},
        },
    }


@pytest.mark.parametrize("dialect", REGISTRY.names())
def test_key_never_in_the_spec(dialect: str) -> None:
    profile = replace(_profile(dialect), headers={"x-extra": "1"})
    spec = build_request(profile, _scenario("parallel"))
    blob = orjson.dumps([spec.url, dict(spec.headers), spec.body]).decode().lower()
    assert "bearer" not in blob and SECRET.lower() not in blob
    assert not (
        {"authorization", "x-api-key", "x-goog-api-key"} & {h.lower() for h in spec.headers}
    )
    assert spec.headers["x-extra"] == "1" and spec.key_header is not None


def test_demo_profiles_resolve_per_dialect() -> None:
    demo = find_profile("demo")
    with pytest.raises(ValueError, match="resolved"):
        build_request(demo, _scenario("weather"))
    urls = {
        p.dialect: build_request(
            p.resolved("http://127.0.0.1:9/"), _scenario("weather"), model="demo-clean"
        ).url
        for p in BUILTIN_PROFILES
        if p.is_demo
    }
    assert urls == {
        "openai-chat": "http://127.0.0.1:9/v1/chat/completions",
        "openai-responses": "http://127.0.0.1:9/v1/responses",
        "anthropic": "http://127.0.0.1:9/v1/messages",
        "gemini": "http://127.0.0.1:9/v1beta/models/demo-clean:streamGenerateContent?alt=sse",
        "cohere-v2": "http://127.0.0.1:9/v2/chat",
        "gemini-interactions": "http://127.0.0.1:9/v1beta/interactions",
        "openai-completions": "http://127.0.0.1:9/v1/completions",
        "bedrock-converse": "http://127.0.0.1:9/model/demo-clean/converse-stream",
    }
    assert build_request(demo.resolved("http://h"), _scenario("weather")).key_header is None


def test_messages_override_and_options_win() -> None:
    profile = replace(find_profile("anthropic"), options={"max_tokens": 77, "temperature": 0})
    msgs = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "yo"},
        {"role": "user", "content": "again"},
    ]
    b = build_request(profile, _scenario("weather"), messages=msgs).body
    assert b["system"] == "S" and b["max_tokens"] == 77 and b["temperature"] == 0
    assert [m["role"] for m in b["messages"]] == ["user", "assistant", "user"]
    g = build_request(_profile("gemini"), _scenario("weather"), messages=msgs).body
    assert [c["role"] for c in g["contents"]] == ["user", "model", "user"]


def test_user_profiles(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(
        json.dumps(
            [
                {
                    "name": "mine",
                    "dialect": "openai-chat",
                    "base_url": "http://x/v1",
                    "model": "m",
                    "key_env": "MY_KEY",
                    "headers": {"h": "v"},
                }
            ]
        )
    )
    (mine,) = load_profiles(path)
    assert mine == Profile("mine", "openai-chat", "http://x/v1", "m", "MY_KEY", {"h": "v"}, {})
    assert find_profile("mine", [mine]) is mine
    path.write_text(json.dumps([{"name": "x", "dialect": "soap", "base_url": "u", "model": "m"}]))
    with pytest.raises(ScenarioError, match="profile 1: dialect"):
        load_profiles(path)
    path.write_text("{")
    with pytest.raises(ScenarioError, match="not valid JSON"):
        load_profiles(path)


def test_scenario_files(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"prompt": "p", "tools": []}))
    s = find_scenario(str(path))
    assert (s.name, s.title, s.prompt, s.tools, s.system) == ("mine", "mine", "p", [], None)
    path.write_text(json.dumps({"prompt": "p", "tools": [{"name": "flat"}]}))
    with pytest.raises(ScenarioError, match="tools"):
        find_scenario(str(path))
    with pytest.raises(ScenarioError, match=r"unknown scenario 'nope'.*weather"):
        find_scenario("nope")
