"""Profiles (where to send), scenarios (what to ask) and the request a live session sends.

A :class:`Profile` names a provider endpoint and its dialect; a :class:`Scenario` is a prompt
plus tools in the neutral form (OpenAI chat's ``{"type": "function", "function": {...}}``);
:func:`build_request` turns the pair into one provider's streaming request: the provider
(looked up by the profile's dialect in :data:`~inspector.core.providers.REGISTRY`) builds the
URL, body and tool shapes and names its key header; this module adds the common headers, the
profile's headers and options. ``base_url`` includes the API version segment (the provider's
``version_segment``) and the provider appends the endpoint.

Invariants:
- Pure: no network, no environment, no keyring. The key never enters a :class:`RequestSpec`:
  the spec only names the header it goes in (``key_header``); the client adds it in memory.
- A profile whose ``base_url`` is ``"demo"`` points at the embedded demo provider; it must be
  :meth:`Profile.resolved` with the demo's URL before :func:`build_request`.
- Loading never half-succeeds: a bad scenario or profile file is a :class:`ScenarioError`
  (one line) naming the file.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import orjson

from inspector.core.base.errors import InspectorError
from inspector.core.base.provider import Providers
from inspector.core.base.resources import resource
from inspector.core.providers import (
    ANTHROPIC,
    BEDROCK_CONVERSE,
    COHERE_V2,
    GEMINI,
    GEMINI_INTERACTIONS,
    OPENAI_CHAT,
    OPENAI_COMPLETIONS,
    OPENAI_RESPONSES,
    REGISTRY,
    openai_chat,
)
from inspector.core.requests.scenarios_expect import Expect, parse_expect

DEMO: Final = "demo"


class ScenarioError(InspectorError):
    """A scenario or profile file that cannot be used (one line)."""


@dataclass(frozen=True)
class Profile:
    """A provider endpoint: where requests go, in which dialect, with which key."""

    name: str
    dialect: str
    """A registered provider's name (openai-chat, anthropic, cohere-v2 …)."""
    base_url: str
    """Up to and including the API version segment, or ``"demo"``."""
    model: str
    key_env: str | None = None
    """The environment variable holding the key; None when the endpoint needs none."""
    headers: Mapping[str, str] = field(default_factory=dict, hash=False)
    """Extra request headers (never credentials: those come from ``key_env``)."""
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    """Dialect extras merged into the body, e.g. ``{"max_tokens": 1024}``."""
    aws_region: str | None = None
    """Sign each request with AWS SigV4 for this region (Bedrock), with credentials from the
    usual AWS chain (environment, shared files, SSO, instance role): never stored, never
    written. None: no signing (a key from ``key_env``, or none)."""

    @property
    def is_demo(self) -> bool:
        """True when this profile targets the embedded demo provider."""
        return self.base_url == DEMO

    def resolved(self, demo_url: str, providers: Providers = REGISTRY) -> Profile:
        """This profile with ``"demo"`` replaced by the running demo's URL (+ version)."""
        if not self.is_demo:
            return self
        segment = providers.get(self.dialect).version_segment
        return replace(self, base_url=demo_url.rstrip("/") + segment)


@dataclass(frozen=True)
class Scenario:
    """What to ask: a prompt and the tools (neutral OpenAI chat shape) offered with it.

    A tool is a function (``{"type": "function", "function": {…}}``) or a custom tool with
    free-form input (Chat's ``{"type": "custom", "custom": {"name", "description", "format"}}``,
    ``format`` ``{"type": "text"}`` or ``{"type": "grammar", "grammar": {"syntax": "lark" |
    "regex", "definition"}}``); a custom tool is declared only in the dialects that have
    them (Responses), and left out elsewhere."""

    name: str
    title: str
    prompt: str
    tools: list[dict[str, Any]] = field(default_factory=list, hash=False)
    system: str | None = None
    expect: Expect = field(default_factory=Expect, hash=False)
    """Which calls a run should make (:mod:`.scenarios_expect`; a matrix judges by it)."""

    @property
    def functions_only(self) -> bool:
        """Does it offer function tools only (every dialect can declare them)?"""
        return all(t.get("type", "function") == "function" for t in self.tools)


