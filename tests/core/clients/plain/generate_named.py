"""Responses and Anthropic Messages bodies made from a seed, for the proof tests: plain ones
(every shape :mod:`inspector.core.clients.plain.responses` / ``.anthropic`` accept), and ones
that are plain but for a few random departures a library may read differently."""

from __future__ import annotations

import json
import random
from typing import Any

from .generate import _arguments, _fragments

NAMES = ("get_weather", "get_time", "get_exchange_rate")
Event = tuple[str, dict[str, Any]]


def frame(events: list[Event]) -> bytes:
    out = []
    for name, data in events:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        out.append(f"event: {name}\ndata: {text}\n\n")
    return "".join(out).encode("utf-8", "backslashreplace")


# -- Responses ---------------------------------------------------------------------------------


def responses_events(rng: random.Random) -> list[Event]:
    """A plain Responses stream: created (and in_progress), optional reasoning (with summary
    events or none) and message items, one to three function calls (arguments in one delta or
    many, with or without obfuscation), completed with the done items."""
    seq = iter(range(10**6))
    out: list[Event] = []

    def ev(kind: str, **fields: Any) -> None:
        data = {"type": kind, "sequence_number": next(seq), **fields}
        if rng.random() < 0.1:
            data.pop("sequence_number")
        out.append((kind, data))

    rid = f"resp_{rng.getrandbits(48):x}"
    base = {
        "id": rid,
        "object": "response",
        "status": "in_progress",
        "model": "gpt-5",
        "output": [],
    }
    ev("response.created", response=dict(base))
    if rng.random() < 0.7:
        ev("response.in_progress", response=dict(base))
    done: list[dict[str, Any]] = []
    obfuscate = rng.random() < 0.5
    kinds = []
    if rng.random() < 0.4:
        kinds.append("reasoning")
    if rng.random() < 0.4:
        kinds.append("message")
    kinds += ["function_call"] * rng.randrange(1, 4)
    if rng.random() < 0.2:
        kinds.append("message")
    for index, kind in enumerate(kinds):
        iid = f"{kind[:2]}_{rng.getrandbits(40):x}"
        at = {"output_index": index}
        if kind == "reasoning":
            item: dict[str, Any] = {"id": iid, "type": "reasoning", "summary": []}
            if rng.random() < 0.5:
                item["encrypted_content"] = rng.choice(("gAAAA", None))
            ev("response.output_item.added", **at, item=item)
            summary = []
            if rng.random() < 0.5:
                part = {"type": "summary_text", "text": ""}
                ev("response.reasoning_summary_part.added", item_id=iid, **at, summary_index=0,
                   part=part)  # fmt: skip
                ev("response.reasoning_summary_text.delta", item_id=iid, **at, summary_index=0,
                   delta="Thinking.")  # fmt: skip
                ev("response.reasoning_summary_text.done", item_id=iid, **at, summary_index=0,
                   text="Thinking.")  # fmt: skip
                summary = [{"type": "summary_text", "text": "Thinking."}]
                ev("response.reasoning_summary_part.done", item_id=iid, **at, summary_index=0,
                   part=summary[0])  # fmt: skip
            item = {**item, "summary": summary}
        elif kind == "message":
            item = {"id": iid, "type": "message", "status": "in_progress", "content": [],
                    "role": "assistant"}  # fmt: skip
            if rng.random() < 0.3:
                item["phase"] = rng.choice(("commentary", None))
            ev("response.output_item.added", **at, item=item)
            content = []
            for ci in range(rng.randrange(0, 3)):
                part = {"type": "output_text", "annotations": [], "text": ""}
                ev("response.content_part.added", item_id=iid, **at, content_index=ci, part=part)
                text = rng.choice(("Let me look.", "日本語 🚀", 'say "hi"'))
                for piece in _fragments(text, rng):
                    extra = {"obfuscation": "xyz"} if obfuscate else {}
                    ev("response.output_text.delta", item_id=iid, **at, content_index=ci,
                       delta=piece, logprobs=[], **extra)  # fmt: skip
                ev("response.output_text.done", item_id=iid, **at, content_index=ci, text=text,
                   logprobs=[])  # fmt: skip
                part = {**part, "text": text}
                ev("response.content_part.done", item_id=iid, **at, content_index=ci, part=part)
                content.append(part)
            item = {**item, "status": "completed", "content": content}
        else:
            call_id = f"call_{rng.getrandbits(40):x}"
            name = rng.choice(NAMES)
            item = {"id": iid, "type": "function_call", "status": "in_progress", "arguments": "",
                    "call_id": call_id, "name": name}  # fmt: skip
            ev("response.output_item.added", **at, item=item)
            text = _arguments(rng)
            pieces = [text] if rng.random() < 0.2 else _fragments(text, rng)
            for piece in pieces:
                extra = {"obfuscation": "x" * rng.randrange(1, 9)} if obfuscate else {}
                ev("response.function_call_arguments.delta", item_id=iid, **at, delta=piece,
                   **extra)  # fmt: skip
            ev("response.function_call_arguments.done", item_id=iid, **at, arguments=text)
            item = {**item, "status": "completed", "arguments": text}
        ev("response.output_item.done", **at, item=item)
        done.append(item)
    ev("response.completed", response={**base, "status": "completed", "output": done,
                                       "usage": {"input_tokens": 5}})  # fmt: skip
    return out


