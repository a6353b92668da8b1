"""Chat Completions bodies made from a seed: plain ones (:func:`plain_body`), and ones that
are plain but for a few random departures a library may read differently
(:func:`varied_body`), for the proof tests."""

from __future__ import annotations

import json
import random
from typing import Any

NAMES = ("get_weather", "get_time", "get_exchange_rate")
TEXTS = ("Paris", 'say "hi"', "C:\\path", "naïve café", "日本語", "🚀", "tab\there", "a\nb", "")


def _arguments(rng: random.Random) -> str:
    value: dict[str, Any] = {f"k{i}": rng.choice(TEXTS) for i in range(rng.randrange(1, 4))}
    if rng.random() < 0.3:
        value["n"] = rng.choice((0, 1.5, -7, [1, 2], {"x": None}, True))
    return json.dumps(value, ensure_ascii=rng.random() < 0.5)


def _fragments(text: str, rng: random.Random) -> list[str]:
    out, pos = [], 0
    while pos < len(text):
        step = rng.randrange(1, 12)
        out.append(text[pos : pos + step])
        pos += step
    return out


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": "chatcmpl-gen",
        "object": "chat.completion.chunk",
        "created": 1726000000,
        "model": "gpt-4o",
    }
    chunk["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    chunk.update(extra)
    return chunk


def events(rng: random.Random) -> list[dict[str, Any] | str]:
    """A plain stream's chunks (and ``[DONE]``), in the shapes the predicate accepts: with or
    without a role chunk, text and reasoning before the calls, the optional top-level fields
    (``system_fingerprint``, ``service_tier``, ``obfuscation``, ``x_groq``, ``usage: null``),
    a call's arguments in its first entry or not, a call started in the chunk that ends the last
    one, and a usage chunk with nested counts."""
    extra: dict[str, Any] = {}
    if rng.random() < 0.5:
        extra["system_fingerprint"] = rng.choice(("fp_1", None))
        extra["service_tier"] = rng.choice(("default", None))
    if rng.random() < 0.5:
        extra["usage"] = None
    if rng.random() < 0.2:
        extra["x_groq"] = {"id": "req_1", "seed": 7}
    pad = rng.random() < 0.3  # OpenAI's obfuscation: a different string in every chunk

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        more = dict(extra)
        if pad:
            more["obfuscation"] = "x" * rng.randrange(1, 9)
        return _chunk(delta, finish, **more)

    out: list[dict[str, Any] | str] = []
    role: dict[str, Any] = {"role": "assistant", "content": None}
    if rng.random() < 0.5:
        out.append(chunk(role))
        role = {}
    if rng.random() < 0.2:
        out.append(chunk({**role, "reasoning_content": "Thinking."}))
        role = {}
    if rng.random() < 0.3:
        out.append(chunk({**role, "content": "Let me look."}))
        role = {}
    pending: list[dict[str, Any]] = []  # entries to send with the next call's first entry
    for i in range(rng.randrange(1, 4)):
        text = _arguments(rng)
        pieces = _fragments(text, rng)
        head = pieces.pop(0) if rng.random() < 0.2 else ""  # arguments in the first entry
        first = {
            "index": i,
            "id": f"call_{i}{rng.getrandbits(40):x}",
            "type": "function",
            "function": {"name": rng.choice(NAMES), "arguments": head},
        }
        out.append(chunk({**role, "tool_calls": [*pending, first]}))
        role, pending = {}, []
        for piece in pieces:
            out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
        if out and rng.random() < 0.2 and isinstance(out[-1], dict) and pieces:
            last = out.pop()  # its entry goes with the next call's first one
            assert isinstance(last, dict)
            pending = last["choices"][0]["delta"]["tool_calls"]
    if pending:
        out.append(chunk({"tool_calls": pending}))
    out.append(chunk({}, rng.choice(("tool_calls", "stop"))))
    if rng.random() < 0.5:
        usage: dict[str, Any] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if rng.random() < 0.5:
            usage["prompt_tokens_details"] = {"cached_tokens": 0, "audio_tokens": None}
        if rng.random() < 0.3:
            usage["queue_time"] = 0.0415  # Groq's timings
        out.append({**chunk({}), "choices": [], "usage": usage})
    out.append("[DONE]")
    return out


def body_of(chunks: list[dict[str, Any] | str]) -> bytes:
    out = []
    for c in chunks:
        data = c if isinstance(c, str) else json.dumps(c, ensure_ascii=False, separators=(",", ":"))
        out.append(f"data: {data}\n\n")
    return "".join(out).encode("utf-8", "backslashreplace")  # a lone surrogate: its escape


def real_traffic(chunks: list[Any], rng: random.Random) -> list[Any]:
    """The shapes real traffic adds to a plain stream, each at random (in place): Azure's
    first prompt-filter chunk and ``content_filter_results`` in every choice, ``role`` and
    ``tool_calls`` null, ``type: function`` repeated on continuations, and a call without
    arguments (``""`` throughout)."""
    with_choices = [c for c in chunks if isinstance(c, dict) and c.get("choices")]
    entries = [e for c in with_choices for e in c["choices"][0]["delta"].get("tool_calls") or []]
    if rng.random() < 0.2:
        filters = [{"prompt_index": 0, "content_filter_results": {"hate": {"filtered": False}}}]
        chunks.insert(0, {"choices": [], "created": 0, "id": "", "model": "", "object": "",
                          "prompt_filter_results": filters})  # fmt: skip
        for c in with_choices:
            c["choices"][0]["content_filter_results"] = rng.choice(({}, {"hate": {"x": 1}}))
    if rng.random() < 0.2:
        for c in with_choices:
            delta = c["choices"][0]["delta"]
            if "role" not in delta and rng.random() < 0.5:
                delta["role"] = None
            if "tool_calls" not in delta and rng.random() < 0.5:
                delta["tool_calls"] = None
    if rng.random() < 0.2:
        for e in entries:
            e.setdefault("type", "function")
    if rng.random() < 0.2 and entries:
        zero = rng.choice(entries)["index"]
        for e in entries:
            if e["index"] == zero:
                e["function"]["arguments"] = ""
    return chunks


def plain_body(rng: random.Random) -> bytes:
    return body_of(real_traffic(events(rng), rng))


def _depart(chunks: list[Any], rng: random.Random) -> None:
    """One departure from the plain shape, in place."""
    calls = [c for c in chunks if isinstance(c, dict) and c.get("choices")
             and c["choices"][0]["delta"].get("tool_calls")]  # fmt: skip
    entry = rng.choice(calls)["choices"][0]["delta"]["tool_calls"][0]
    what = rng.randrange(16)
    if what == 0:
        entry["id"] = "call_again"  # an id on a continuation, or a new id
    elif what == 1:
        entry["function"]["name"] = "again"
    elif what == 2:
        entry["type"] = "function"
    elif what == 3:
        entry["index"] = entry["index"] + 1
    elif what == 4:
        entry["function"]["arguments"] += " "
    elif what == 5:
        entry["function"]["arguments"] = {"a": 1}
    elif what == 6:
        entry.pop("index")
    elif what == 7:
        entry["function"].pop("arguments")
    elif what == 8:
        entry["extra"] = None
    elif what == 9:
        chunks.insert(rng.randrange(len(chunks)), _chunk({"role": "assistant"}))
    elif what == 10:
        chunks.insert(rng.randrange(len(chunks)), {"error": {"message": "overloaded"}})
    elif what == 11:
        chunks.pop()  # no [DONE]
    elif what == 12:
        entry["function"]["arguments"] = "\ud83d"  # half a surrogate pair (json writes \\ud83d)
    elif what == 13:
        calls[0]["choices"][0]["finish_reason"] = "length"
    elif what == 14:
        entry["id"] = ""
    else:  # two chunks swapped (calls interleaved, a finish before the end …)
        a, b = rng.sample(range(len(chunks) - 1), 2)
        chunks[a], chunks[b] = chunks[b], chunks[a]


def varied_body(rng: random.Random) -> bytes:
    """A plain body with none to three departures (some keep it plain)."""
    chunks = real_traffic(events(rng), rng)
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        _depart(chunks, rng)
    body = body_of(chunks)
    if rng.random() < 0.1:
        body = body.replace(b"\n\n", b"\r\n\r\n")
    if rng.random() < 0.1:
        body = b": keep-alive\n\n" + body
    return body
