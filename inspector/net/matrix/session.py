"""One matrix session: the request for a target x scenario, run on the session runner into
its capture, a 429 with ``retry-after`` waited out, and the result judged as a run.

Invariants:
- Usage is asked for where the provider says how (its ``stream_usage`` body fields, merged
  under what the profile's options already set); no dialect name is branched on here.
- A 429 whose ``retry-after`` is at most :data:`MAX_WAIT` seconds is waited out and the
  session run again (a new capture, ``-429-N`` before the extension), at most
  :data:`MAX_WAITS` times; each wait is recorded in the run's ``rate_limits``. Anything else
  ends the run: an error is a run with its error class, never a blank.
- Judging runs in steps (:func:`judge_in_steps`): one replica or one quirk scan between two
  turns of the loop, so 16 sessions judging at once never stall a window's loop for long.
- An exception that is no InspectorError (a bug) still ends as a run (``error``, class
  ``InternalError``), so one broken session never loses the matrix.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx
import orjson

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.redaction import mask_secrets
from inspector.core.clients.judge import judge_attempt
from inspector.core.clients.registry import REPLICAS
from inspector.core.matrix.cells import CellRun, ErrorInfo, RateLimit
from inspector.core.matrix.judge import judge_run
from inspector.core.matrix.spec import MatrixSpec, Target
from inspector.core.providers import REGISTRY
from inspector.core.requests.scenarios import Profile, RequestSpec, Scenario, build_request
from inspector.core.verdicts.tools import ToolRegistry

from ..errors import ProviderHTTPError
from ..policy import LoopSettings
from ..runner import SessionRunner
from ..runstate import RunState

MAX_WAIT: Final = 30.0
"""The longest ``retry-after`` (seconds) a matrix waits out; a longer one ends the run."""
MAX_WAITS: Final = 2
"""How many 429s one run waits out before it ends as an error."""


class MatrixSession(SessionRunner):
    """A plain session under the name asyncio shows for a matrix's sessions."""

    task_name = "toolcall-inspector matrix session"

    async def finishing(self) -> None:
        """Close the capture in a worker thread: its fsync (a few ms, far more on a busy disk)
        stays off the loop that streams the other sessions. Nothing is written after this
        hook; the runner's own close then does nothing. A cancelled session closes as usual."""
        writer = self.writer
        if writer is not None and self.state != RunState.CANCELLED:
            await asyncio.to_thread(writer.close)


@dataclass(frozen=True)
class Job:
    """One run of one cell, ready to send."""

    target: Target
    scenario: Scenario
    run: int
    profile: Profile
    """The target's profile, resolved (the demo's URL in place of ``demo``)."""
    key: str | None


def request_for(profile: Profile, scenario: Scenario) -> RequestSpec:
    """The scenario's streaming request in the profile's dialect, asking for usage in the
    stream where the provider needs it."""
    spec = build_request(profile, scenario)
    usage = getattr(REGISTRY.get(profile.dialect), "stream_usage", None) or {}
    for key, value in usage.items():
        spec.body.setdefault(key, copy.deepcopy(value))
    return spec


def capture_name(job: Job, wait: int = 0) -> str:
    """The capture's path in the matrix folder: ``captures/<target>__<scenario>__<run>.jsonl``."""
    tail = f"-429-{wait}" if wait else ""
    return f"captures/{slug(job.target.name)}__{slug(job.scenario.name)}__{job.run}{tail}.jsonl"


def slug(text: str) -> str:
    """``text`` as a file-name part: ASCII letters, digits, ``-``, ``_`` and ``.``; a name
    that had to change (``a/b``, ``.``, ``..``, ``café``) gets 8 hex digits of its SHA-256
    too, so two names never share a file (``a/b`` gives ``a-b-1b2c…``, ``a-b`` stays)."""
    out = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "-" for c in text)
    out = out.strip("-.") or "x"
    if out != text:
        out += "-" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return out


@dataclass
class Streamed:
    """A job's sessions run (the 429s waited out), before judging: its last session, or None
    when none could start, with the error, the capture's name and how long it took."""

    job: Job
    session: SessionRunner | None
    error: ErrorInfo | None
    name: str
    duration: float
    waits: list[RateLimit]


async def run_job(
    job: Job, spec: MatrixSpec, out_dir: Path, client: httpx.AsyncClient | None = None
) -> CellRun:
    """Run ``job`` to its judged run (see the module docstring)."""
    return await judge_job(await stream_job(job, spec, out_dir, client))