@dataclass(frozen=True)
class RequestSpec:
    """One HTTP request, complete except for the key."""

    method: str
    url: str
    headers: Mapping[str, str] = field(hash=False)
    """Headers WITHOUT the secret."""
    body: dict[str, Any] = field(hash=False)
    key_header: str | None = None
    """The header the key goes in (``authorization`` means ``Bearer {key}``); None: no key."""
    dialect: str | None = None
    """The provider the request was built for (its registry name): whose shape an error body
    answering it has. None: not known (a request from elsewhere)."""
    aws_region: str | None = None
    """Sign it with AWS SigV4 for this region when it is sent (the profile's)."""

    def key_headers(self, key: str | None) -> dict[str, str]:
        """The credential header for ``key`` (empty without a key or a key header)."""
        if not key or self.key_header is None:
            return {}
        value = f"Bearer {key}" if self.key_header.lower() == "authorization" else key
        return {self.key_header: value}


_CHAT_USAGE: Final = copy.deepcopy(dict(openai_chat.PROVIDER.stream_usage))
"""What a Chat Completions request adds to get usage in the stream (the provider's own)."""
# fmt: off
BUILTIN_PROFILES: Final[list[Profile]] = [
    Profile("demo", OPENAI_CHAT, DEMO, "demo-glm-empty-string"),
    Profile("demo-responses", OPENAI_RESPONSES, DEMO, "demo-clean"),
    Profile("demo-anthropic", ANTHROPIC, DEMO, "demo-clean", options={"max_tokens": 1024}),
    Profile("demo-gemini", GEMINI, DEMO, "demo-clean"),
    Profile("demo-cohere", COHERE_V2, DEMO, "demo-clean"),
    Profile("demo-interactions", GEMINI_INTERACTIONS, DEMO, "demo-clean"),
    Profile("demo-completions", OPENAI_COMPLETIONS, DEMO, "demo-clean"),
    Profile("demo-bedrock", BEDROCK_CONVERSE, DEMO, "demo-clean"),
    Profile("openai", OPENAI_CHAT, "https://api.openai.com/v1", "gpt-4o-mini",
            "OPENAI_API_KEY", options=_CHAT_USAGE),
    Profile("openai-responses", OPENAI_RESPONSES, "https://api.openai.com/v1", "gpt-4o-mini",
            "OPENAI_API_KEY"),
    Profile("anthropic", ANTHROPIC, "https://api.anthropic.com/v1", "claude-3-5-haiku-latest",
            "ANTHROPIC_API_KEY", options={"max_tokens": 1024}),
    Profile("gemini", GEMINI, "https://generativelanguage.googleapis.com/v1beta",
            "gemini-2.0-flash", "GEMINI_API_KEY"),
    Profile("cohere", COHERE_V2, "https://api.cohere.com/v2", "command-a-03-2025", "CO_API_KEY"),
    Profile("gemini-interactions", GEMINI_INTERACTIONS,
            "https://generativelanguage.googleapis.com/v1beta", "gemini-2.5-flash",
            "GEMINI_API_KEY"),
    Profile("openai-completions", OPENAI_COMPLETIONS, "https://api.openai.com/v1",
            "gpt-3.5-turbo-instruct", "OPENAI_API_KEY"),
    Profile("bedrock-api-key", BEDROCK_CONVERSE,
            "https://bedrock-runtime.us-east-1.amazonaws.com",
            "us.anthropic.claude-3-5-haiku-20241022-v1:0", "AWS_BEARER_TOKEN_BEDROCK"),
    Profile("bedrock", BEDROCK_CONVERSE, "https://bedrock-runtime.us-east-1.amazonaws.com",
            "us.anthropic.claude-3-5-haiku-20241022-v1:0", aws_region="us-east-1"),
    Profile("openrouter", OPENAI_CHAT, "https://openrouter.ai/api/v1", "openai/gpt-4o-mini",
            "OPENROUTER_API_KEY", options=_CHAT_USAGE),
    Profile("groq", OPENAI_CHAT, "https://api.groq.com/openai/v1", "llama-3.3-70b-versatile",
            "GROQ_API_KEY"),
    Profile("deepseek", OPENAI_CHAT, "https://api.deepseek.com/v1", "deepseek-chat",
            "DEEPSEEK_API_KEY", options=_CHAT_USAGE),
    Profile("mistral", OPENAI_CHAT, "https://api.mistral.ai/v1", "mistral-small-latest",
            "MISTRAL_API_KEY"),
    Profile("zhipu-glm", OPENAI_CHAT, "https://open.bigmodel.cn/api/paas/v4", "glm-4.6",
            "ZHIPUAI_API_KEY"),
    Profile("ollama", OPENAI_CHAT, "http://localhost:11434/v1", "qwen2.5:7b"),
    Profile("vllm", OPENAI_CHAT, "http://localhost:8000/v1", "Qwen/Qwen2.5-7B-Instruct",
            options=_CHAT_USAGE),
]
# fmt: on


