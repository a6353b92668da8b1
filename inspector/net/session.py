"""A live session: stream a request into a capture and an Analysis, under seed 1's retry policy.

Flow: attempt 1 streams (every chunk recorded, then fed to :attr:`LiveSession.analysis`); when
it ends, the analysis judges it with :func:`inspector.core.verdicts.attempts.plan`. If a native
call is invalid, retry is on and the attempt budget has time left, ONE streaming retry of the same
request follows (capture: an ``attempt`` record with the seed's reason and
``retry_streaming``). Attempt records always come from the core (``analysis.records``): a retry
that is still invalid is ``accepted_degraded`` there, with its raw arguments.

Decisions and invariants:
- The attempt budget (``LoopSettings.attempt_budget``) starts with attempt 1 and only gates and
  bounds the retry: no retry when it is spent, and a retry that outlives it ends with
  :class:`~inspector.net.errors.BudgetExhausted`. Attempt 1 itself is bounded only by the
  connect/read timeouts, so a slow but live stream is never cut for the inspector's sake.
- Transport and provider errors are not retried (the seed retries invalid calls only): the
  session ends ``failed`` with :attr:`LiveSession.error` set; :meth:`run` does not raise it.
- Cancellation: :meth:`cancel` ends the session ``cancelled`` (the capture gets an ``end``
  record ``cancelled``) and :meth:`run` returns normally. If the task awaiting :meth:`run` is
  itself cancelled, the session is cancelled the same way and the CancelledError propagates.
- :meth:`run` creates one task, keeps a strong reference to it and has always awaited it when
  it returns or raises; a client the session created is closed, the capture is closed.
- An exception that is not a LiveError (a bug, e.g. in ``on_update``) ends the session
  ``failed`` with the capture closed (its ``end`` record says ``internal error``) and
  propagates out of :meth:`run`.
- The key is held in memory only: it is refused in the request spec and the capture meta, and
  the capture writer redacts the header that carries it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import KW_ONLY, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import unquote

import httpx
import orjson

from inspector.core.analysis.session import VALIDATION_MODES, Analysis, Settings
from inspector.core.base.errors import InspectorError
from inspector.core.capture.reader import (
    Attempt,
    CaptureError,
    CaptureWriter,
    redact_url,
)
from inspector.core.requests.scenarios import Profile, RequestSpec, Scenario, build_request
from inspector.core.verdicts import attempts as core_attempts
from inspector.core.verdicts.attempts import AttemptRecord
from inspector.core.verdicts.tools import ToolRegistry

from .client import AttemptOutcome, MirroredWriter, stream_attempt
from .errors import LiveError, MissingKey
from .runonce import RunOnce

if TYPE_CHECKING:
    from .demo import DemoProvider

KEYRING_SERVICE: Final = "toolcall-inspector"
STATES: Final = ("idle", "streaming", "retrying", "done", "failed", "cancelled")


@dataclass(frozen=True)
class LoopSettings:
    """Seed 1's LoopConfig, as far as a live session needs it.

    ``tool_argument_validation`` and ``stream_transport`` are keyword-only (as in the seed), so
    positional construction of the other fields is unaffected.
    """

    retry: bool = True
    """Retry an invalid streamed response once (seed 1)."""
    attempt_budget: float = 120.0
    """Seconds from attempt 1's request within which the retry must start and finish."""
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    """Seconds without a byte before an attempt ends with ReadTimeout."""
    _: KW_ONLY
    tool_argument_validation: str = "structural"
    """off | structural | strict (seed 1's modes)."""
    stream_transport: bool | None = None
    """None: legacy automatic selection. The inspector always streams, so False is refused."""

    def __post_init__(self) -> None:
        if self.tool_argument_validation not in VALIDATION_MODES:
            raise ValueError(f"tool_argument_validation must be one of {VALIDATION_MODES}")
        if self.stream_transport is False:
            raise ValueError("stream_transport=False is not supported: the inspector streams")
        if self.attempt_budget < 0 or self.connect_timeout <= 0 or self.read_timeout <= 0:
            raise ValueError("the budget must be >= 0 and the timeouts > 0")


def require_key(profile: Profile) -> str | None:
    """The profile's key, or None when it needs none; MissingKey when it needs one and none is
    set (checked before anything is sent or written)."""
    key = resolve_key(profile)
    if key is None and profile.key_env is not None:
        raise MissingKey(profile.key_env, profile.name)
    return key


def resolve_key(profile: Profile) -> str | None:
    """The profile's key: its environment variable, else the OS keyring; None when absent.

    Profiles without ``key_env`` need no key (demo, local servers) and never touch the keyring.
    Any keyring failure (no backend, locked, D-Bus trouble) counts as "no key".
    """
    if profile.key_env is None:
        return None
    value = os.environ.get(profile.key_env, "").strip()
    if value:
        return value
    try:
        import keyring

        stored = keyring.get_password(KEYRING_SERVICE, profile.name)
    except Exception:
        return None
    if not isinstance(stored, str):
        return None
    return stored.strip() or None