def _depart_responses(events: list[Event], rng: random.Random) -> None:
    """One departure from the plain Responses shape, in place."""
    calls = [d for k, d in events if k == "response.output_item.added"
             and d["item"]["type"] == "function_call"]  # fmt: skip
    deltas = [d for k, d in events if k == "response.function_call_arguments.delta"]
    dones = [d for k, d in events if k == "response.output_item.done"]
    what = rng.randrange(14)
    if what == 0 and calls:
        calls[-1]["item"]["call_id"] = calls[0]["item"]["call_id"]  # a repeated call id
    elif what == 1 and deltas:
        rng.choice(deltas)["delta"] += " "  # deltas that differ from the done arguments
    elif what == 2 and dones:
        rng.choice(dones)["item"]["id"] = "changed"
    elif what == 3:
        events.pop()  # no response.completed
    elif what == 4:
        events.insert(rng.randrange(1, len(events)), ("error", {"type": "error", "message": "x"}))
    elif what == 5 and calls:
        calls[0]["item"]["arguments"] = "{"  # arguments already in the added item
    elif what == 6 and calls:
        calls[0]["item"]["type"] = "custom_tool_call"
    elif what == 7 and "response" in events[-1][1]:
        events[-1][1]["response"]["output"].reverse()
    elif what == 8 and deltas:
        rng.choice(deltas)["output_index"] += 1
    elif what == 9:
        kind, data = rng.choice(events)
        data["type"] = kind + ".x"
    elif what == 10 and dones:
        rng.choice(dones)["item"]["name"] = "again"
    elif what == 11 and calls:
        calls[0]["item"]["status"] = "completed"
    elif what == 12:
        a, b = rng.sample(range(len(events)), 2)
        events[a], events[b] = events[b], events[a]
    elif calls:
        calls[0]["error"] = {"message": "boom"}


def responses_body(rng: random.Random) -> bytes:
    return frame(responses_events(rng))


def varied_responses_body(rng: random.Random) -> bytes:
    """A plain Responses body with none to three departures (some keep it plain), sometimes
    framed otherwise (no event names, CRLF, a comment, ``[DONE]``)."""
    events = responses_events(rng)
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        _depart_responses(events, rng)
    body = frame(events)
    return _reframe(body, rng) + (b"data: [DONE]\n\n" if rng.random() < 0.05 else b"")