def find_profile(name: str, extra: list[Profile] | None = None) -> Profile:
    """The profile called ``name`` (user profiles first); ScenarioError listing the choices."""
    profiles = [*(extra or []), *BUILTIN_PROFILES]
    for p in profiles:
        if p.name == name:
            return p
    choices = ", ".join(dict.fromkeys(p.name for p in profiles))
    raise ScenarioError(f"unknown profile {name!r} (choose from: {choices})")


def _read_json(path: Path) -> Any:
    try:
        return orjson.loads(path.read_bytes())
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except orjson.JSONDecodeError as exc:
        raise ScenarioError(f"{path}: not valid JSON: {exc}") from None


def _tool_named(t: Any) -> bool:
    """A neutral function tool, or a custom one (Chat's shape), with a string name."""
    if not isinstance(t, dict):
        return False
    inner = t.get("custom") if t.get("type") == "custom" else t.get("function")
    return isinstance(inner, dict) and isinstance(inner.get("name"), str)


def _scenario(obj: Any, path: Path) -> Scenario:
    if not isinstance(obj, dict) or not isinstance(obj.get("prompt"), str):
        raise ScenarioError(f"{path}: a scenario is an object with a string 'prompt'")
    tools = obj.get("tools", [])
    if not isinstance(tools, list) or not all(_tool_named(t) for t in tools):
        raise ScenarioError(
            f"{path}: 'tools' must be a list of {{'type': 'function', 'function': {{'name', …}}}}"
            " or {'type': 'custom', 'custom': {'name', …}}"
        )
    system = obj.get("system")
    name = obj.get("name") or path.stem
    try:
        expect = parse_expect(obj.get("expect"))
    except ValueError as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    return Scenario(str(name), str(obj.get("title") or name), obj["prompt"], tools,
                    system if isinstance(system, str) else None, expect)  # fmt: skip


def load_scenario(path: str | Path) -> Scenario:
    """One scenario file."""
    p = Path(path)
    return _scenario(_read_json(p), p)


def load_scenarios(folder: str | Path | None = None) -> list[Scenario]:
    """Every ``*.json`` scenario in ``folder`` (default: the shipped ones, ``resources/
    scenarios``), sorted by file name."""
    where = Path(folder) if folder is not None else resource("scenarios")
    return [load_scenario(p) for p in sorted(where.glob("*.json"))]


