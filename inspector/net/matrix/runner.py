"""The matrix runner: every session of a spec, concurrently in one asyncio loop, bounded
over the whole matrix and per target, each judged into its cell as it finishes.

Flow: :meth:`MatrixRunner.run` lists the jobs (cell x run), marks every cell of a target
without a key ``skipped`` (with the reason, nothing sent), starts the embedded demo provider
when a target points at it, and runs the jobs on ``concurrency`` workers, each taking the
next job from a :class:`~.schedule.Schedule` (longest expected first, within each target's
own bound) and streaming it; its judging then runs beside the next one's streaming. A
judged run goes into its cell at once; a cell is
announced when its first session starts (``on_cell_started``) and when its last run is in
(``on_cell_finished``), so a view can fill live.

Invariants:
- Cancel (:meth:`MatrixRunner.cancel`) stops what runs and keeps every finished run; an
  unfinished cell stays ``pending``. :meth:`run` returns normally after a cancel.
- A rerun (:meth:`rerun`: a cell, a row, :meth:`failed_cells`) replaces those cells' runs
  and leaves every other cell as it was; run numbers restart at 1.
- Every session is recorded as a capture under ``out_dir/captures`` (its path in the run);
  ``matrix.json`` is written by :meth:`save`, never half (a temporary file, then a rename).
- The result's replicas are the registry's, in display order (the client column group).
- Sessions share one pooled client per kind of target (loopback or not), made on the loop
  from a TLS context built once per process in a worker thread, after the HTTP transport's
  modules were imported there (:func:`prepare_transport`): nothing per session, and no
  certificate bundle or first import of ~100 modules on the loop a window is drawn from.
- A run starts with ``gc.freeze()``: what exists then (the app, its modules, a window) is
  long-lived, and a full collection over it held a window's loop ~50 ms (~190 ms under load)
  mid-matrix; the cycle collector then scans only what the matrix made. What the matrix makes
  is never frozen (a live session's network side makes cyclic garbage: it is collected).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import ssl
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

from inspector.core.clients.registry import REPLICAS
from inspector.core.matrix.cells import Cell, CellRun
from inspector.core.matrix.folder import write_file
from inspector.core.matrix.idle import idle_reason
from inspector.core.matrix.result import FILE_NAME, MatrixResult
from inspector.core.matrix.spec import MatrixSpec, Target

from ..session import resolve_key
from .schedule import Schedule
from .session import Job, Streamed, judge_job, stream_job

CellCallback = Callable[[Cell], None]


class MatrixRunner:
    """Runs a :class:`MatrixSpec` into a :class:`MatrixResult` (see the module docstring)."""

    def __init__(
        self,
        spec: MatrixSpec,
        out_dir: str | Path,
        *,
        on_cell_started: CellCallback | None = None,
        on_cell_finished: CellCallback | None = None,
        demo_chunk_delay: float | None = None,
        demo_url: str | None = None,
        result: MatrixResult | None = None,
    ) -> None:
        self.spec = spec
        self.out_dir = Path(out_dir)
        self.on_cell_started, self.on_cell_finished = on_cell_started, on_cell_finished
        self.demo_chunk_delay = demo_chunk_delay
        """The embedded demo's pause between frames (None: its default)."""
        self.demo_url = demo_url
        """A demo provider already running (the window's, another process): used instead of
        starting one for the demo targets."""
        started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.result = result or MatrixResult.empty(spec, [r.name for r in REPLICAS], started)
        """Filled as runs finish; a saved result given here is rerun into."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._cancelled = False
        self._running = False

    @property
    def total(self) -> int:
        """Sessions in the matrix."""
        return self.spec.sessions

    @property
    def done(self) -> int:
        """Runs finished so far (skipped ones included)."""
        return sum(len(c.runs) for c in self.result)

    def cancel(self) -> None:
        """Stop every session still running; finished runs are kept."""
        self._cancelled = True
        for task in list(self._tasks):
            task.cancel()

    def failed_cells(self) -> list[tuple[str, str]]:
        """Cells worth a rerun: an error in some run, or not finished."""
        return [c.key for c in self.result if c.failed]

    def row(self, target: str) -> list[tuple[str, str]]:
        """Every cell of one target."""
        return [c.key for c in self.result if c.target == target]

    async def run(self) -> MatrixResult:
        """Run every cell (see the module docstring); returns the result."""
        return await self.rerun([c.key for c in self.result])

    async def rerun(self, cells: Iterable[tuple[str, str]]) -> MatrixResult:
        """Run ``cells`` again (their old runs replaced); returns the result. The result's
        ``duration`` is the matrix's whole running time: a rerun adds its time to the time the
        cells it kept took (a rerun of one row does not make a 22 s matrix "took 0.4 s")."""
        if self._running:
            raise RuntimeError("the matrix is already running")
        self._running, self._cancelled = True, False
        keys = list(dict.fromkeys(cells))
        began = time.monotonic()
        try:
            await self._run(keys)
        finally:
            self._running = False
            self.result.duration += time.monotonic() - began
        return self.result

    def save(self) -> Path:
        """Write ``matrix.json`` into the folder (atomically); its path."""
        self.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.out_dir / FILE_NAME
        write_file(path, self.result.dumps())
        return path

    # -- inside ----------------------------------------------------------------------------

    async def _run(self, keys: list[tuple[str, str]]) -> None:
        for key in keys:
            self.result.cells[key].runs = []
        jobs, needs_demo = self._jobs(keys)
        if not jobs or self._cancelled:
            return
        async with contextlib.AsyncExitStack() as stack:
            demo_url = self.demo_url or (await self._demo(stack) if needs_demo else None)
            clients: dict[bool, httpx.AsyncClient] = {}  # by "local": each made once, if needed
            tls = await prepare_transport()
            gc.freeze()  # see the module docstring: what exists now is long-lived
            queued: list[_Queued] = []
            for target, scenario, run, secret in jobs:
                profile = target.profile.resolved(demo_url) if demo_url else target.profile
                job = Job(target, self.spec.scenario(scenario), run, profile, secret)
                local = _is_local(profile.base_url)
                if local not in clients:
                    made = _client(not local, self.spec.concurrency, tls[not local])
                    clients[local] = await stack.enter_async_context(made)
                queued.append(_Queued(job, clients[local]))
            schedule = Schedule(queued, {t.name: t.concurrency for t in self.spec.targets})
            for n in range(min(self.spec.concurrency, len(queued))):
                task = asyncio.create_task(self._worker(schedule), name=f"matrix worker {n}")
                self._keep(task)
            while self._tasks:  # the workers, and the judging they leave behind them
                await asyncio.gather(*self._tasks, return_exceptions=True)

    def _keep(self, task: asyncio.Task[None]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _jobs(
        self, keys: list[tuple[str, str]]
    ) -> tuple[list[tuple[Target, str, int, str | None]], bool]:
        """The jobs to run, with each target's key, run by run and column by column (so every
        target is busy from the start and one slow row cannot hold the slots); cells of targets
        without one get their skipped runs now."""
        jobs: list[tuple[Target, str, int, str | None]] = []
        needs_demo = False
        for name, scenario in keys:
            target = self.spec.target(name)
            key = resolve_key(target.profile)
            reason = skip_reason(target, key)
            if reason is not None:
                for run in range(1, self.spec.runs + 1):
                    self._add(self.result.cells[(name, scenario)],
                              CellRun(run, "skipped", skipped=reason))  # fmt: skip
                continue
            needs_demo = needs_demo or target.profile.is_demo
            jobs.extend((target, scenario, run, key) for run in range(1, self.spec.runs + 1))
        order = {t.name: i for i, t in enumerate(self.spec.targets)}
        cols = {s.name: i for i, s in enumerate(self.spec.scenarios)}
        jobs.sort(key=lambda j: (j[2], cols[j[1]], order[j[0].name]))
        return jobs, needs_demo

    async def _worker(self, schedule: Schedule[_Queued]) -> None:
        """Take jobs until none is left: stream each in this slot, then leave its judging to
        a task of its own (one replica a loop turn) and take the next: the slot is the
        provider's, judging overlaps the other sessions' streaming."""
        while (queued := await schedule.take()) is not None:
            job = queued.job
            if self._cancelled:
                await schedule.done(queued, 0.0)
                continue
            if job.run == 1 and self.on_cell_started is not None:
                self.on_cell_started(self.result.cells[queued.cell])
            began = time.monotonic()
            try:
                streamed = await stream_job(job, self.spec, self.out_dir, queued.client)
            finally:
                await asyncio.shield(schedule.done(queued, time.monotonic() - began))
            self._keep(asyncio.create_task(self._judge(queued, streamed)))

    async def _judge(self, queued: _Queued, streamed: Streamed) -> None:
        self._add(self.result.cells[queued.cell], await judge_job(streamed))

    def _add(self, cell: Cell, run: CellRun) -> None:
        cell.runs = sorted([*cell.runs, run], key=lambda r: r.run)
        if len(cell.runs) == self.spec.runs and self.on_cell_finished is not None:
            self.on_cell_finished(cell)

    async def _demo(self, stack: contextlib.AsyncExitStack) -> str:
        from ..demo import DemoProvider  # lazy: only demo targets need the server

        delay = self.demo_chunk_delay
        demo = DemoProvider(
            "127.0.0.1", port=0, **({} if delay is None else {"chunk_delay": delay})
        )
        url = await demo.start()
        stack.push_async_callback(demo.stop)
        return url


@dataclass(frozen=True)
class _Queued:
    """A job and the pooled client it is sent with."""

    job: Job
    client: httpx.AsyncClient

    @property
    def cell(self) -> tuple[str, str]:
        return self.job.target.name, self.job.scenario.name


def skip_reason(target: Target, key: str | None) -> str | None:
    """Why ``target`` is skipped given its resolved ``key`` (None: it runs)."""
    if key is None and target.profile.key_env is not None:
        return f"no key: {target.profile.key_env} is not set"
    return None


def skipped_targets(spec: MatrixSpec) -> dict[str, str]:
    """The spec's targets that would be skipped, with why (their key is not set)."""
    found = {}
    for target in spec.targets:
        reason = skip_reason(target, resolve_key(target.profile))
        if reason is not None:
            found[target.name] = reason
    return found


