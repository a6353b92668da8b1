"""The real client libraries, each run against a replayed stream: one :class:`Runner` per replica.

A runner module (``tests/clients/real/<library>.py``) defines a :class:`Runner` for each
replica it serves in a dict ``RUNNERS`` and adds one ``_add("<module>")`` line at the end of
this file; :data:`RUNNERS` maps replica name -> runner.

A runner's ``run(base_url, stream)``:
- sends one streaming request through the real library to ``base_url`` (a loopback server
  that answers any method and path with ``stream``'s exact bytes: :mod:`clients.serve`),
  declaring ``stream.tools()`` and asking for ``stream.model``; with the library's own
  retries off (the replay answers every request alike: a retry only costs time);
- consumes the stream as an agent would (the library's documented streaming API, to the end)
  and returns what the library handed over, :func:`outcome`: ``{"calls": [{"id", "name",
  "arguments"}], "error": None | {"type", "message"}}``; ``arguments`` exactly as handed over
  (for libraries that hand over parsed objects: their JSON, compact, keys in the object's
  order, as the replicas do), ``error`` the exception's class name and ``str()``;
- may simply let the library's exception propagate: the harness records it as the error.
  It is given a timeout by the harness (a stalled client is recorded as ``HarnessTimeout``).
Import the library inside ``run`` (once, cached by Python), and name it in ``imports``:
importing a runner module must stay cheap (litellm takes seconds).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from clients.streams import Stream

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm: no fetch at import

Outcome = dict[str, Any]
"""``{"calls": [{"id", "name", "arguments"}], "error": None | {"type", "message"}}``."""


@dataclass(frozen=True)
class Runner:
    """One replica's real library, as the harness runs it."""

    replica: str
    """The replica's name in ``inspector.core.clients.registry`` (``openai-python``)."""
    library: str
    """The distribution (``openai``, ``langchain-openai``) or npm package it runs."""
    dialects: frozenset[str]
    """The dialects it is run on (the replica's own)."""
    run: Callable[[str, Stream], Awaitable[Outcome]]
    """``run(base_url, stream)`` (see the module docstring)."""
    version: Callable[[], str] | None = None
    """The library's version; default: ``importlib.metadata.version(library)``."""
    concurrency: int = 8
    """How many streams it may run at once (1 for a library with global stream state)."""
    node: bool = False
    """Runs Node (``make verify-clients`` only; never in ``make test``)."""
    imports: tuple[str, ...] = ()
    """The modules ``run`` imports: the harness imports them before a run's clock starts
    (litellm's import takes seconds on a busy machine, and an import is no stalled client)."""

    def library_version(self) -> str:
        """The version written into the golden."""
        return self.version() if self.version else importlib.metadata.version(self.library)


def call(
    id: str | None,
    name: str | None,
    arguments: str,
    kind: str = "function",
    item_type: str | None = None,
    object: bool = False,
) -> dict[str, Any]:
    """One handed-over call, in the golden's key order: ``kind`` and ``item_type`` for an
    item that is not a plain function call, ``object`` when the library handed its
    arguments over as an object where its API types them as a string."""
    out: dict[str, Any] = {"id": id, "name": name, "arguments": arguments}
    if kind != "function" or item_type is not None:
        out["kind"], out["item_type"] = kind, item_type
    if object:
        out["object"] = True
    return out


def as_json(value: Any) -> str:
    """A parsed argument object as the replicas write it: compact JSON, keys in order."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def raised(exc: BaseException) -> dict[str, str]:
    """The golden's ``error`` for ``exc``: its class name and ``str()``."""
    return {"type": type(exc).__name__, "message": str(exc)}


def outcome(
    calls: Iterable[dict[str, Any]] = (),
    error: BaseException | dict[str, str] | None = None,
    after: int | None = None,
) -> Outcome:
    """A run's result: the calls handed over and/or the error (an exception, or its
    ``{"type", "message"}``), ``after`` the calls handed over before it (default: all); the
    provider's own items (``kind`` hosted) go under ``hosted``, ``after`` counted without
    them."""
    every = list(calls)
    if after is not None:
        after = sum(1 for c in every[:after] if c.get("kind") != "hosted")
    out: Outcome = {
        "calls": [c for c in every if c.get("kind") != "hosted"],
        "error": error if error is None or isinstance(error, dict) else raised(error),
    }
    if out["error"] is not None and out["calls"]:
        out["error_after"] = len(out["calls"]) if after is None else after
    hosted = [c for c in every if c.get("kind") == "hosted"]
    if hosted:
        out["hosted"] = hosted
    return out


RUNNERS: dict[str, Runner] = {}
"""Replica name -> runner; each runner module adds its own below (one line each)."""


def _add(module: str) -> None:
    """Register ``clients.real.<module>.RUNNERS`` (imported here, after the names it uses)."""
    RUNNERS.update(importlib.import_module(f"clients.real.{module}").RUNNERS)


# One line per runner module (tests/clients/real/<module>.py defines RUNNERS), e.g.
# _add("openai_python")
_add("handwritten")
_add("openai_python")
_add("litellm_runner")
_add("langchain_runner")
_add("anthropic_runner")
_add("genai_runner")
_add("vercel_ai")
