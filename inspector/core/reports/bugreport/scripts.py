"""The reproduction script for one client, generated for that client's SDK: about ten lines
that point the client at ``toolcall-inspector serve``'s URL (the first argument) and print the
calls it hands over, one JSON line each.

Invariants: each script takes the base URL as its only argument, turns the client's retries
off, and prints ``{"id", "name", "arguments"}`` per call; no key is needed (any string). The
by-id and by-index readers are a plain Python loop over the SSE lines (what a hand-written
accumulator does); vercel-ai is a Node script. The templates live in ``resources/repro/``.
"""

from __future__ import annotations

from typing import Final

from inspector.core.base.resources import resource

TEMPLATES: Final = {
    "chat": "openai-chat.py",
    "responses": "openai-responses.py",
    "anthropic-sdk": "anthropic-sdk.py",
    "genai": "google-genai.py",
    "hand-written": "hand-written.py",
    "node": "vercel-ai.mjs",
}
"""Each script's template, a file under ``resources/repro/`` (``NAME.template``, with
``str.format`` fields): the scripts are data the user runs, not code of the core."""


def _template(kind: str) -> str:
    return resource("repro", TEMPLATES[kind] + ".template").read_text(encoding="utf-8")


def script_for(
    client: str, model: str, tools: list[str], responses: bool, path: str
) -> tuple[str, str]:
    """(file name, text) of the script reproducing with ``client``; ``tools`` the tool names
    the stream calls (declared with an open schema), ``responses`` whether the stream is the
    Responses dialect (the OpenAI SDK's other API), ``path`` the recorded request path."""
    if client == "anthropic-sdk":
        spec = [{"name": n, "input_schema": {"type": "object"}} for n in tools]
        return "repro.py", _template("anthropic-sdk").format(model=model, tools=spec)
    if client == "google-genai":
        declared = [{"function_declarations": [{"name": n} for n in tools]}]
        return "repro.py", _template("genai").format(model=model, tools=declared)
    if client in ("by-id", "by-index"):
        field = "id" if client == "by-id" else "index"
        return "repro.py", _template("hand-written").format(
            key=client, path=path, model=model, field=field
        )
    if client == "vercel-ai":
        node = ", ".join(
            f"{n}: tool({{ inputSchema: jsonSchema({{ type: 'object' }}) }})" for n in tools
        )
        return "repro.mjs", _template("node").format(model=model, node_tools=node)
    if responses:
        flat = [{"type": "function", "name": n, "parameters": {"type": "object"}} for n in tools]
        return "repro.py", _template("responses").format(model=model, tools=flat)
    spec = [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in tools
    ]
    return "repro.py", _template("chat").format(model=model, tools=spec)
