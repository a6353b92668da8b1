"""Verdicts: the user's settings, and one call judged under them.

Invariants:
- Judging reads a call and never changes it: the same call, settings and tools always give
  the same verdict, so a caller may cache verdicts by those.
- A call still open is not validated (its arguments are still arriving); an orphan (an
  id-only entry) is not part of the turn and carries no problems.
- ``orjson`` decides validity; the readable JSON error (``jsonprogress``) is only worked out
  for arguments that fail.
- Tool registries built from definitions are cached per definitions list object: building
  one checks every schema, and every rewind, seek back or fork makes a fresh Analysis over
  the same list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from inspector.core.base.model import plain
from inspector.core.calls.accumulator import (
    ABSENT,
    Accumulator,
    EmptyIdPolicy,
    ToolCall,
    empty_id_policy,
    repaired_id,
)
from inspector.core.calls.jsonprogress import first_error
from inspector.core.calls.stream import StreamState
from inspector.core.verdicts.tools import ToolRegistry
from inspector.core.verdicts.validation import (
    DEFAULT_MODE,
    Problem,
    ValidationMode,
    validate_call,
    validation_mode,
)

DIALECT_CHOICES = ("auto", "openai-chat", "anthropic", "openai-responses", "gemini")
"""The settings' dialect choices: the built-in providers' names, as data (this stage never
looks a provider up; tests/test_provider_protocol.py checks they match the registry)."""


@dataclass(frozen=True)
class Settings:
    """What the user chose; every view re-judges when these change."""

    dialect: str = "auto"
    """Wire dialect, or ``auto`` to sniff it from the first events."""
    validation: ValidationMode = DEFAULT_MODE
    """``off`` | ``structural`` | ``strict``: the validation modes."""
    empty_id: EmptyIdPolicy = ABSENT
    """``absent`` (treat "" as omitted) or ``literal`` (look "" up as an id: the empty-id
    accumulator bug)."""

    @classmethod
    def from_strings(
        cls, dialect: str = "auto", validation: str = DEFAULT_MODE, empty_id: str = ABSENT
    ) -> Settings:
        """Settings spelled as strings (flags, stored settings, a widget's text); raises
        ValueError naming the choices for an unknown validation mode or empty-id policy."""
        return cls(dialect, validation_mode(validation), empty_id_policy(empty_id))

    def with_strings(self, **changes: str) -> Settings:
        """These settings with ``changes`` (field name -> string) applied, checked as
        :meth:`from_strings` checks them."""
        return Settings.from_strings(**{**self.to_json(), **changes})

    def to_json(self) -> dict[str, str]:
        """The ``--json`` shape."""
        return {"dialect": self.dialect, "validation": self.validation, "empty_id": self.empty_id}


NO_PROBLEMS: Final[list[Problem]] = []
"""The problems of every call that has none: one shared list, never to be changed."""


@dataclass(slots=True)
class CallVerdict:
    """One call judged: its problems under the current settings.

    Slim: a stream may hold 200,000 calls. It keeps the call and what was found, never the
    decoded arguments (validating a 200 MB argument string decodes it, and lets it go)."""

    call: ToolCall
    """The accumulated call."""
    problems: list[Problem]
    """Validation problems (empty when valid or when validation is off and nothing legacy hit)."""
    orphan: bool
    """An id-only entry with no name and no arguments: left out of the assistant turn."""
    repaired_id: str | None
    """The id generated for a named call that arrived without one (the id repair)."""
    shape: int = field(default=-1, repr=False, compare=False)
    """What the call looked like when judged (:func:`call_shape`), for a cache to compare."""
    under: tuple[Any, ...] = field(default=(), repr=False, compare=False)
    """What the call was judged under (mode, tools, policy), for a cache to compare."""

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


_REGISTRIES: dict[int, tuple[Any, ToolRegistry]] = {}
_REGISTRIES_KEPT = 8


def registry_for(source: Any) -> ToolRegistry:
    """The registry for a tools definition list, built once per list object (checking every
    schema takes tens of milliseconds, and every rewind, seek back or fork of a capture makes
    a fresh Analysis over the same list). The list is kept with its registry, so its id is
    not reused while cached; the last few lists are kept."""
    hit = _REGISTRIES.get(id(source))
    if hit is not None and hit[0] is source:
        return hit[1]
    registry = ToolRegistry.from_definitions(source)
    _REGISTRIES[id(source)] = (source, registry)
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
    problems = validate_call(
        name, args, registry, mode, truncated=call.truncated, json_error=lambda: first_error(args)
    )  # only if it fails to parse
    return CallVerdict(call, problems or NO_PROBLEMS, False, repaired)


def call_shape(call: ToolCall) -> int:
    """One number that changes whenever a verdict on ``call`` may: a call changes only by
    taking fragments (its arguments, id, name and conclusions come with them), by closing
    and by being found truncated."""
    return len(call.fragments) << 2 | call.open << 1 | call.truncated