def find_scenario(name_or_path: str, folder: str | Path | None = None) -> Scenario:
    """A shipped scenario (or one in ``folder``) by name, or a scenario file by path."""
    if name_or_path.endswith(".json") or Path(name_or_path).is_file():
        return load_scenario(name_or_path)
    found = load_scenarios(folder)
    for s in found:
        if s.name == name_or_path:
            return s
    names = ", ".join(s.name for s in found)
    raise ScenarioError(f"unknown scenario {name_or_path!r} (choose from: {names})")


def load_profiles(path: str | Path) -> list[Profile]:
    """User profiles: a JSON list of objects with the :class:`Profile` fields."""
    p = Path(path)
    data = _read_json(p)
    if not isinstance(data, list):
        raise ScenarioError(f"{p}: profiles must be a JSON list")
    out: list[Profile] = []
    for i, obj in enumerate(data):
        where = f"{p}: profile {i + 1}"
        if not isinstance(obj, dict):
            raise ScenarioError(f"{where} is not an object")
        missing = [k for k in ("name", "dialect", "base_url", "model") if not obj.get(k)]
        if missing:
            raise ScenarioError(f"{where} has no {', '.join(missing)}")
        if obj["dialect"] not in REGISTRY.names():
            raise ScenarioError(f"{where}: dialect must be one of {', '.join(REGISTRY.names())}")
        unknown = set(obj) - {"name", "dialect", "base_url", "model", "key_env", "headers",
                              "options", "aws_region"}  # fmt: skip
        if unknown:
            raise ScenarioError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        headers, options = obj.get("headers") or {}, obj.get("options") or {}
        if not isinstance(headers, dict) or not isinstance(options, dict):
            raise ScenarioError(f"{where}: 'headers' and 'options' must be objects")
        out.append(Profile(str(obj["name"]), obj["dialect"], str(obj["base_url"]),
                           str(obj["model"]), obj.get("key_env") or None,
                           {str(k): str(v) for k, v in headers.items()}, options,
                           str(obj["aws_region"]) if obj.get("aws_region") else None))  # fmt: skip
    return out


# -- requests --------------------------------------------------------------------------------


def _messages(scenario: Scenario, messages: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if messages is not None:
        return copy.deepcopy(messages)
    system = [{"role": "system", "content": scenario.system}] if scenario.system else []
    return [*system, {"role": "user", "content": scenario.prompt}]


def build_request(
    profile: Profile,
    scenario: Scenario,
    *,
    model: str | None = None,
    messages: list[dict[str, Any]] | None = None,
    providers: Providers = REGISTRY,
) -> RequestSpec:
    """The streaming request for ``scenario`` in ``profile``'s dialect.

    ``messages`` (OpenAI chat form, text content) replaces the scenario's system + prompt.
    Profile options are merged into the body last, so a profile can override any field. A
    query in the base URL is kept after the endpoint's path (``…/v1?k=X`` gives
    ``…/v1/chat/completions?k=X``, never ``…/v1?k=X/chat/completions``).
    """
    if profile.is_demo:
        raise ValueError(f"profile {profile.name!r} must be resolved with the demo's URL first")
    try:
        provider = providers.get(profile.dialect)
    except ValueError:
        raise ScenarioError(
            f"profile {profile.name!r}: unknown dialect {profile.dialect!r}"
        ) from None
    base, _, query = profile.base_url.partition("?")
    wire = provider.request(
        base.rstrip("/"),
        model or profile.model,
        _messages(scenario, messages),
        scenario.tools,
    )
    if query:  # a base URL's query (``?api-version=…``, ``?api_key=…``) ends the URL
        wire = replace(wire, url=wire.url + ("&" if "?" in wire.url else "?") + query)
    headers = {"content-type": "application/json", "accept": "text/event-stream", **wire.headers}
    headers.update(profile.headers)
    body = wire.body
    body.update(copy.deepcopy(dict(profile.options)))
    key_header = provider.key_header if profile.key_env else None
    return RequestSpec("POST", wire.url, headers, body, key_header, provider.name,
                       profile.aws_region)  # fmt: skip
