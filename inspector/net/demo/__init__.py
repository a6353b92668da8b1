"""The embedded demo provider: a loopback HTTP server that streams like four real providers.

It speaks OpenAI Chat Completions, OpenAI Responses, Anthropic Messages and Gemini
``streamGenerateContent`` (SSE), and plays back the catalogued quirks and faults, so the
inspector shows something real with no API key and agents can be pointed at a provider with
known quirks. A client picks a scenario with the request's ``model``.

Modules: :mod:`.server` (aiohttp app, :class:`DemoProvider`), :mod:`.run` (the blocking CLI
entry), :mod:`.scenarios` (the table), :mod:`.planner` (what a response says),
:mod:`.conversation` (reading requests), :mod:`.arguments` (schema-driven arguments),
:mod:`.faults` (error bodies, fault injection), one renderer per dialect
(:mod:`.openai_chat`, :mod:`.responses`, :mod:`.anthropic`, :mod:`.gemini`) and :mod:`.wire`
(frames, SSE framing, ids).

Invariants: no Qt anywhere in this package (the GUI runs :class:`DemoProvider` on its qasync
loop in-process); rendering is pure and deterministic, the server does all the I/O.
"""

from .run import run_demo_server
from .scenarios import SCENARIOS, Scenario
from .server import DemoProvider

__all__ = ["SCENARIOS", "DemoProvider", "Scenario", "run_demo_server"]
