# ruff: noqa: E501  (the templates are the scripts' own lines, written as users read them)
"""The reproduction script for one client, generated for that client's SDK: about ten lines
that point the client at ``toolcall-inspector serve``'s URL (the first argument) and print the
calls it hands over, one JSON line each.

Invariants: each script takes the base URL as its only argument, turns the client's retries
off, and prints ``{"id", "name", "arguments"}`` per call; no key is needed (any string). The
by-id and by-index readers are a plain Python loop over the SSE lines (what a hand-written
accumulator does); vercel-ai is a Node script.
"""

from __future__ import annotations

from typing import Final

PYTHON_CHAT: Final = """import json, sys
import openai  # pip install openai

client = openai.OpenAI(base_url=sys.argv[1] + "/v1", api_key="unused", max_retries=0)
stream = client.chat.completions.create(model={model!r}, messages=[{{"role": "user", "content": "hi"}}],
                                        tools={tools}, stream=True)
calls = {{}}
for chunk in stream:
    for d in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
        c = calls.setdefault(d.index, {{"id": "", "name": "", "arguments": ""}})
        c["id"] += d.id or ""; c["name"] += (d.function and d.function.name) or ""
        c["arguments"] += (d.function and d.function.arguments) or ""
print("\\n".join(json.dumps(c) for c in calls.values()))
"""

PYTHON_RESPONSES: Final = """import json, sys
import openai  # pip install openai

client = openai.OpenAI(base_url=sys.argv[1] + "/v1", api_key="unused", max_retries=0)
with client.responses.stream(model={model!r}, input="hi", tools={tools}) as stream:
    final = stream.get_final_response()
for item in final.output:
    if item.type == "function_call":
        print(json.dumps({{"id": item.call_id, "name": item.name, "arguments": item.arguments}}))
"""

ANTHROPIC: Final = """import json, sys
import anthropic  # pip install anthropic

client = anthropic.Anthropic(base_url=sys.argv[1], api_key="unused", max_retries=0)
with client.messages.stream(model={model!r}, max_tokens=1024, tools={tools},
                            messages=[{{"role": "user", "content": "hi"}}]) as stream:
    final = stream.get_final_message()
for block in final.content:
    if block.type == "tool_use":
        print(json.dumps({{"id": block.id, "name": block.name, "arguments": json.dumps(block.input)}}))
"""

GENAI: Final = """import json, sys
from google import genai  # pip install google-genai

client = genai.Client(api_key="unused", http_options={{"base_url": sys.argv[1]}})
for chunk in client.models.generate_content_stream(model={model!r}, contents="hi",
                                                   config={{"tools": {tools}}}):
    for call in chunk.function_calls or []:
        print(json.dumps({{"id": call.id, "name": call.name, "arguments": json.dumps(call.args)}}))
"""

HAND_WRITTEN: Final = """import json, sys
import httpx  # pip install httpx: a hand-written accumulator, keyed {key}

calls = {{}}
with httpx.stream("POST", sys.argv[1] + {path!r}, json={{"model": {model!r}, "stream": True}}) as r:
    for line in r.iter_lines():
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        for d in (json.loads(line[6:]).get("choices") or [{{}}])[0].get("delta", {{}}).get("tool_calls") or []:
            f = d.get("function") or {{}}
            c = calls.setdefault(d.get({field!r}), {{"id": d.get("id"), "name": "", "arguments": ""}})
            c["name"] += f.get("name") or ""; c["arguments"] += f.get("arguments") or ""
print("\\n".join(json.dumps(c) for c in calls.values()))
"""

NODE: Final = """// npm install ai @ai-sdk/openai ; node repro.mjs URL
import {{ streamText, jsonSchema, tool }} from "ai";
import {{ createOpenAI }} from "@ai-sdk/openai";

const openai = createOpenAI({{ baseURL: process.argv[2] + "/v1", apiKey: "unused" }});
const tools = {{ {node_tools} }};
const result = streamText({{ model: openai.chat({model!r}), prompt: "hi", tools, maxRetries: 0 }});
for await (const part of result.fullStream)
  if (part.type === "tool-call") console.log(JSON.stringify({{ id: part.toolCallId, name: part.toolName, arguments: JSON.stringify(part.input ?? part.args) }}));
"""


def script_for(
    client: str, model: str, tools: list[str], responses: bool, path: str
) -> tuple[str, str]:
    """(file name, text) of the script reproducing with ``client``; ``tools`` the tool names
    the stream calls (declared with an open schema), ``responses`` whether the stream is the
    Responses dialect (the OpenAI SDK's other API), ``path`` the recorded request path."""
    if client == "anthropic-sdk":
        spec = [{"name": n, "input_schema": {"type": "object"}} for n in tools]
        return "repro.py", ANTHROPIC.format(model=model, tools=spec)
    if client == "google-genai":
        declared = [{"function_declarations": [{"name": n} for n in tools]}]
        return "repro.py", GENAI.format(model=model, tools=declared)
    if client in ("by-id", "by-index"):
        field = "id" if client == "by-id" else "index"
        return "repro.py", HAND_WRITTEN.format(key=client, path=path, model=model, field=field)
    if client == "vercel-ai":
        node = ", ".join(
            f"{n}: tool({{ inputSchema: jsonSchema({{ type: 'object' }}) }})" for n in tools
        )
        return "repro.mjs", NODE.format(model=model, node_tools=node)
    if responses:
        flat = [{"type": "function", "name": n, "parameters": {"type": "object"}} for n in tools]
        return "repro.py", PYTHON_RESPONSES.format(model=model, tools=flat)
    spec = [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in tools
    ]
    return "repro.py", PYTHON_CHAT.format(model=model, tools=spec)