class LiveSession:
    """One live session: at most two physical requests, one capture, one Analysis."""

    def __init__(
        self,
        spec: RequestSpec,
        *,
        dialect: str,
        settings: LoopSettings,
        capture_path: str | Path | None,
        key: str | None,
        analysis: Analysis | None = None,
        on_update: Callable[[], None] | None = None,
        client: httpx.AsyncClient | None = None,
        clock: Callable[[], float] = time.monotonic,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        self.spec, self.settings = spec, settings
        self.capture_path = Path(capture_path) if capture_path is not None else None
        self.meta = capture_meta(spec, dialect, settings, key, meta)
        self._key = key
        self._on_update, self._client, self._clock = on_update, client, clock
        validation = settings.tool_argument_validation
        if analysis is None:
            analysis = Analysis(Settings(dialect=dialect, validation=validation))
        elif analysis.attempts:
            raise ValueError("a live session needs an Analysis without attempts")
        else:
            analysis.apply(replace(analysis.settings, dialect=dialect, validation=validation))
        if analysis.user_tools is None and spec.body.get("tools"):
            analysis.user_tools = ToolRegistry.from_definitions(spec.body)
        self.analysis: Analysis = analysis
        """Fed live, chunk by chunk; judged with the session's validation mode."""
        self.outcomes: list[AttemptOutcome] = []
        """How each physical request went (status, bytes, duration, error), in order."""
        self.state: str = "idle"
        self.error: InspectorError | None = None
        """Why the session failed: a LiveError, or a CaptureError when the capture cannot be
        written. None unless ``state == "failed"``."""
        self._once = RunOnce("toolcall-inspector live session")
        self._cancel_requested = False

    @property
    def records(self) -> list[AttemptRecord]:
        """Seed 1 attempt records, one per attempt (from the core)."""
        return self.analysis.records

    def summary_lines(self) -> list[str]:
        """One line per attempt: transport facts, then the seed 1 outcome."""
        lines = []
        for rec, out in zip(self.records, self.outcomes, strict=False):
            status = f"HTTP {out.status}" if out.status is not None else "no response"
            line = (f"attempt {rec.attempt}: {status}, {out.bytes} bytes in "
                    f"{out.duration:.2f} s ({out.ended_by}) → {rec.outcome}")  # fmt: skip
            if rec.reason:
                line += f", reason {rec.reason}"
            if rec.recovery_action and rec.outcome == core_attempts.RETRIED:
                line += f", recovery {rec.recovery_action}"
            if out.error is not None:
                line += f": {out.error}"
            lines.append(line)
        return lines

    def _notify(self) -> None:
        if self._on_update is not None:
            self._on_update()

    def cancel(self) -> None:
        """Cancel the session (before or while it runs); does nothing once it has finished."""
        self._cancel_requested = True
        self._once.cancel()

    async def run(self) -> None:
        """Run the session to its end (see the module docstring for errors and cancelling)."""
        await self._once.run(self._run())

    async def _run(self) -> None:
        writer: CaptureWriter | None = None
        try:
            if self._cancel_requested:
                raise asyncio.CancelledError
            self.state = "streaming"
            self._notify()
            if self.capture_path is not None:
                writer = CaptureWriter(self.capture_path, meta=self.meta)
            async with contextlib.AsyncExitStack() as stack:
                client = await open_client(stack, self._client, self.spec.url)
                await self._session(client, writer)
            self.state = "done"
        except InspectorError as exc:
            self.error, self.state = exc, "failed"
        except OSError as exc:  # the capture could not be written (disk full, ...)
            self.error, self.state = capture_write_error(exc, self.capture_path), "failed"
        except asyncio.CancelledError:
            self.state = "cancelled"
            raise
        finally:
            if self.state in ("streaming", "retrying"):
                self.state = "failed"  # an unexpected exception is on its way out
            if writer is not None:
                writer.close()
            self._notify()

    async def _session(self, client: httpx.AsyncClient, writer: CaptureWriter | None) -> None:
        started = self._clock()
        await self._attempt(client, writer, 1, None, None)
        first = self.analysis.records[-1]
        remaining = self.settings.attempt_budget - (self._clock() - started)
        if (
            not self.settings.retry
            or first.reason is None
            or not core_attempts.should_retry(first, retries_done=0, remaining_budget=remaining)
        ):
            return
        if writer is not None:
            writer.attempt(2, first.reason, core_attempts.RETRY_STREAMING)
        self.state = "retrying"
        self._notify()
        await self._attempt(client, writer, 2, first.reason, self._clock() + remaining)

    async def _attempt(self, client: httpx.AsyncClient, writer: CaptureWriter | None, n: int,
                       reason: str | None, deadline: float | None) -> None:  # fmt: skip
        source = Attempt(
            n, reason=reason, recovery_action=core_attempts.RETRY_STREAMING if reason else None
        )
        self.analysis.begin_attempt(source)

        def sink(data: bytes, t: float) -> None:
            self.analysis.feed(data, t)
            self._notify()

        try:
            outcome = await stream_attempt(
                client, self.spec, self._key, attempt=n, writer=MirroredWriter(writer, source),
                sink=sink, clock=self._clock, read_timeout=self.settings.read_timeout,
                connect_timeout=self.settings.connect_timeout, deadline=deadline,
            )  # fmt: skip
        except LiveError as exc:
            if isinstance(exc.outcome, AttemptOutcome):
                self.outcomes.append(exc.outcome)
            raise
        finally:
            self.analysis.end()
        self.outcomes.append(outcome)
        self._notify()


def capture_meta(
    spec: RequestSpec,
    dialect: str,
    settings: LoopSettings,
    key: str | None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A live capture's header meta; ValueError if ``key`` shows anywhere in the request spec
    or the meta (keys never reach a capture)."""
    meta: dict[str, Any] = {
        "source": "live",
        "dialect": dialect,
        "model": _model(spec),
        "url": redact_url(spec.url),
        "validation": settings.tool_argument_validation,
        **(extra or {}),
    }
    if (
        key
        and key
        in orjson.dumps([spec.url, dict(spec.headers), spec.body, meta], default=str).decode()
    ):
        raise ValueError("the key must not appear in the request spec or the capture meta")
    return meta


async def open_client(
    stack: contextlib.AsyncExitStack, client: httpx.AsyncClient | None, url: str
) -> httpx.AsyncClient:
    """``client``, or a new one closed with ``stack``: a loopback server (the demo) is never
    reached through a proxy from the environment."""
    if client is not None:
        return client
    local = httpx.URL(url).host in ("127.0.0.1", "localhost", "::1")
    return await stack.enter_async_context(httpx.AsyncClient(trust_env=not local))


def capture_write_error(exc: OSError, path: Path | None) -> CaptureError:
    """The capture could not be written (disk full, …): a one-line CaptureError."""
    return CaptureError(f"cannot write the capture: {exc.strerror or exc}", path=str(path))


def _model(spec: RequestSpec) -> str | None:
    model = spec.body.get("model")
    if isinstance(model, str):
        return model
    path = spec.url.split("?")[0]
    if "/models/" in path:
        return unquote(path.rsplit("/models/", 1)[1].split(":")[0])
    return None


@asynccontextmanager
async def headless_request(
    profile: Profile,
    scenario: Scenario,
    *,
    model: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> AsyncIterator[tuple[RequestSpec, str | None, Profile, dict[str, Any]]]:
    """What a headless run needs: (request, key, resolved profile, capture meta).

    Raises MissingKey before anything is sent or written when the profile needs a key and none
    is found. A demo profile starts the embedded demo provider on a free loopback port for the
    duration of the ``async with`` block and stops it after.
    """
    key = require_key(profile)
    demo: DemoProvider | None = None
    try:
        if profile.is_demo:
            from .demo import DemoProvider  # lazy: only the demo profiles need the server

            demo = DemoProvider("127.0.0.1", port=0)
            profile = profile.resolved(await demo.start())
        if headers:
            profile = replace(profile, headers={**profile.headers, **headers})
        meta = {"profile": profile.name, "scenario": scenario.name, "title": scenario.title}
        yield build_request(profile, scenario, model=model), key, profile, meta
    finally:
        if demo is not None:
            await demo.stop()


async def record_session(
    profile: Profile,
    scenario: Scenario,
    out: str | Path | None,
    settings: LoopSettings,
    *,
    model: str | None = None,
    headers: Mapping[str, str] | None = None,
    on_attempt: Callable[[str], None] | None = None,
) -> LiveSession:
    """Run ``scenario`` against ``profile`` headlessly (the ``record`` command's engine).

    A demo profile starts the embedded demo provider on a free loopback port for the session
    and stops it after. Raises MissingKey before anything is sent or written when the profile
    needs a key and none is found; every later problem is in ``session.error``.
    """
    async with headless_request(profile, scenario, model=model, headers=headers) as ready:
        spec, key, profile, meta = ready
        session = LiveSession(spec, dialect=profile.dialect, settings=settings,
                              capture_path=out, key=key, meta=meta)  # fmt: skip
        await session.run()
    if on_attempt is not None:
        for line in session.summary_lines():
            on_attempt(line)
    return session
