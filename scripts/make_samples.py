"""Build the sample captures of the app's Samples menu: ``resources/samples/*.jsonl``.

Usage: ``python scripts/make_samples.py [OUT_DIR]`` (default: resources/samples).

Every sample is a capture written with :class:`CaptureWriter`, as a live session would write
it: a request (method, URL, headers with a credential the writer redacts, a JSON body with
model, messages, tools and ``stream: true``), a 200 ``text/event-stream`` response, the body
as network chunks 10–80 ms apart (sometimes several SSE events in one chunk, sometimes an
event split across two), and an end record. The header's ``meta`` holds the sample's title,
description and dialect.

Deterministic: each sample draws from its own fixed-seed RNG, so re-running the script gives
the same files byte for byte except the header's ``created`` timestamp (CaptureWriter stamps
the time of writing and has no way to fix it).
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core.capture.writer import CaptureWriter

OUT = Path(__file__).resolve().parents[1] / "resources" / "samples"
SSE_HEADERS = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "connection": "keep-alive",
}
JSON = {"content-type": "application/json"}
DONE = b"data: [DONE]\n\n"
CREATED = 1761920000  # a fixed "created" for the chunks themselves


# -- building blocks -------------------------------------------------------------------------


def sse(obj: Any, event: str | None = None, eol: str = "\n") -> bytes:
    """One SSE event: optional ``event:`` line, compact JSON ``data:``, blank line."""
    data = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    head = f"event: {event}{eol}" if event else ""
    return f"{head}data: {data}{eol}{eol}".encode()


def pieces(text: str, rng: random.Random, lo: int, hi: int) -> list[str]:
    """``text`` cut into fragments of ``lo``..``hi`` characters."""
    out, i = [], 0
    while i < len(text):
        n = rng.randint(lo, hi)
        out.append(text[i : i + n])
        i += n
    return out


def args(obj: Any) -> str:
    """Arguments as most providers stream them (``json.dumps`` default spacing)."""
    return json.dumps(obj, ensure_ascii=False)


def tool(name: str, description: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A Chat Completions tool definition."""
    params = {"type": "object", "properties": props, "required": required}
    fn = {"name": name, "description": description, "parameters": params}
    return {"type": "function", "function": fn}


