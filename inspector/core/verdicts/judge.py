"""Verdicts: one call judged under the user's settings.

Invariants:
- Judging reads a call and never changes it: the same call, settings and tools always give
  the same verdict, so a caller may cache verdicts by those.
- A call still open is not validated (its arguments are still arriving); an orphan (an
  id-only entry) is not part of the turn and carries no problems.
- An item is judged by its kind (:mod:`.bykind`): a hosted one never (no problems), a custom
  one against its declared format, a built-in one against its documented shape; only a
  function call's arguments are JSON.
- ``orjson`` decides validity; the readable JSON error (``jsonprogress``) is only worked out
  for arguments that fail.
- Tool registries built from definitions are cached per definitions list object: building
  one checks every schema, and every rewind, seek back or fork makes a fresh Analysis over
  the same list.
"""

from __future__ import annotations

from typing import Any, Final

from inspector.core.base.kinds import CallKind
from inspector.core.base.model import plain
from inspector.core.base.provider import Providers
from inspector.core.base.settings import ValidationMode
from inspector.core.calls import wholejson
from inspector.core.calls.accumulator import Accumulator, ToolCall, repaired_id
from inspector.core.calls.jsonprogress import first_error
from inspector.core.calls.stream import StreamState
from inspector.core.verdicts.bykind import validate_builtin, validate_custom
from inspector.core.verdicts.tools import ToolRegistry
from inspector.core.verdicts.validation import Code, Problem, validate_call

FUNCTION: Final = CallKind.FUNCTION
HOSTED: Final = CallKind.HOSTED
CUSTOM: Final = CallKind.CUSTOM

NO_PROBLEMS: Final[list[Problem]] = []
"""The problems of every call that has none: one shared list, never to be changed."""
NOT_CHECKED: Final[list[Problem]] = []
"""The problems of an item that was not checked (no problems, so valid; its word says "not
checked"): a hosted item, a custom call whose tool declared no format to check it against.
One shared list, told apart from :data:`NO_PROBLEMS` by identity, never to be changed."""

_CLEAN: tuple[dict[int, tuple[Any, ...]], dict[int, tuple[Any, ...]]] = ({}, {})
"""The shared outcome of verdicts with no problems and no repaired id, by orphan flag, then by
the identity of what they were judged under (each holds its basis, so the key stays its own)."""
_CLEAN_KEPT: Final = 64
_FRESH: Final = ((NO_PROBLEMS, False, None, ()), (NO_PROBLEMS, True, None, ()))
"""The outcomes of a verdict with nothing to say, before its basis is set (by orphan flag)."""


def _outcome(
    problems: list[Problem], orphan: bool, repaired: str | None, under: tuple[Any, ...]
) -> tuple[Any, ...]:
    """(problems, orphan, repaired id, under) as one tuple, shared when it says nothing but
    the basis (:data:`_CLEAN`)."""
    if problems is not NO_PROBLEMS or repaired is not None:
        return (problems, orphan, repaired, under)
    if not under:
        return _FRESH[bool(orphan)]
    clean = _CLEAN[bool(orphan)]
    shared = clean.get(id(under))
    if shared is None or shared[3] is not under:
        if len(clean) >= _CLEAN_KEPT:
            clean.clear()
        shared = clean[id(under)] = (NO_PROBLEMS, orphan, None, under)
    return shared


class CallVerdict:
    """One call judged: its problems under the current settings.

    Slim: a stream may hold 200,000 calls. It keeps the call and what was found, never the
    decoded arguments (validating a 200 MB argument string decodes it, and lets it go). Three
    slots: the call, the shape it was judged at, and the outcome (problems, orphan, repaired
    id, and what it was judged under) as one tuple, shared by every verdict with the same
    outcome (a call with no problems, not an orphan and no repaired id, under one basis)."""

    __slots__ = ("_outcome", "call", "shape")

    def __init__(
        self,
        call: ToolCall,
        problems: list[Problem],
        orphan: bool,
        repaired_id: str | None,
        shape: int = -1,
        under: tuple[Any, ...] = (),
    ) -> None:
        self.call = call
        """The accumulated call."""
        self.shape = shape
        """What the call looked like when judged (:func:`call_shape`), for a cache to compare."""
        self._outcome = _outcome(problems, orphan, repaired_id, under)

    @property
    def problems(self) -> list[Problem]:
        """Validation problems (empty when valid or when validation is off and nothing legacy
        hit)."""
        return self._outcome[0]  # type: ignore[no-any-return]

    @property
    def orphan(self) -> bool:
        """An id-only entry with no name and no arguments: left out of the assistant turn."""
        return self._outcome[1]  # type: ignore[no-any-return]

    @property
    def repaired_id(self) -> str | None:
        """The id generated for a named call that arrived without one (the id repair)."""
        return self._outcome[2]  # type: ignore[no-any-return]

    @property
    def under(self) -> tuple[Any, ...]:
        """What the call was judged under (mode, tools, policy), for a cache to compare."""
        return self._outcome[3]  # type: ignore[no-any-return]

    @under.setter
    def under(self, value: tuple[Any, ...]) -> None:
        o = self._outcome
        if o[3] is not value:
            self._outcome = _outcome(o[0], o[1], o[2], value)

    def __eq__(self, other: object) -> bool:
        """Equal when the call, problems, orphan flag and repaired id are (as the dataclass it
        was compared them; shape and basis are bookkeeping)."""
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, CallVerdict)
        return (self.call, self.problems, self.orphan, self.repaired_id) == (
            other.call,
            other.problems,
            other.orphan,
            other.repaired_id,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"CallVerdict(call={self.call!r}, problems={self.problems!r}, "
            f"orphan={self.orphan!r}, repaired_id={self.repaired_id!r})"
        )

    @property
    def valid(self) -> bool:
        """No problems and part of the turn."""
        return not self.problems and not self.orphan

    @property
    def name(self) -> Any:
        """The name as established by the accumulator."""
        return self.call.name

    @property
    def arguments(self) -> str:
        """The assembled raw argument string."""
        return self.call.arguments

    @property
    def effective_id(self) -> Any:
        """The id a tool reply must echo: as received, or the repaired one."""
        return self.repaired_id if self.repaired_id is not None else self.call.id

    def diagnostic(self) -> dict[str, Any]:
        """The ``invalid_tool_calls`` entry of a degraded attempt: raw arguments included."""
        return {
            "id": plain(self.effective_id),
            "name": plain(self.call.name),
            "raw_arguments": self.call.arguments,
            "problems": [p.to_json() for p in self.problems],
        }


