"""Run the replicas over a session and say, per client, whether it gets the inspector's calls.

Invariants:
- The inspector's calls (:func:`expected_calls`) are an attempt's non-orphan calls as its
  accumulator assembled them under the settings in force, in lane order; calls written in
  the text (:mod:`inspector.core.calls.textcalls`) are not among them: clients read text.
- A client *agrees* when it hands over exactly those calls without raising: same count; per
  call the same name, the same id (any id when the inspector has none: clients that make one
  up do so by design), and the same arguments (equal strings, or equal JSON values; ``""``
  counts as ``{}``) of the same type (a string; ``HandedCall.object`` is no agreement). On a
  failed request (HTTP status >= 400, a transport error) the inspector has no calls and the
  client agrees when it raises.
- A client's outcome is its calls and/or an error, in the order it emitted them
  (``error_after``: the calls before the error): calls AND an error never agree. Hosted
  items (the provider ran them) are neither expected nor compared: the inspector's hosted
  lanes (:attr:`ToolCall.kind`) are left out of its calls, a client's are in ``hosted``.
- ``diverges_at`` is the ``seq`` of the first wire event after which the client's (id, name,
  arguments-so-far) list stops being a prefix of the inspector's calls, the event it raised
  on, or, when it only differs in what it hands over at the end, the last event; None when it
  agrees. The check is linear in the stream: only the calls a replica touched are re-checked.
- Results are cached per stream state and settings; nothing here changes the analysis.
- A replica is replayed unless the body is plain and it declares the dialect plain
  (:func:`judged_plain`, :mod:`~inspector.core.clients.plain`): then its result is its
  library's writing of the inspector's own calls, which agrees, and says ``judged`` ``plain
  stream``; a result that would not agree is always replayed, so every ``diverges_at`` and
  error comes from a replay.
- Replicas of one attempt are replayed together (:func:`run_replicas`, in turns of
  :data:`TURN` events) so what they decode alike is decoded once and shared read-only
  (:mod:`.openai_sdk.wire`); each result is exactly the replica's result alone.
- Memory: the inspector's calls are built once per attempt (one :class:`.InspectorCalls`,
  shared by every run, result and view: a reference per call, each :class:`HandedCall` made
  when read); a client's call equal to the inspector's is held as the inspector's position
  (:class:`.ClientCalls`; an agreeing client's ``calls`` is the inspector's sequence itself,
  with no slot of its own); a run is fed only the events it reads
  (:meth:`~.base.ReplicaRun.relevant`) and dropped once finished; what a run holds while it
  reads is what its library holds, once (see each replica). The runs of one attempt replay
  together, so what they hold adds up while they read (on the 58k bench stream that is not
  plain: analyze's peak 96 -> 106 MB, 5.7x the input).
"""

from __future__ import annotations

import weakref
from array import array
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Final

from inspector.core.analysis.attempt import AttemptView
from inspector.core.analysis.session import Analysis
from inspector.core.base.kinds import CallKind
from inspector.core.calls.stream import StreamState
from inspector.core.calls.textcalls import from_text
from inspector.core.clients.agreement import (
    same_calls,
)
from inspector.core.clients.base import (
    ClientRaised,
    Exchange,
    HandedCall,
    Partial,
    Replica,
    ReplicaRun,
)
from inspector.core.clients.handed import InspectorCalls, entries, handed, shared
from inspector.core.clients.openai_sdk.wire import forget as forget_dispatches
from inspector.core.clients.plain.compact import forget as forget_writings
from inspector.core.clients.plain.reading import PLAIN_STREAM, REPLAYED, plain_reading
from inspector.core.verdicts.judge import CallVerdict

REPLICA_BUG: Final = "ReplicaBug"
"""The error type a result carries when the replica itself failed (never a library's
exception name): the report stays complete, and the golden tests fail on it."""

NOT_APPLICABLE: Final = "n/a"
"""What a replica says about a dialect its library does not speak."""