async def stream_job(
    job: Job, spec: MatrixSpec, out_dir: Path, client: httpx.AsyncClient | None = None
) -> Streamed:
    """Run ``job``'s session (again after a 429 worth waiting out) to its end, its capture
    closed; judging it is :func:`judge_job`'s (the runner does that outside the job's slot)."""
    settings = LoopSettings(
        retry=spec.retry, attempt_budget=spec.timeouts.session,
        connect_timeout=spec.timeouts.connect, read_timeout=spec.timeouts.read,
        tool_argument_validation=spec.validation,
    )  # fmt: skip
    waits: list[RateLimit] = []
    while True:
        name = capture_name(job, len(waits))
        started = time.monotonic()
        session, error = await _session(job, settings, out_dir / name, client)
        duration = time.monotonic() - started
        wait = _retry_after(session.error if session else None)
        if wait is not None and len(waits) < MAX_WAITS:
            header = session.error.retry_after if session else None  # type: ignore[union-attr]
            await asyncio.sleep(wait)
            waits.append(RateLimit(header, wait))
            continue
        return Streamed(job, session, error, name, duration, waits)


async def judge_job(streamed: Streamed) -> CellRun:
    """The run of a streamed job, judged in steps (:func:`judge_in_steps`)."""
    job, session, error = streamed.job, streamed.session, streamed.error
    if session is None:
        return CellRun(job.run, "error", capture=None, error=error, duration=streamed.duration,
                       rate_limits=tuple(streamed.waits))  # fmt: skip
    await judge_in_steps(session.analysis)
    provider = REGISTRY.get(job.profile.dialect)
    return judge_run(session.analysis, job.scenario.expect, run=job.run,
                     capture=streamed.name if session.writer is not None else None,
                     duration=streamed.duration, error=error, rate_limits=streamed.waits,
                     asked=getattr(provider, "stream_usage_shows", ()))  # fmt: skip


async def _session(
    job: Job, settings: LoopSettings, path: Path, client: httpx.AsyncClient | None
) -> tuple[SessionRunner | None, ErrorInfo | None]:
    meta: dict[str, Any] = {"profile": job.profile.name, "scenario": job.scenario.name,
                            "title": job.scenario.title, "matrix_target": job.target.name,
                            "matrix_run": job.run}  # fmt: skip
    try:
        request = request_for(job.profile, job.scenario)
        analysis = Analysis(
            Settings(dialect=job.profile.dialect, validation=settings.tool_argument_validation),
            providers=REGISTRY,
        )
        analysis.user_tools = tools_of(request)
        session = MatrixSession(request, dialect=job.profile.dialect, settings=settings,
                                capture_path=path, key=job.key, meta=meta,
                                analysis=analysis, client=client)  # fmt: skip
        path.parent.mkdir(parents=True, exist_ok=True)
        await session.run()
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a bad request spec, a bug: still a run with its class
        cls = type(exc).__name__ if isinstance(exc, ValueError) else "InternalError"
        text = mask_secrets(f"{type(exc).__name__}: {exc}", _keys(job))
        return None, ErrorInfo(cls, (text.splitlines() or [""])[0])
    error = session.error
    text = mask_secrets(str(error), _keys(job)) if error else ""
    info = ErrorInfo(type(error).__name__, (text.splitlines() or [""])[0]) if error else None
    return session, info


def _keys(job: Job) -> tuple[str, ...]:
    return (job.key,) if job.key else ()


_REGISTRIES: dict[bytes, ToolRegistry] = {}


def tools_of(request: RequestSpec) -> ToolRegistry | None:
    """The request's tools as a registry, built once per tool list (checking every schema
    costs ~10 ms a request: a matrix sends the same tools again and again). A registry only
    caches its validators, so one serves every session of the loop's thread."""
    tools = request.body.get("tools")
    if not tools:
        return None
    key = orjson.dumps(tools, option=orjson.OPT_SORT_KEYS)
    registry = _REGISTRIES.get(key)
    if registry is None:
        if len(_REGISTRIES) >= 256:
            _REGISTRIES.clear()
        registry = _REGISTRIES[key] = ToolRegistry.from_definitions(request.body, REGISTRY)
    return registry


async def judge_in_steps(analysis: Analysis) -> None:
    """Work out what judging the session needs, one piece at a time, yielding to the loop in
    between: each ended attempt's quirk scan, then each client replica on it (both cached in
    the core, so :func:`judge_run` then reads them). A window's loop streaming other sessions
    never waits for a whole session's judging at once."""
    for view in analysis.attempts:
        if not view.state.ended:
            continue
        view.quirks  # noqa: B018 - the scan runs (and is cached) on first access
        await asyncio.sleep(0)
        for replica in REPLICAS:
            judge_attempt(view, replica)
            await asyncio.sleep(0)


def _retry_after(error: Exception | None) -> float | None:
    """Seconds to wait for a 429 that says how long (None: not such a 429)."""
    if not isinstance(error, ProviderHTTPError) or error.status != 429:
        return None
    try:
        seconds = float(error.retry_after or "")
    except ValueError:
        return None
    return seconds if 0 <= seconds <= MAX_WAIT else None
