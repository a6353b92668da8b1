"""A live session: one request streamed into a capture and an Analysis, under the retry rule.

Flow: attempt 1 streams (every chunk recorded, then fed to :attr:`LiveSession.analysis`); when
it ends, the analysis judges it with :func:`inspector.core.verdicts.attempts.plan`. If a native
call is invalid, retry is on and the attempt budget has time left, ONE streaming retry of the
same request follows (capture: an ``attempt`` record with the attempt reason and
``retry_streaming``). The session is one round of :class:`~inspector.net.runner.SessionRunner`:
its states, errors, cancelling and crash safety are the runner's; the rule is
:mod:`inspector.net.policy`'s.

Invariants:
- A key is resolved from the environment, else the OS keyring, at start time, and held in
  memory only: it is refused as a header or URL parameter value of the request spec (compared
  whole, never as a substring), and the capture writer redacts it wherever it shows as a
  whole token: header values, the URL, the meta, the request body's strings
  (:mod:`inspector.core.capture.redaction`).
- A headless run raises MissingKey before anything is sent or written; every later problem
  is in ``session.error``.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from inspector.core.requests.scenarios import Profile, RequestSpec, Scenario, build_request

from .errors import MissingKey
from .policy import LoopSettings
from .runner import SessionRunner

if TYPE_CHECKING:
    from .demo import DemoProvider

KEYRING_SERVICE: Final = "toolcall-inspector"


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


class LiveSession(SessionRunner):
    """One live session: one round of at most two physical requests, one capture, one
    Analysis. It is a plain :class:`~inspector.net.runner.SessionRunner` (its constructor,
    states and summary lines), under the name the window and ``record`` know it by."""

    task_name = "toolcall-inspector live session"


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