def nothing_to_run(spec: MatrixSpec, cells: Iterable[tuple[str, str]] | None = None) -> str | None:
    """Why running ``spec`` (or only ``cells`` of it) would run no session, or None
    (:func:`inspector.core.matrix.idle.idle_reason`)."""
    return idle_reason(spec, skipped_targets(spec), cells)


def _is_local(url: str) -> bool:
    try:
        return httpx.URL(url).host in ("127.0.0.1", "localhost", "::1")
    except Exception:
        return False


def _client(trust_env: bool, concurrency: int, tls: ssl.SSLContext) -> httpx.AsyncClient:
    """One pooled client for the matrix's sessions (a loopback server never through a
    proxy from the environment)."""
    limits = httpx.Limits(max_connections=max(100, 2 * concurrency), max_keepalive_connections=32)
    return httpx.AsyncClient(trust_env=trust_env, limits=limits, verify=tls)


_TLS: dict[bool, ssl.SSLContext] = {}


async def prepare_transport() -> dict[bool, ssl.SSLContext]:
    """The TLS contexts by ``trust_env`` (as httpx makes them by default: certifi's bundle,
    ``SSL_CERT_FILE``/``SSL_CERT_DIR`` when the environment is trusted), built once per process
    in a worker thread, which first imports what a client's first request needs (httpx
    imports httpcore, anyio and h11/h2 lazily: in a window, under PySide's import hook, that
    held the loop ~0.3-0.5 s at a matrix's start)."""
    if not _TLS:
        _TLS.update(await asyncio.to_thread(_build_tls))
    return _TLS


def _build_tls() -> dict[bool, ssl.SSLContext]:
    import anyio._backends._asyncio  # noqa: F401 - httpcore's backend, imported on first connect
    import httpcore  # noqa: F401 - httpx imports it when its first client is made

    return {env: httpx.create_ssl_context(trust_env=env) for env in (False, True)}