@dataclass
class ClientResult:
    """What one client would have made of one attempt (or, for a session, the attempt that
    decides: the first it disagrees on, else the last with calls)."""

    replica: str
    applies: bool
    """False for a dialect the library does not speak: ``n/a``, never agreement."""
    calls: Sequence[HandedCall] = field(default_factory=list)
    """What the client hands over: calls equal to the inspector's are read from the
    inspector's calls (the whole expected sequence when every call is), never a copy."""
    error: ClientRaised | None = None
    agrees: bool | None = None
    """None when it does not apply or the attempt is still streaming."""
    diverges_at: int | None = None
    attempt: int | None = None
    """The attempt number this result describes."""
    error_after: int | None = None
    """With an error AND calls: how many of ``calls`` the library handed over before the
    error (the rest came after it); None when it has no error or no calls."""
    hosted: Sequence[HandedCall] = ()
    """The items the library hands over that the provider ran (``hosted``): reported, never
    compared with the agent's calls."""
    judged: str = REPLAYED
    """How the result was made: ``replayed`` (the replica read the body) or ``plain stream``
    (the body is plain and the replica declares it hands over that reading's calls:
    :mod:`~inspector.core.clients.plain`)."""

    @property
    def both(self) -> bool:
        """The library handed calls over AND reported an error."""
        return self.error is not None and bool(self.calls)

    def to_json(self, lazy: bool = False) -> dict[str, Any]:
        """The ``analyze --json`` shape of one ``clients`` entry (``lazy``: its calls an
        iterator of their entries, for a report written as it is made)."""
        error = None if self.error is None else {
            "type": self.error.type, "message": self.error.message
        }  # fmt: skip
        calls = entries(self.calls)
        return {
            "applies": self.applies,
            "calls": calls if lazy else list(calls),
            "error": error,
            "error_after": self.error_after,
            "hosted": [c.to_json() for c in self.hosted],
            "agrees": self.agrees,
            "diverges_at": self.diverges_at,
            "attempt": self.attempt,
            "judged": self.judged,
        }


_EXPECTED: weakref.WeakKeyDictionary[
    AttemptView, tuple[object, int, bool, Sequence[HandedCall]]
] = weakref.WeakKeyDictionary()


def expected_calls(view: AttemptView) -> Sequence[HandedCall]:
    """The inspector's assembly of ``view``: its non-orphan calls in lane order, those written
    in the text left out (every client hands them over as text, so none is expected), and
    hosted items left out (the provider ran them: :func:`_expected`).

    Built once per attempt (until its verdicts, its stream or its end change) and shared by
    every replica's run and result and by every view: never mutated. An ended attempt's is an
    :class:`.InspectorCalls` (its calls never change again); a streaming one's, a tuple of
    the calls as they stand."""
    verdicts, state = view.verdicts, view.state
    key = (verdicts, len(state.events), state.ended)
    kept = _EXPECTED.get(view)
    if kept is not None and kept[0] is key[0] and kept[1:3] == key[1:]:
        return kept[3]
    calls: Sequence[HandedCall]
    if not state.ended:
        calls = tuple(handed(v.call) for v in verdicts if _expected(v))
    elif all(map(_expected, verdicts)):
        calls = InspectorCalls(verdicts)  # the list itself: no reference of its own per call
    else:
        calls = InspectorCalls([v for v in verdicts if _expected(v)])
    _EXPECTED[view] = (verdicts, len(state.events), state.ended, calls)
    return calls


def _expected(verdict: CallVerdict) -> bool:
    """Is the verdict's call one a client is expected to hand over? Not an orphan, not
    written in the text, and the agent's to run (a hosted item, which the provider ran, is
    no call a client owes the agent: :attr:`ToolCall.kind`)."""
    call = verdict.call
    return not verdict.orphan and not from_text(call) and call.kind != CallKind.HOSTED


def exchange_of(view: AttemptView) -> Exchange:
    """What the client saw of ``view``: status, content type, events, how the body ended.

    A raw body (no response record) is a 200 event stream. ``transport_error`` is set only
    when the body itself was cut (a 2xx event stream whose end record is not a clean end of
    the body) or no response came at all: an HTTP error status or a refused content type is
    what the client sees in ``status`` and ``content_type``, as the golden harness serves it.
    """
    return _exchange(view, joined=True)


def exchange_in_pieces(view: AttemptView) -> tuple[Exchange, Iterable[bytes]]:
    """:func:`exchange_of` but for its body, left empty, and the body's bytes in the pieces
    they were received in (joined, they are :func:`exchange_of`'s body): for a reader that
    reads them in turn, without a copy of the whole body."""
    source = view.source
    pieces = map(itemgetter(1), source.chunks) if source is not None else ()
    return _exchange(view, joined=False), pieces


def _exchange(view: AttemptView, joined: bool) -> Exchange:
    source = view.source
    state = view.state
    dialect = state.dialect_name
    tools = view.tool_names
    body = source.body if source is not None and joined else b""
    if source is None or (source.response is None and not view.error):
        return Exchange(state.events, body, dialect=dialect, tools=tools)
    if source.response is None:  # refused, or reset before any header
        return Exchange(state.events, body, 0, None, view.error, dialect, tools)
    headers = source.response.get("headers") or {}
    ctype = next((v for k, v in headers.items() if k.lower() == "content-type"), None)
    status = source.status if source.status is not None else 200
    ended = (source.end or {}).get("reason", "eof")
    cut = ended != "eof" and 200 <= status < 300 and _is_event_stream(ctype)
    error = (view.error or str(ended)) if cut else None
    return Exchange(state.events, body, status, ctype, error, dialect, tools)