def _reframe(body: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.05:
        body = b"\n".join(line for line in body.split(b"\n") if not line.startswith(b"event: "))
    if rng.random() < 0.05:
        body = body.replace(b"\n\n", b"\r\n\r\n")
    if rng.random() < 0.05:
        body = b": keep-alive\n\n" + body
    if rng.random() < 0.05:
        body = body[:-2]
    return body


# -- Anthropic ---------------------------------------------------------------------------------


def anthropic_events(rng: random.Random) -> list[Event]:
    """A plain Anthropic stream: message_start, pings, optional thinking and text blocks, one
    to three tool_use blocks (with or without a ``caller``, a first empty fragment, arguments
    in one fragment or many, or none: a call without arguments), message_delta, message_stop."""
    out: list[Event] = []

    def ev(kind: str, **fields: Any) -> None:
        out.append((kind, {"type": kind, **fields}))

    message = {"id": f"msg_{rng.getrandbits(40):x}", "type": "message", "role": "assistant",
               "model": "claude", "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 5, "output_tokens": 1}}  # fmt: skip
    ev("message_start", message=message)
    kinds = []
    if rng.random() < 0.3:
        kinds.append("thinking")
    if rng.random() < 0.5:
        kinds.append("text")
    kinds += ["tool_use"] * rng.randrange(1, 4)
    for index, kind in enumerate(kinds):
        if rng.random() < 0.3:
            ev("ping")
        if kind == "thinking":
            ev("content_block_start", index=index,
               content_block={"type": "thinking", "thinking": "", "signature": ""})  # fmt: skip
            ev("content_block_delta", index=index,
               delta={"type": "thinking_delta", "thinking": "Hmm."})  # fmt: skip
            ev("content_block_delta", index=index,
               delta={"type": "signature_delta", "signature": "sig"})  # fmt: skip
        elif kind == "text":
            ev("content_block_start", index=index, content_block={"type": "text", "text": ""})
            for piece in _fragments(rng.choice(("I'll look.", "日本語 🚀")), rng):
                ev("content_block_delta", index=index,
                   delta={"type": "text_delta", "text": piece})  # fmt: skip
        else:
            block: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{rng.getrandbits(40):x}",
                                     "name": rng.choice(NAMES), "input": {}}  # fmt: skip
            if rng.random() < 0.3:
                block["caller"] = {"type": "direct"}
            ev("content_block_start", index=index, content_block=block)
            text = "" if rng.random() < 0.1 else _arguments(rng)
            if rng.random() < 0.2:
                text = text.replace(":", ": ").replace(",", ", ")  # spaced, as Claude writes
            pieces = ([""] if rng.random() < 0.5 else []) + (
                [text] if rng.random() < 0.2 else _fragments(text, rng)
            )
            for piece in pieces:
                ev("content_block_delta", index=index,
                   delta={"type": "input_json_delta", "partial_json": piece})  # fmt: skip
        ev("content_block_stop", index=index)
    ev("message_delta", delta={"stop_reason": "tool_use", "stop_sequence": None},
       usage={"output_tokens": 9})  # fmt: skip
    ev("message_stop")
    return out


def _depart_anthropic(events: list[Event], rng: random.Random) -> None:
    """One departure from the plain Anthropic shape, in place."""
    starts = [d for k, d in events if k == "content_block_start"
              and d["content_block"]["type"] == "tool_use"]  # fmt: skip
    deltas = [d for k, d in events if k == "content_block_delta"
              and d["delta"]["type"] == "input_json_delta"]  # fmt: skip
    what = rng.randrange(13)
    if what == 0 and len(starts) > 1:
        starts[-1]["content_block"]["id"] = starts[0]["content_block"]["id"]
    elif what == 1 and starts:
        starts[0]["content_block"]["input"] = {"a": 1}  # input sent whole
    elif what == 2 and deltas:
        rng.choice(deltas)["delta"]["partial_json"] = "x"
    elif what == 3 and deltas:
        rng.choice(deltas)["index"] += 1
    elif what == 4:
        events.insert(rng.randrange(1, len(events)),
                      ("error", {"type": "error", "error": {"message": "overloaded"}}))  # fmt: skip
    elif what == 5 and starts:
        starts[0]["content_block"]["type"] = "server_tool_use"
    elif what == 6:
        events.insert(rng.randrange(1, len(events)), events[0])  # a second message_start
    elif what == 7:
        events.pop()  # no message_stop
    elif what == 8 and starts:
        starts[0]["index"] += 1
    elif what == 9:
        kind, data = rng.choice(events)
        data["type"] = "ping" if kind != "ping" else "pong"
    elif what == 10 and deltas:
        rng.choice(deltas)["delta"]["partial_json"] = 7
    elif what == 11:
        a, b = rng.sample(range(len(events)), 2)
        events[a], events[b] = events[b], events[a]
    elif starts:
        starts[0]["content_block"]["name"] = ""


def anthropic_body(rng: random.Random) -> bytes:
    body = frame(anthropic_events(rng))
    if rng.random() < 0.2:
        body = body[:-2]  # the last message_stop without its blank line, as recorded
    return body


def varied_anthropic_body(rng: random.Random) -> bytes:
    """A plain Anthropic body with none to three departures (some keep it plain)."""
    events = anthropic_events(rng)
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        _depart_anthropic(events, rng)
    return _reframe(frame(events), rng)


# -- Gemini ------------------------------------------------------------------------------------


def gemini_chunks(rng: random.Random) -> list[dict[str, Any]]:
    """A plain Gemini stream: optional thought and text parts, one to three whole function
    calls (with or without ids and thought signatures, one or several to a chunk, empty
    ``args`` too), the finish on the last chunk (with or without content)."""
    meta = {"modelVersion": "gemini-2.5-pro", "responseId": f"r{rng.getrandbits(40):x}"}

    def chunk(parts: list[dict[str, Any]] | None, finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {}
        if parts is not None:
            candidate["content"] = {"parts": parts, "role": "model"}
        if finish is not None:
            candidate["finishReason"] = finish
        if rng.random() < 0.5:
            candidate["index"] = 0
        out: dict[str, Any] = {"candidates": [candidate]}
        if rng.random() < 0.5:
            out["usageMetadata"] = {"promptTokenCount": 5, "totalTokenCount": 9}
        return {**out, **meta}

    out = []
    if rng.random() < 0.3:
        out.append(chunk([{"text": "Thinking.", "thought": True}]))
    if rng.random() < 0.4:
        out.append(chunk([{"text": rng.choice(("Let me look.", "日本語 🚀"))}]))
    parts = []
    for _ in range(rng.randrange(1, 4)):
        args = json.loads(_arguments(rng)) if rng.random() < 0.9 else {}
        fc: dict[str, Any] = {"name": rng.choice(NAMES), "args": args}
        if rng.random() < 0.3:
            fc["id"] = f"fc_{rng.getrandbits(40):x}"
        part: dict[str, Any] = {"functionCall": fc}
        if rng.random() < 0.3:
            part["thoughtSignature"] = "EqUC"
        parts.append(part)
    while parts:
        take = rng.randrange(1, len(parts) + 1)
        out.append(chunk(parts[:take]))
        parts = parts[take:]
    if rng.random() < 0.5:
        out.append(chunk([{"text": ""}], "STOP"))
    else:
        last = out[-1]["candidates"][0]
        last["finishReason"] = "STOP"
    return out


def gemini_frame(chunks: list[Any], crlf: bool) -> bytes:
    end = "\r\n\r\n" if crlf else "\n\n"
    return "".join(
        f"data: {json.dumps(c, ensure_ascii=False, separators=(',', ':'))}{end}" for c in chunks
    ).encode("utf-8", "backslashreplace")


def _depart_gemini(chunks: list[dict[str, Any]], rng: random.Random) -> None:
    """One departure from the plain Gemini shape, in place."""
    whole = chunks
    chunks = [c for c in chunks if len(c.get("candidates", ())) == 1]
    if not chunks:
        return
    calls = [p["functionCall"] for c in chunks
             for p in c["candidates"][0].get("content", {}).get("parts", [])
             if "functionCall" in p]  # fmt: skip
    what = rng.randrange(12)
    if what == 0 and calls:
        calls[0]["args"] = json.dumps(calls[0].get("args"))  # args as a string
    elif what == 1 and calls:
        calls[0].pop("args", None)
    elif what == 2 and len(calls) > 1:
        calls[0]["id"] = calls[1]["id"] = "same"
    elif what == 3 and calls:
        calls[0]["willContinue"] = True
    elif what == 4:
        whole.insert(0, {"error": {"code": 500, "message": "x"}})
    elif what == 5:
        chunks[0]["candidates"].append(chunks[0]["candidates"][0])
    elif what == 6:
        chunks[0]["candidates"][0]["finishReason"] = "STOP"
    elif what == 7:
        chunks[-1]["candidates"][0].pop("finishReason", None)
    elif what == 8 and calls:
        calls[0]["name"] = ""
    elif what == 9:
        chunks[-1]["candidates"][0].setdefault("content", {"parts": []})["parts"].append(
            {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
        )
    elif what == 10 and len(whole) > 1:
        a, b = rng.sample(range(len(whole)), 2)
        whole[a], whole[b] = whole[b], whole[a]
    elif calls:
        calls[0]["args"] = [1, 2]


def gemini_body(rng: random.Random) -> bytes:
    return gemini_frame(gemini_chunks(rng), crlf=rng.random() < 0.5)


def varied_gemini_body(rng: random.Random) -> bytes:
    """A plain Gemini body with none to three departures (some keep it plain)."""
    chunks = gemini_chunks(rng)
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        _depart_gemini(chunks, rng)
    body = gemini_frame(chunks, crlf=rng.random() < 0.5)
    if rng.random() < 0.05:
        body = body.replace(b"\r\n", b"\n", 1)  # a lone LF among CRLFs
    if rng.random() < 0.05:
        body = b"event: message\n" + body
    return _reframe(body, rng)
