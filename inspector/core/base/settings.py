"""The user's settings and every default, in one home: the dialect, the validation mode and
the empty-id policy, their choices and how a string from a flag, a stored setting or a widget
becomes one.

Invariants:
- Modes and policies are ``Literal`` types; their tuples of choices come from ``get_args``
  (one list each), and every default is a constant here: nothing else spells one.
- A string is checked once, on the way in (:meth:`Settings.from_strings`): an unknown mode or
  policy, or a dialect no provider of the lookup handed in has, is a ValueError naming the
  choices. This layer names no provider: the dialect choices are ``auto`` plus the names of
  the :class:`~inspector.core.base.provider.Providers` lookup the layer above passes in.
- Settings are frozen: a change is a new Settings, and every view re-judges under it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, get_args

from inspector.core.base.provider import Providers

AUTO: Final = "auto"
"""The dialect name that sniffs the provider from the first events (the default dialect)."""

ValidationMode = Literal["off", "structural", "strict"]
"""How much of a call is checked (the values are the CLI, settings and capture spellings):
``off`` only the legacy empty-required-arguments condition; ``structural`` a JSON object with
every top-level required property, types left to the tool; ``strict`` structural plus full
JSON Schema validation."""
VALIDATION_MODES: Final[tuple[ValidationMode, ...]] = get_args(ValidationMode)
"""The modes in order, for choices lists (derived from the type: one list)."""
DEFAULT_MODE: Final[ValidationMode] = "structural"
"""The validation mode when none is chosen (flags, stored settings, specs, reports)."""

EmptyIdPolicy = Literal["absent", "literal"]
"""How an empty-string id or name is read (the empty-id accumulator bug, docs/glossary.md):
``absent`` as omitted (``"null"`` too), so the fragment continues the call at its index;
``literal`` as an id to look up, which finds no call and drops the fragment (the bug)."""
EMPTY_ID_POLICIES: Final[tuple[EmptyIdPolicy, ...]] = get_args(EmptyIdPolicy)
"""The policies in order, for choices lists (derived from the type: one list)."""
ABSENT: Final[EmptyIdPolicy] = "absent"
LITERAL: Final[EmptyIdPolicy] = "literal"
DEFAULT_EMPTY_ID: Final[EmptyIdPolicy] = ABSENT

DRAIN_SECONDS: Final = 60.0
"""How long the recording proxy keeps reading an upstream whose agent hung up early (the
provider keeps generating, and billing, meanwhile)."""
DRAIN_BYTES: Final = 64 * 1024 * 1024
"""How many body bytes it reads at most once the agent left."""
HEADER_TIMEOUT: Final = 30.0
"""Seconds the recording proxy waits for a request's headers (from its first byte, or from
the connection's opening): a client trickling them is cut off then, never holding a socket
for ever."""
"""The empty-id policy when none is chosen."""


def validation_mode(value: str) -> ValidationMode:
    """``value`` as a validation mode (a string from a flag, a setting or a widget); raises
    ValueError naming the choices for anything else."""
    for mode in VALIDATION_MODES:
        if value == mode:
            return mode
    choices = ", ".join(VALIDATION_MODES)
    raise ValueError(f"unknown validation mode {value!r}; expected one of {choices}")


def empty_id_policy(value: str) -> EmptyIdPolicy:
    """``value`` as an empty-id policy (a flag, a setting, a widget's text); raises ValueError
    for anything else."""
    for policy in EMPTY_ID_POLICIES:
        if value == policy:
            return policy
    raise ValueError(f"unknown empty-id policy {value!r}; expected one of absent, literal")


def dialect_choices(providers: Providers) -> tuple[str, ...]:
    """Every dialect a setting may name: ``auto``, then the providers' names in registration
    order (the CLI's ``--dialect`` choices, the menus, the profiles' check)."""
    return (AUTO, *providers.names())


def dialect_name(value: str, providers: Providers) -> str:
    """``value`` as a dialect of ``providers`` (or ``auto``); raises ValueError naming the
    choices for anything else."""
    choices = dialect_choices(providers)
    if value in choices:
        return value
    raise ValueError(f"unknown dialect {value!r} (known: {', '.join(choices)})")


@dataclass(frozen=True)
class Settings:
    """What the user chose; every view re-judges when these change."""

    dialect: str = AUTO
    """Wire dialect, or ``auto`` to sniff it from the first events."""
    validation: ValidationMode = DEFAULT_MODE
    """``off`` | ``structural`` | ``strict``: the validation modes."""
    empty_id: EmptyIdPolicy = DEFAULT_EMPTY_ID
    """``absent`` (treat "" as omitted) or ``literal`` (look "" up as an id: the empty-id
    accumulator bug)."""

    @classmethod
    def from_strings(
        cls,
        dialect: str = AUTO,
        validation: str = DEFAULT_MODE,
        empty_id: str = DEFAULT_EMPTY_ID,
        providers: Providers | None = None,
    ) -> Settings:
        """Settings spelled as strings (flags, stored settings, a widget's text); raises
        ValueError naming the choices for an unknown validation mode or empty-id policy, and
        for a dialect none of ``providers`` has (the dialect is not checked without them)."""
        if providers is not None:
            dialect = dialect_name(dialect, providers)
        return cls(dialect, validation_mode(validation), empty_id_policy(empty_id))

    def with_strings(self, providers: Providers | None = None, /, **changes: str) -> Settings:
        """These settings with ``changes`` (field name -> string) applied, checked as
        :meth:`from_strings` checks them."""
        return Settings.from_strings(**{**self.to_json(), **changes}, providers=providers)

    def to_json(self) -> dict[str, str]:
        """The ``--json`` shape."""
        return {"dialect": self.dialect, "validation": self.validation, "empty_id": self.empty_id}