_REGISTRIES: dict[tuple[int, int], tuple[Any, Providers, ToolRegistry]] = {}
_REGISTRIES_KEPT = 8


def registry_for(source: Any, providers: Providers) -> ToolRegistry:
    """The registry for a tools definition list read in the shapes of ``providers``, built
    once per list object (checking every schema takes tens of milliseconds, and every rewind,
    seek back or fork of a capture makes a fresh Analysis over the same list). The list (and
    the lookup) is kept with its registry, so its id is not reused while cached; the last few
    lists are kept."""
    key = (id(source), id(providers))
    hit = _REGISTRIES.get(key)
    if hit is not None and hit[0] is source and hit[1] is providers:
        return hit[2]
    registry = ToolRegistry.from_definitions(source, providers)
    _REGISTRIES[key] = (source, providers, registry)
    while len(_REGISTRIES) > _REGISTRIES_KEPT:
        del _REGISTRIES[next(iter(_REGISTRIES))]
    return registry


def judge_call(
    state: StreamState, call: ToolCall, mode: ValidationMode, registry: ToolRegistry | None
) -> CallVerdict:
    """One call judged under ``mode`` against ``registry``: orphan, open (not judged yet:
    its arguments are still arriving) or validated, with the id repaired if it had none."""
    acc = state.acc or Accumulator(state.empty_id)
    orphan = acc.is_orphan(call)
    name = None if acc.blank(call.name) else call.name
    repaired = repaired_id(call) if name is not None and acc.blank(call.id) else None
    if orphan:
        return CallVerdict(call, NO_PROBLEMS, True, None)
    if call.open:
        return CallVerdict(call, NO_PROBLEMS, False, repaired)
    args = call.arguments
    kind = call.kind
    if kind != FUNCTION:  # judged by kind (:mod:`.bykind`): never as JSON arguments
        if kind == HOSTED:
            return CallVerdict(call, NOT_CHECKED, False, repaired)
        if mode == "off":
            return CallVerdict(call, NO_PROBLEMS, False, repaired)
        if kind == CUSTOM:
            found, checked = validate_custom(call.name, args, registry, call.truncated)
            if not found and not checked:
                return CallVerdict(call, NOT_CHECKED, False, repaired)
        else:
            found = validate_builtin(call.item_type, args, call.truncated)
        return CallVerdict(call, found or NO_PROBLEMS, False, repaired)
    problems = validate_call(
        name, args, registry, mode, truncated=call.truncated, json_error=lambda: first_error(args)
    )  # only if it fails to parse
    if mode != "off" and call.dropped_count and any(f.text for f in call.dropped):
        problems = [*problems, _dropped_problem(call)]  # argument text was lost
    big = len(args) >= wholejson.BIG
    if big and mode != "off" and args.strip() and Code.INVALID_JSON not in _codes(problems):
        wholejson.remember(call, args)  # it was decoded, as a whole value
    return CallVerdict(call, problems or NO_PROBLEMS, False, repaired)


def _dropped_problem(call: ToolCall) -> Problem:
    """``dropped_fragments``: the fragments with argument text the policy could not place,
    and their bytes (an id-only entry dropped loses nothing of the arguments)."""
    dropped = [f for f in call.dropped if f.text]
    size = sum(len(f.text.encode("utf-8")) for f in dropped if isinstance(f.text, str))
    n = len(dropped)
    return Problem(
        Code.DROPPED_FRAGMENTS,
        f"{n} fragment{'s' if n != 1 else ''} ({size} bytes of arguments) could not be placed "
        "in this call under the empty-id policy: its arguments are not the ones sent",
        detail={"chunks": [f.seq for f in dropped], "bytes": size},
    )


def _codes(problems: list[Problem]) -> set[str]:
    return {p.code for p in problems}


def call_shape(call: ToolCall) -> int:
    """One number that changes whenever a verdict on ``call`` may: a call changes only by
    taking fragments (its arguments, id, name and conclusions come with them), by closing
    and by being found truncated."""
    return call.fragment_count << 2 | call.open << 1 | call.truncated