_STREAMED: Final = frozenset({"text/event-stream", "application/vnd.amazon.eventstream"})
"""The content types of a streamed body (SSE, AWS event-stream frames): a body of one of them
that ended otherwise than cleanly was cut."""


def _is_event_stream(content_type: str | None) -> bool:
    return (content_type or "").split(";")[0].strip().lower() in _STREAMED


class _Prefix:
    """Whether a replica's calls so far are still a prefix of the inspector's calls. What it
    has checked of each position (parts, characters, the ``rewritten`` count it read them
    under) is kept in arrays, 16 bytes a call (24 once a replica rewrote a call's text: the
    third array is made then; until then every count read is 0). A position not read yet
    has 0 parts and characters checked, so it is read from its start whatever it says. A
    call whose one part is the whole of the inspector's arguments gets the inspector's
    string in its place (equal, immutable: nothing a library does can tell), so a run holds
    no second copy of agreeing text."""

    def __init__(self, expected: Sequence[HandedCall]) -> None:
        self.expected = expected
        self.count = count = len(expected)
        self.parts = array("q", [0]) * count
        self.chars = array("q", [0]) * count
        self.rewritten: array[int] | None = None  # all 0 until a replica rewrites
        self._same: tuple[int, Any, Any] = (-1, None, None)
        """The last call whose id and name were found a prefix, and those id and name (the
        same objects at the same position need no second look: strings never change)."""

    def holds(self, calls: list[Partial], touched: set[int]) -> bool:
        for pos in touched:
            if pos >= self.count or pos >= len(calls):
                if pos < len(calls):
                    return False
                continue
            if not self._call(pos, calls[pos]):
                return False
        return True

    def _call(self, pos: int, got: Partial) -> bool:
        want = self.expected[pos]
        if (pos, got.id, got.name) != self._same or got.id is not self._same[1]:
            if not self._identity(want, got):
                return False
            self._same = (pos, got.id, got.name)  # (read again only when they change)
        held: Sequence[str] = got.parts
        if type(held) is str:
            held = (held,) if held else ()
        parts, chars = self.parts[pos], self.chars[pos]
        rewritten = self.rewritten
        seen = rewritten[pos] if rewritten is not None else 0
        count = len(held)
        if seen != got.rewritten or parts > count:
            parts, chars = 0, 0
        text = want.arguments
        startswith = text.startswith
        for k in range(parts, count):
            part = held[k]
            if not startswith(part, chars):
                return False
            chars += len(part)
        if count == 1 and chars == len(text) and held[0] is not text:
            if isinstance(got.parts, str):  # the same text: the inspector's string
                got.parts = text
            else:
                got.parts[0] = text
        self.parts[pos], self.chars[pos] = count, chars
        if got.rewritten and rewritten is None:
            rewritten = self.rewritten = array("q", [0]) * self.count
        if rewritten is not None:
            rewritten[pos] = got.rewritten
        return True

    @staticmethod
    def _identity(want: HandedCall, got: Partial) -> bool:
        """The call's id and name so far a prefix of the inspector's (its equal id swapped in)."""
        if got.id and want.id and not want.id.startswith(got.id):
            return False
        if got.name and not (want.name or "").startswith(got.name):
            return False
        if got.id is not want.id and got.id == want.id:
            got.id = want.id  # the inspector's string, not a second copy
        return True


TURN: Final = 32
"""Events each replica reads in its turn when several read one exchange together
(:func:`run_replicas`): fewer than the SDK decoding's ring of shared values
(``openai_sdk.wire.RING``), so every chunk of a turn is decoded once for all of them."""


def run_replica(
    replica: Replica, exchange: Exchange, expected: Sequence[HandedCall], failed: bool
) -> ClientResult:
    """Run ``replica`` over ``exchange`` and compare with ``expected`` (see the invariants)."""
    return run_replicas([replica], exchange, expected, failed)[0]