def chat_body(model: str, prompt: str, tools: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A streaming Chat Completions request body."""
    messages = [
        {"role": "system", "content": "You are a helpful assistant. Use tools."},
        {"role": "user", "content": prompt},
    ]
    return {"model": model, "messages": messages, "tools": tools, "stream": True, **extra}


class Chat:
    """Chat Completions chunks for one response (same id, model and created throughout)."""

    def __init__(self, cid: str, model: str, fingerprint: str | None = None) -> None:
        self.cid, self.model, self.fingerprint = cid, model, fingerprint

    def chunk(self, delta: dict[str, Any], finish: str | None = None) -> bytes:
        obj: dict[str, Any] = {
            "id": self.cid,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": self.model,
        }
        if self.fingerprint:
            obj["system_fingerprint"] = self.fingerprint
        obj["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
        return sse(obj)

    def calls(self, *entries: dict[str, Any]) -> bytes:
        return self.chunk({"tool_calls": list(entries)})

    def usage(self, prompt: int, completion: int) -> bytes:
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        return sse(
            {
                "id": self.cid,
                "object": "chat.completion.chunk",
                "created": CREATED,
                "model": self.model,
                "choices": [],
                "usage": usage,
            }
        )


def entry(
    index: int, arguments: str, id_: str | None = None, name: str | None = None, typed: bool = False
) -> dict[str, Any]:
    """A ``tool_calls`` entry; None leaves ``id`` / ``name`` out."""
    e: dict[str, Any] = {"index": index}
    if id_ is not None:
        e["id"] = id_
    if typed:
        e["type"] = "function"
    fn: dict[str, Any] = {} if name is None else {"name": name}
    fn["arguments"] = arguments
    e["function"] = fn
    return e


# -- writing ---------------------------------------------------------------------------------


@dataclass
class Attempt:
    """One physical request of a sample and the events of its response body."""

    url: str
    headers: dict[str, str]
    body: dict[str, Any]
    events: list[bytes]
    reason: str | None = None
    """For a retry: why the previous attempt was abandoned (the attempt record)."""
    recovery_action: str | None = None
    max_group: int = 3
    """At most this many events share one network chunk."""
    split_rate: float = 0.0
    """Chance that an event is split across two network chunks."""
    single_rate: float = 0.6
    """Chance that a network chunk holds a single event."""


@dataclass
class Sample:
    """One capture file of the Samples menu."""

    name: str
    title: str
    description: str
    dialect: str
    seed: int
    build: Callable[[random.Random], list[Attempt]]
    meta: dict[str, Any] = field(default_factory=dict)


def network_chunks(att: Attempt, rng: random.Random) -> list[bytes]:
    """Group (and now and then split) the events the way a socket read delivers them."""
    out: list[bytes] = []
    i = 0
    while i < len(att.events):
        n = 1 if rng.random() < att.single_rate else rng.randint(2, max(att.max_group, 2))
        group = b"".join(att.events[i : i + n])
        i += n
        if att.split_rate and rng.random() < att.split_rate and len(group) > 8:
            cut = rng.randint(4, len(group) - 4)
            out += [group[:cut], group[cut:]]
        else:
            out.append(group)
    return out


def write(sample: Sample, out_dir: Path) -> Path:
    """Write one sample capture; returns its path."""
    rng = random.Random(sample.seed)
    attempts = sample.build(rng)
    path = out_dir / f"{sample.name}.jsonl"
    meta = {
        "title": sample.title,
        "description": sample.description,
        "dialect": sample.dialect,
        **sample.meta,
    }
    with CaptureWriter(path, meta=meta) as w:
        for n, att in enumerate(attempts, start=1):
            if att.reason is not None:
                w.attempt(n, att.reason, att.recovery_action or "retry_streaming")
            w.request(n, "POST", att.url, att.headers, att.body)
            t = round(rng.uniform(0.25, 0.7), 3)
            w.response(n, 200, SSE_HEADERS, t)
            for chunk in network_chunks(att, rng):
                t = round(t + rng.uniform(0.010, 0.080), 3)
                w.chunk(n, t, chunk)
            w.end(n, round(t + 0.001, 3), "eof")
    return path


# -- the samples -----------------------------------------------------------------------------

GLM_URL = "https://open.bigmodel.cn/api/paas/v4/chat/completions"
EXEC_PARTS = [
    '"cmd": ',
    '"Get-',
    "Date; ",
    "Write-",
    "Output ",
    '\\"',
    "PowerShell ",
    "工具运行",
    "正常",
    '"}',
]
GLOB_PARTS = ['"pattern": ', '"*.', 'md"', "}"]


def glm(rng: random.Random) -> list[Attempt]:
    tools = [
        tool("ExecCommand", "Run a shell command", {"cmd": {"type": "string"}}, ["cmd"]),
        tool("Glob", "Find files by pattern", {"pattern": {"type": "string"}}, ["pattern"]),
    ]
    c = Chat("chatcmpl-20251031a7f3c2d9e14b", "glm-5.2")
    events = [
        c.chunk({"role": "assistant", "content": ""}),
        c.calls(entry(0, "{", "call_b45f0e6a0c9d4c8fb2a4a7d1", "ExecCommand", True)),
    ]
    events += [c.calls(entry(0, p, "", "", True)) for p in EXEC_PARTS]
    events.append(c.calls(entry(1, "{", "call_9072c7daa3af466782cee2ea", "Glob", True)))
    events += [c.calls(entry(1, p, "", "", True)) for p in GLOB_PARTS]
    events += [c.chunk({}, "tool_calls"), DONE]
    body = chat_body("glm-5.2", "Check PowerShell works, then list the markdown files.", tools)
    headers = {"Authorization": "Bearer glm-sample-3f9a1c7e.NOT-A-REAL-KEY", **JSON}
    return [Attempt(GLM_URL, headers, body, events)]


def ollama(rng: random.Random) -> list[Attempt]:
    tools = [
        tool("get_weather", "Current weather for a city", {"city": {"type": "string"}}, ["city"])
    ]
    c = Chat("chatcmpl-417", "qwen3:8b", "fp_ollama")
    cities = [("call_q8f2kz1m", "Paris"), ("call_0rt5wv7c", "Tokyo"), ("call_m3jd9x2a", "Lima")]
    events = [c.chunk({"role": "assistant", "content": ""})]
    for call_id, city in cities:  # every call reported at index 0, each with its own id
        e = entry(0, args({"city": city}), call_id, "get_weather", True)
        events.append(c.chunk({"role": "assistant", "content": "", "tool_calls": [e]}))
    events += [c.chunk({"role": "assistant", "content": ""}, "tool_calls"), c.usage(182, 61), DONE]
    body = chat_body(
        "qwen3:8b",
        "Weather in Paris, Tokyo and Lima?",
        tools,
        stream_options={"include_usage": True},
    )
    headers = {"Authorization": "Bearer ollama-sample-NOT-A-REAL-KEY", **JSON}
    return [Attempt("http://localhost:11434/v1/chat/completions", headers, body, events)]


ANTHROPIC_TOOLS = [
    {
        "name": "get_weather",
        "description": "Current weather for a city",
        "input_schema": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["c", "f"]},
            },
            "required": ["city"],
        },
    },
    {
        "name": "get_time",
        "description": "Local time in an IANA time zone",
        "input_schema": {
            "type": "object",
            "properties": {"timezone": {"type": "string"}},
            "required": ["timezone"],
        },
    },
]


def anthropic(rng: random.Random) -> list[Attempt]:
    def ev(obj: dict[str, Any]) -> bytes:
        return sse(obj, obj["type"])

    def block(index: int, delta: dict[str, Any]) -> bytes:
        return ev({"type": "content_block_delta", "index": index, "delta": delta})

    message: dict[str, Any] = {
        "id": "msg_01HkVq7sZ3bYw9RrT2mNcE5p",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 512, "output_tokens": 1},
    }
    events = [
        ev({"type": "message_start", "message": message}),
        ev(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            }
        ),
        ev({"type": "ping"}),
    ]
    for text in pieces("I'll check the weather in Oslo and the local time there.", rng, 6, 18):
        events.append(block(0, {"type": "text_delta", "text": text}))
    events.append(ev({"type": "content_block_stop", "index": 0}))
    calls = [
        ("toolu_01A9xkQ3Gd7pLm2Vn8Rt4WcY", "get_weather", {"city": "Oslo", "unit": "c"}),
        ("toolu_01Jf5bN2Ys8Ke3Hq6Wp9Dz1X", "get_time", {"timezone": "Europe/Oslo"}),
    ]
    for index, (call_id, name, value) in enumerate(calls, start=1):
        start = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        events.append(ev({"type": "content_block_start", "index": index, "content_block": start}))
        events.append(block(index, {"type": "input_json_delta", "partial_json": ""}))
        for i, part in enumerate(pieces(args(value), rng, 3, 9)):
            if i == 2:
                events.append(ev({"type": "ping"}))
            events.append(block(index, {"type": "input_json_delta", "partial_json": part}))
        events.append(ev({"type": "content_block_stop", "index": index}))
    events += [
        ev(
            {
                "type": "message_delta",
                "delta": {
                    "type": "message_delta",
                    "stop_reason": "tool_use",
                    "stop_sequence": None,
                },
                "usage": {"output_tokens": 118},
            }
        ),
        ev({"type": "message_stop"}),
    ]
    body = {
        "model": "claude-sonnet-4-5-20250929",
        "max_tokens": 1024,
        "stream": True,
        "tools": ANTHROPIC_TOOLS,
        "messages": [{"role": "user", "content": "Weather and local time in Oslo?"}],
    }
    headers = {
        "x-api-key": "sk-ant-sample-NOT-A-REAL-KEY",
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
    }
    return [
        Attempt("https://api.anthropic.com/v1/messages", headers, body, events, split_rate=0.08)
    ]


RESPONSES_TOOLS = [
    {
        "type": "function",
        "name": "search_flights",
        "strict": True,
        "description": "Search direct flights",
        "parameters": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "origin": {"type": "string"},
                "destination": {"type": "string"},
                "date": {"type": "string"},
            },
            "required": ["origin", "destination", "date"],
        },
    }
]


def responses(rng: random.Random) -> list[Attempt]:
    seq = iter(range(10_000))

    def ev(type_: str, **fields: Any) -> bytes:
        return sse({"type": type_, "sequence_number": next(seq), **fields}, type_)

    resp: dict[str, Any] = {
        "id": "resp_0a41c9e7b2d84f6a9c3e5b7d1f2a4c6e",
        "object": "response",
        "created_at": CREATED,
        "status": "in_progress",
        "model": "gpt-5.1-2025-11-13",
        "output": [],
        "parallel_tool_calls": True,
        "reasoning": {"effort": "low", "summary": "auto"},
        "tool_choice": "auto",
        "tools": RESPONSES_TOOLS,
        "usage": None,
    }
    events = [ev("response.created", response=resp), ev("response.in_progress", response=resp)]
    rs_id = "rs_0a41c9e7b2d84f6a01913f8c5d2e7b40"
    events.append(
        ev(
            "response.output_item.added",
            output_index=0,
            item={"id": rs_id, "type": "reasoning", "summary": []},
        )
    )
    part = {"type": "summary_text", "text": ""}
    events.append(
        ev(
            "response.reasoning_summary_part.added",
            item_id=rs_id,
            output_index=0,
            summary_index=0,
            part=part,
        )
    )
    summary = "**Finding flights** The user wants direct flights from Lisbon to Berlin on 3 Dec."
    for text in pieces(summary, rng, 4, 14):
        events.append(
            ev(
                "response.reasoning_summary_text.delta",
                item_id=rs_id,
                output_index=0,
                summary_index=0,
                delta=text,
            )
        )
    done_part = {"type": "summary_text", "text": summary}
    events += [
        ev(
            "response.reasoning_summary_text.done",
            item_id=rs_id,
            output_index=0,
            summary_index=0,
            text=summary,
        ),
        ev(
            "response.reasoning_summary_part.done",
            item_id=rs_id,
            output_index=0,
            summary_index=0,
            part=done_part,
        ),
    ]
    reasoning = {"id": rs_id, "type": "reasoning", "summary": [done_part]}
    events.append(ev("response.output_item.done", output_index=0, item=reasoning))
    fc_id, call_id = "fc_0a41c9e7b2d84f6a01913f8c6a7d9e21", "call_Zk4mQ8vT2pL7nW3xR9bY5cJd"
    arguments = json.dumps(
        {"origin": "LIS", "destination": "BER", "date": "2025-12-03"}, separators=(",", ":")
    )
    item = {
        "id": fc_id,
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": call_id,
        "name": "search_flights",
    }
    events.append(ev("response.output_item.added", output_index=1, item=item))
    for text in pieces(arguments, rng, 2, 7):
        events.append(
            ev("response.function_call_arguments.delta", item_id=fc_id, output_index=1, delta=text)
        )
    events.append(
        ev(
            "response.function_call_arguments.done",
            item_id=fc_id,
            output_index=1,
            arguments=arguments,
        )
    )
    item = {**item, "status": "completed", "arguments": arguments}
    events.append(ev("response.output_item.done", output_index=1, item=item))
    usage = {
        "input_tokens": 143,
        "output_tokens": 57,
        "total_tokens": 200,
        "output_tokens_details": {"reasoning_tokens": 24},
    }
    final = {**resp, "status": "completed", "output": [reasoning, item], "usage": usage}
    events.append(ev("response.completed", response=final))
    body = {
        "model": "gpt-5.1",
        "stream": True,
        "tools": RESPONSES_TOOLS,
        "reasoning": {"effort": "low", "summary": "auto"},
        "input": [{"role": "user", "content": "Direct flights Lisbon to Berlin on 3 Dec?"}],
    }
    headers = {
        "Authorization": "Bearer sk-proj-sample-NOT-A-REAL-KEY",
        "content-type": "application/json",
    }
    return [Attempt("https://api.openai.com/v1/responses", headers, body, events, split_rate=0.05)]


GEMINI_TOOLS = [
    {
        "functionDeclarations": [
            {
                "name": "get_weather",
                "description": "Current weather for a city",
                "parameters": {
                    "type": "OBJECT",
                    "properties": {"city": {"type": "STRING"}},
                    "required": ["city"],
                },
            },
            {
                "name": "convert_currency",
                "description": "Convert an amount between currencies",
                "parameters": {
                    "type": "OBJECT",
                    "properties": {
                        "amount": {"type": "NUMBER"},
                        "from": {"type": "STRING"},
                        "to": {"type": "STRING"},
                    },
                    "required": ["amount", "from", "to"],
                },
            },
        ]
    }
]


def gemini(rng: random.Random) -> list[Attempt]:
    usage = {"promptTokenCount": 96, "candidatesTokenCount": 31, "totalTokenCount": 127}

    def ev(parts: list[dict[str, Any]], finish: str | None = None) -> bytes:
        cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        obj = {
            "candidates": [cand],
            "usageMetadata": usage,
            "modelVersion": "gemini-2.5-flash",
            "responseId": "x9QFacWgLpGz1e8P7rKb4Ao",
        }
        return sse(obj, eol="\r\n")

    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123456789+/"
    signature = "CpIBAdHtim9sample" + "".join(rng.choice(alphabet) for _ in range(60))
    calls: list[dict[str, Any]] = [
        {
            "functionCall": {"name": "get_weather", "args": {"city": "Zurich"}},
            "thoughtSignature": signature,
        },
        {
            "functionCall": {
                "name": "convert_currency",
                "args": {"amount": 250, "from": "EUR", "to": "CHF"},
            }
        },
    ]
    events = [ev(calls), ev([{"text": ""}], "STOP")]
    prompt = "Weather in Zurich, and 250 EUR in CHF?"
    body = {
        "contents": [{"role": "user", "parts": [{"text": prompt}]}],
        "tools": GEMINI_TOOLS,
        "generationConfig": {"temperature": 0.2},
    }
    url = (
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"
        ":streamGenerateContent?alt=sse"
    )
    headers = {"x-goog-api-key": "AIza-sample-NOT-A-REAL-KEY", "content-type": "application/json"}
    return [Attempt(url, headers, body, events)]


WRITE_FILE = tool(
    "write_file",
    "Write a text file",
    {"path": {"type": "string"}, "content": {"type": "string"}},
    ["path", "content"],
)
OPENAI_URL = "https://api.openai.com/v1/chat/completions"
OPENAI_HEADERS = {
    "Authorization": "Bearer sk-proj-sample-NOT-A-REAL-KEY",
    "OpenAI-Organization": "org-sample",
    "content-type": "application/json",
}
RELEASE_NOTES = (
    "# Release 2.4\n\n- Faster startup\n- Fixed the crash when a capture ends "
    "mid-line\n- New: compare two settings side by side\n"
)


def retry(rng: random.Random) -> list[Attempt]:
    value = args({"path": "docs/RELEASE.md", "content": RELEASE_NOTES})
    out = []
    for n, (cut, finish) in enumerate(((value[:61], "length"), (value, "tool_calls")), start=1):
        c = Chat(
            f"chatcmpl-CxR{n}e8Lq2Vb7Kd9Yt4Wm1Np6Zs3", "gpt-4o-mini-2024-07-18", "fp_560af6e559"
        )
        events = [c.chunk({"role": "assistant", "content": None, "refusal": None})]
        first = entry(0, "", f"call_{n}Fq8Lm2Xv9Tb4Wk7Rz3Yd6Ns", "write_file", True)
        events.append(c.calls(first))
        events += [c.calls(entry(0, p)) for p in pieces(cut, rng, 2, 6)]
        events += [c.chunk({}, finish), DONE]
        body = chat_body(
            "gpt-4o-mini",
            "Write the release notes to docs/RELEASE.md.",
            [WRITE_FILE],
            max_tokens=48 if n == 1 else 1024,
        )
        reason, action = ("stream_invalid_tool_call", "retry_streaming") if n == 2 else (None, None)
        out.append(Attempt(OPENAI_URL, OPENAI_HEADERS, body, events, reason, action))
    return out


def openrouter(rng: random.Random) -> list[Attempt]:
    fetch = tool(
        "fetch_url",
        "Fetch a web page",
        {"url": {"type": "string"}, "max_bytes": {"type": "integer"}},
        ["url"],
    )
    model = "deepseek/deepseek-chat-v3.1"
    c = Chat("gen-1761920000-Qm7Zp3Vx9Lk2Rt8Wc4Ny", model)
    keepalive = b": OPENROUTER PROCESSING\n\n"
    events = [keepalive, keepalive, keepalive, c.chunk({"role": "assistant", "content": ""})]
    value = args({"url": "https://example.org/changelog", "max_bytes": 20000})
    buffer = ""
    for i, part in enumerate(pieces(value, rng, 5, 12)):  # each fragment repeats the buffer
        buffer += part
        e = entry(0, buffer, "call_0_fk29xm", "fetch_url", True) if i == 0 else entry(0, buffer)
        events.append(c.calls(e))
        if i == 1:
            events.append(keepalive)
    events.append(c.chunk({"role": "assistant", "content": ""}, "stop"))
    events.append(c.usage(211, 38))  # and no [DONE]: the connection just closes
    body = chat_body(model, "What changed in the example.org changelog?", [fetch])
    headers = {
        "Authorization": "Bearer sk-or-v1-sample-NOT-A-REAL-KEY",
        "HTTP-Referer": "https://github.com/toolcall-inspector",
        "X-Title": "Inspector",
        **JSON,
    }
    return [Attempt("https://openrouter.ai/api/v1/chat/completions", headers, body, events)]


WORDS = (
    "stream",
    "tool",
    "call",
    "fragment",
    "index",
    "provider",
    "token",
    "buffer",
    "parser",
    "replay",
    "chunk",
    "event",
    "argument",
    "schema",
    "latency",
    "client",
    "server",
    "model",
    "retry",
    "frame",
    "window",
)


def prose(rng: random.Random, size: int) -> str:
    """About ``size`` characters of paragraphs (newlines included) from a small vocabulary."""
    out: list[str] = []
    total = 0
    while total < size:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 16)))
        text = sentence.capitalize() + (".\n\n" if rng.random() < 0.15 else ". ")
        out.append(text)
        total += len(text)
    return "".join(out)


def large(rng: random.Random) -> list[Attempt]:
    """~185 KB of arguments in ~8-character fragments, from a lean OpenAI-compatible server."""
    value = args({"path": "notes/stream-log.md", "content": prose(rng, 184_000)})
    c = Chat("chatcmpl-local-7f3a", "qwen2.5-coder-7b-instruct")
    events = [
        c.chunk({"role": "assistant", "content": None}),
        c.calls(entry(0, "", "call_big_0001", "write_file", True)),
    ]
    for part in pieces(value, rng, 6, 11):  # lean continuation chunks: just the fragment
        data = {"choices": [{"index": 0, "delta": {"tool_calls": [entry(0, part)]}}]}
        events.append(sse(data))
    events += [c.chunk({}, "tool_calls"), DONE]
    body = chat_body(
        "qwen2.5-coder-7b-instruct", "Write the whole stream log to a file.", [WRITE_FILE]
    )
    headers = {"Authorization": "Bearer local-sample-NOT-A-REAL-KEY", **JSON}
    return [
        Attempt(
            "http://127.0.0.1:8080/v1/chat/completions",
            headers,
            body,
            events,
            max_group=12,
            single_rate=0.1,
        )
    ]


SAMPLES = [
    Sample(
        "glm-empty-string-continuations",
        "GLM-5.2: empty-string id and name continuations",
        "The empty-id accumulator bug: two parallel calls (ExecCommand, Glob) whose "
        'continuations carry "id": "" and "name": "". Fine under the absent policy; under '
        'literal both calls end as "{".',
        "openai-chat",
        3,
        glm,
    ),
    Sample(
        "ollama-parallel-calls-index-0",
        "Ollama: three parallel calls, all at index 0",
        "Three whole calls reported at index 0 with different ids; a naive index-keyed "
        "accumulator merges them. Then a usage-only chunk and [DONE].",
        "openai-chat",
        15457,
        ollama,
    ),
    Sample(
        "anthropic-parallel-tool-use",
        "Anthropic: text, then two tool_use blocks",
        "A text block, then two tool_use blocks streamed as input_json_delta fragments "
        "(the first one empty), pings in between, content_block_stop for each, stop_reason "
        "tool_use. Some events are split across network reads.",
        "anthropic",
        25,
        anthropic,
    ),
    Sample(
        "responses-function-call",
        "OpenAI Responses: reasoning, then a function call",
        "A reasoning item with a streamed summary, then a function_call whose arguments "
        "arrive as deltas and are restated by the .done and output_item.done events; the "
        "stream ends with response.completed (no [DONE]).",
        "openai-responses",
        26,
        responses,
    ),
    Sample(
        "gemini-parallel-function-calls",
        "Gemini: two function calls in one chunk",
        "Two functionCall parts with args as objects and no ids (the inspector repairs "
        "them), a thoughtSignature, CRLF framing, finishReason STOP.",
        "gemini",
        27,
        gemini,
    ),
    Sample(
        "retry-truncated-then-valid",
        "Retry: a truncated call, then a valid one",
        'Attempt 1 is cut off mid-arguments (finish_reason "length"); the client retries '
        "(stream_invalid_tool_call, retry_streaming) and attempt 2 streams a valid call.",
        "openai-chat",
        1,
        retry,
    ),
    Sample(
        "openrouter-keepalives-no-done",
        "OpenRouter: keep-alives, cumulative arguments",
        "': OPENROUTER PROCESSING' comments, a call whose every fragment repeats the "
        'whole buffer so far, finish_reason "stop" despite the call, and no [DONE].',
        "openai-chat",
        10,
        openrouter,
    ),
    Sample(
        "large-arguments",
        "Large arguments: ~185 KB in ~8-character fragments",
        "One write_file call with about 185 KB of arguments in some 22,000 fragments from "
        "a lean local server: for watching replay speed and the fragment table.",
        "openai-chat",
        200,
        large,
    ),
]


def main(argv: list[str]) -> int:
    out_dir = Path(argv[1]) if len(argv) > 1 else OUT
    out_dir.mkdir(parents=True, exist_ok=True)
    for sample in SAMPLES:
        path = write(sample, out_dir)
        print(f"{path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
