"""The Responses and Anthropic Messages streams of ``bench/analyze.py``: generated, plain
(``inspector/core/clients/plain/``), a few MB each, byte for byte in the shape the real APIs
send (``event:`` then ``data:``), with the same arguments as bench/ingest.py's chat stream
(:func:`ingest.make_arguments`) in 8-character fragments."""

from __future__ import annotations

import random

import orjson
from ingest import FRAGMENT, TOOL_NAMES, make_arguments


def _event(kind: str, data: dict) -> bytes:  # type: ignore[type-arg]
    return b"event: " + kind.encode() + b"\ndata: " + orjson.dumps({"type": kind, **data}) + b"\n\n"


def _calls(n_calls: int, call_bytes: int, seed: int) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    return [
        (
            f"call_{rng.getrandbits(96):024x}"[:29],
            TOOL_NAMES[i % len(TOOL_NAMES)],
            make_arguments(i, call_bytes, rng),
        )
        for i in range(n_calls)
    ]


def responses_body(n_calls: int, call_bytes: int, seed: int = 1234) -> bytes:
    """A Responses stream of ``n_calls`` function calls (openai-python's and the AI SDK's
    reading: created, in_progress, each call added / argument deltas / done, completed)."""
    out: list[bytes] = []
    seq = iter(range(10**9))
    response = {"id": "resp_bench", "object": "response", "status": "in_progress",
                "model": "gpt-5", "output": []}  # fmt: skip
    out.append(_event("response.created", {"sequence_number": next(seq), "response": response}))
    out.append(_event("response.in_progress", {"sequence_number": next(seq), "response": response}))
    done = []
    for i, (call_id, name, args) in enumerate(_calls(n_calls, call_bytes, seed)):
        item = {"id": f"fc_{i:040d}", "type": "function_call", "status": "in_progress",
                "arguments": "", "call_id": call_id, "name": name}  # fmt: skip
        at = {"output_index": i}
        out.append(_event("response.output_item.added",
                          {"sequence_number": next(seq), **at, "item": item}))  # fmt: skip
        for k in range(0, len(args), FRAGMENT):
            delta = {"sequence_number": next(seq), "item_id": item["id"], **at,
                     "delta": args[k : k + FRAGMENT], "obfuscation": "Xy12"}  # fmt: skip
            out.append(_event("response.function_call_arguments.delta", delta))
        out.append(_event("response.function_call_arguments.done",
                          {"sequence_number": next(seq), "item_id": item["id"], **at,
                           "arguments": args}))  # fmt: skip
        item = {**item, "status": "completed", "arguments": args}
        out.append(_event("response.output_item.done",
                          {"sequence_number": next(seq), **at, "item": item}))  # fmt: skip
        done.append(item)
    final = {**response, "status": "completed", "output": done}
    out.append(_event("response.completed", {"sequence_number": next(seq), "response": final}))
    return b"".join(out)


def anthropic_body(n_calls: int, call_bytes: int, seed: int = 1234) -> bytes:
    """An Anthropic Messages stream of ``n_calls`` tool_use blocks (the anthropic SDK's and the
    AI SDK's reading: message_start, each block start / input_json_delta / stop, message_delta,
    message_stop)."""
    message = {"id": "msg_bench", "type": "message", "role": "assistant", "model": "claude",
               "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 812, "output_tokens": 1}}  # fmt: skip
    out = [_event("message_start", {"message": message}), _event("ping", {})]
    for i, (call_id, name, args) in enumerate(_calls(n_calls, call_bytes, seed)):
        block = {"type": "tool_use", "id": "toolu_" + call_id[5:], "name": name, "input": {}}
        out.append(_event("content_block_start", {"index": i, "content_block": block}))
        for k in range(0, len(args), FRAGMENT):
            delta = {"type": "input_json_delta", "partial_json": args[k : k + FRAGMENT]}
            out.append(_event("content_block_delta", {"index": i, "delta": delta}))
        out.append(_event("content_block_stop", {"index": i}))
    out.append(_event("message_delta", {"delta": {"stop_reason": "tool_use",
                                                  "stop_sequence": None},
                                        "usage": {"output_tokens": 5000}}))  # fmt: skip
    out.append(_event("message_stop", {}))
    return b"".join(out)