def run_replicas(
    replicas: Sequence[Replica], exchange: Exchange, expected: Sequence[HandedCall], failed: bool
) -> list[ClientResult]:
    """:func:`run_replica` of each of ``replicas``, in turns of :data:`TURN` events: every
    replica reads the events ``[k * TURN, (k + 1) * TURN)`` before any reads further, so
    what they decode alike (the openai SDK's chunks, :mod:`.openai_sdk.wire`) is decoded
    once, while it is still kept. Each result is exactly :func:`run_replica`'s: runs share
    no state but read-only decoded values, and each is fed its own relevant events."""
    runs = [_replay(r, exchange, expected, failed) for r in replicas]
    out: list[ClientResult | None] = [None] * len(runs)
    live = list(range(len(runs)))
    while live:
        for k in live:
            try:
                next(runs[k])
            except StopIteration as done:
                out[k] = done.value
        live = [k for k in live if out[k] is None]
    return [r for r in out if r is not None]


def _replay(
    replica: Replica, exchange: Exchange, expected: Sequence[HandedCall], failed: bool
) -> Generator[None, None, ClientResult]:
    """One replica's run (see :func:`run_replicas`): yields at each turn's first event."""
    result = ClientResult(replica.name, applies=True)
    events = exchange.events
    first = events[0].seq if events else None
    last = events[-1].seq if events else None
    prefix = _Prefix(expected)
    broke: int | None = None  # the first event after which the prefix no longer held
    at: int | None = first  # where a raise would be: open -> first event, finish -> last
    run: ReplicaRun | None = None
    reported_at: int | None = None  # the event after which the library reported its error
    turn = 0  # the first seq of the next turn
    try:
        run = replica.open(exchange)
        run.expected = expected
        feed, touched = run.feed, run.touched
        for event in run.relevant(events):
            at = event.seq
            if at >= turn:
                turn = (at // TURN + 1) * TURN
                yield
            feed(event)
            if reported_at is None and run.reported is not None:
                reported_at = at
            if touched:
                if broke is None and not prefix.holds(run.calls, touched):
                    broke = at
                touched.clear()
        at = last
        yield  # finish in turn too: it may read what is left
        result.calls = run.finish()
    except ClientRaised as raised:
        # a fresh one: the raised one's traceback holds the frames, the exchange and so the
        # analysis the weak cache is keyed on, which would then never be freed
        result.error = ClientRaised(raised.type, raised.message)
        result.calls = list(raised.handed)
        result.error_after = len(raised.handed)
    except Exception as bug:  # a replica's own bug must not end a report: say it plainly
        result.error = ClientRaised(REPLICA_BUG, f"{type(bug).__name__}: {bug}")
        result.calls = []
        failed = False  # never agreement, whatever the request did
    reported = run.reported if run is not None else None
    if reported is not None and result.error is None:  # an error part, and the stream went on
        result.error = ClientRaised(reported[0].type, reported[0].message)
        result.error_after = reported[1]
    hosted = [c for c in result.calls if c.hosted]
    if hosted:
        result.hosted = hosted
        result.calls, result.error_after = _agents(result.calls, result.error_after)
    if result.error is not None:
        if not result.calls:
            result.error_after = None
            result.agrees = failed
            result.diverges_at = None if failed else (broke if broke is not None else at)
            return result
        result.calls = shared(expected, result.calls)
        result.agrees = False  # calls and an error: an agent cannot have both right
        first = min((s for s in (broke, reported_at) if s is not None), default=None)
        result.diverges_at = first if first is not None else at
        return result
    result.calls = shared(expected, result.calls)
    result.agrees = not failed and (result.calls is expected or same_calls(expected, result.calls))
    if not result.agrees:
        result.diverges_at = broke if broke is not None else last
    return result


def _agents(calls: Sequence[HandedCall], after: int | None) -> tuple[list[HandedCall], int | None]:
    """The agent's calls of ``calls`` (hosted items left out), and ``after`` counted in
    them (how many of them came before the error)."""
    if after is not None:
        after = sum(1 for c in calls[:after] if not c.hosted)
    return [c for c in calls if not c.hosted], after


# -- attempts and sessions -----------------------------------------------------------------

_CACHE: weakref.WeakKeyDictionary[
    StreamState,
    dict[
        tuple[str, int, bool, frozenset[str] | None],
        list[tuple[Sequence[HandedCall], ClientResult]],
    ],
] = weakref.WeakKeyDictionary()
_KEEP: Final = 4
"""Results kept per replica, stream length and outcome (for as many readings of the calls:
toggling a setting back finds its result)."""


def judge_attempt(view: AttemptView, replica: Replica) -> ClientResult:
    """What ``replica``'s library makes of one attempt (``agrees`` None while it streams).
    Cached per stream state, length, outcome and expected calls (compared by value: a
    re-judge that leaves the inspector's calls as they were runs no replica again)."""
    return judge_together(view, [replica])[0]


def judge_together(view: AttemptView, replicas: Sequence[Replica]) -> list[ClientResult]:
    """:func:`judge_attempt` of each of ``replicas``: those that must be replayed are replayed
    together (:func:`run_replicas`: what they decode alike, decoded once)."""
    out: list[ClientResult | None] = []
    todo: list[tuple[int, Replica, list[tuple[Sequence[HandedCall], ClientResult]]]] = []
    state = view.state
    for replica in replicas:
        if state.dialect_name not in replica.dialects:
            out.append(ClientResult(replica.name, applies=False, attempt=view.number))
            continue
        if not state.ended or view.cancelled:  # a stopped stream judges no client
            out.append(ClientResult(replica.name, applies=True, attempt=view.number))
            continue
        expected = expected_calls(view)
        failed = view.failed
        key = (replica.name, len(state.events), failed, view.tool_names)
        kept = _CACHE.setdefault(state, {}).setdefault(key, [])
        hit = next((r for calls, r in kept if calls is expected or calls == expected), None)
        if hit is None:
            hit = judged_plain(replica, view, expected, failed)
            if hit is not None:
                _keep(kept, expected, hit, view)
        if hit is None:
            todo.append((len(out), replica, kept))
        out.append(hit)
    if todo:
        expected = expected_calls(view)
        replayed = run_replicas([r for _, r, _ in todo], exchange_of(view), expected, view.failed)
        for (pos, _, kept), result in zip(todo, replayed, strict=True):
            out[pos] = _keep(kept, expected, result, view)
    return [r for r in out if r is not None]


def _keep(
    kept: list[tuple[Sequence[HandedCall], ClientResult]],
    expected: Sequence[HandedCall],
    result: ClientResult,
    view: AttemptView,
) -> ClientResult:
    result.attempt = view.number
    kept.append((expected, result))
    del kept[:-_KEEP]
    return result


def judged_plain(
    replica: Replica, view: AttemptView, expected: Sequence[HandedCall], failed: bool
) -> ClientResult | None:
    """``replica``'s result on an ended attempt whose body is plain, from the plain reading
    (:mod:`~inspector.core.clients.plain`) without replaying it; None when the body is not
    plain, the replica does not declare the dialect, or its reading would not agree (then it
    is replayed, so a disagreement always has the replay's ``diverges_at``)."""
    if failed or view.state.dialect_name not in replica.plain:
        return None
    reading = plain_reading(view, exchange_in_pieces, expected)
    if reading is None:
        return None
    calls = replica.plain_calls(reading.calls, reading.tools)
    if calls is None:
        return None
    calls = shared(expected, calls)
    if not (calls is expected or same_calls(expected, calls)):
        return None
    return ClientResult(replica.name, applies=True, calls=calls, agrees=True, judged=PLAIN_STREAM)


def judged_attempts(analysis: Analysis, attempt: int | None = None) -> list[AttemptView]:
    """The attempts the clients judge, by one rule for every view and report: the attempt
    ``attempt`` when the user selected one, else the final attempt of each round (the one an
    agent got; a retried attempt was replaced and is judged only when selected)."""
    views = analysis.attempts
    if attempt is not None and 0 < attempt <= len(views):
        return [views[attempt - 1]]
    if not views:
        return []
    return [r.final for r in analysis.rounds if r.attempts] or [views[-1]]


def judge_clients(
    analysis: Analysis, replicas: Sequence[Replica], attempt: int | None = None
) -> dict[str, ClientResult]:
    """Each replica's result for the session, in ``replicas`` order, over
    :func:`judged_attempts`: on the first of them it disagrees with, else on the last that
    has calls (the inspector's or the client's), else on the last; ``n/a`` when it speaks
    none of the session's dialects."""
    out: dict[str, ClientResult] = {}
    judged = judged_attempts(analysis, attempt)
    for view in judged:  # every replica of an attempt in one pass (cached for the loop below)
        judge_together(view, replicas)
    for replica in replicas:
        results = [judge_attempt(view, replica) for view in judged]
        results = [r for r in results if r.applies]
        if not results:
            number = judged[-1].number if judged else None
            out[replica.name] = ClientResult(replica.name, applies=False, attempt=number)
            continue
        out[replica.name] = _deciding(results)
    forget_dispatches()  # the SDK's decoding of each body: only needed while replicas run
    forget_writings()  # the calls written again for LangChain and the AI SDK: theirs now
    return out


def _deciding(results: list[ClientResult]) -> ClientResult:
    for r in results:
        if r.agrees is False:
            return r
    with_calls = [r for r in results if r.calls]
    return with_calls[-1] if with_calls else results[-1]
