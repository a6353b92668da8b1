"""What a matrix runs: targets (profile + model) x scenarios, runs per cell, validation mode,
timeouts and concurrency limits; read from a JSON file (docs/matrix.md) and written back.

Invariants:
- Reading never half-succeeds: a bad spec is a :class:`MatrixSpecError`, one line naming the
  file and the field (``spec.json: targets[2]: unknown profile 'x' (choose from: …)``).
- No credential is ever in a spec (it is saved with the results): a header named like one
  (``authorization``, ``x-api-key`` …) or a ``base_url`` with one is refused; the key is
  named by ``key_env``.
- Pure: a target names a profile (built in, or described inline with ``dialect`` and
  ``base_url``) and a model; its key is named by ``key_env`` only, never held. Resolving the
  key and the demo's URL is the runner's.
- ``to_json`` writes what ``from_json`` reads: ``MatrixSpec.from_json(s.to_json()) == s``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, cast

import orjson

from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import DEFAULT_MODE, VALIDATION_MODES, ValidationMode
from inspector.core.capture.credentials import holds_shape
from inspector.core.capture.redaction import is_secret_name, redact_body, redact_url
from inspector.core.providers import REGISTRY
from inspector.core.requests.scenarios import (
    BUILTIN_PROFILES,
    Profile,
    Scenario,
    ScenarioError,
    find_profile,
    find_scenario,
)

SPEC_FIELDS: Final = frozenset(
    {"targets", "scenarios", "runs", "validation", "retry", "timeouts", "concurrency"}
)
TARGET_FIELDS: Final = frozenset(
    {"name", "profile", "model", "dialect", "base_url", "key_env", "headers", "options",
     "concurrency"}
)  # fmt: skip
TIMEOUT_FIELDS: Final = frozenset({"connect", "read", "session"})


class MatrixSpecError(InspectorError):
    """A matrix spec that cannot be used (one line)."""


@dataclass(frozen=True)
class Timeouts:
    """Seconds: to connect, without a byte, and for a whole session (its retry included)."""

    connect: float = 10.0
    read: float = 60.0
    session: float = 120.0


@dataclass(frozen=True)
class Target:
    """One row: a profile (built in, or inline) with a model, and how many of its sessions may
    run at once."""

    name: str
    """The row's label (default ``profile/model``); unique in a spec."""
    profile: Profile
    concurrency: int = 4

    @property
    def model(self) -> str:
        """The model every session of this row asks for."""
        return self.profile.model

    def to_json(self) -> dict[str, Any]:
        """The spec's entry for this target (inline fields only where they differ from the
        built-in profile of that name)."""
        p = self.profile
        out: dict[str, Any] = {"name": self.name, "profile": p.name, "model": p.model}
        base = next((b for b in BUILTIN_PROFILES if b.name == p.name), None)
        for key in ("dialect", "base_url", "key_env"):
            if base is None or getattr(base, key) != getattr(p, key):
                out[key] = getattr(p, key)
        if p.headers and (base is None or dict(base.headers) != dict(p.headers)):
            out["headers"] = dict(p.headers)
        if p.options and (base is None or dict(base.options) != dict(p.options)):
            out["options"] = dict(p.options)
        out["concurrency"] = self.concurrency
        return out


@dataclass(frozen=True)
class MatrixSpec:
    """The whole matrix: rows (targets), columns (scenarios) and how each cell is run."""

    targets: tuple[Target, ...]
    scenarios: tuple[Scenario, ...]
    scenario_refs: tuple[str, ...] = field(default=(), compare=False)
    """How the spec named each scenario (a built-in name or a path), for ``to_json``."""
    runs: int = 1
    validation: ValidationMode = DEFAULT_MODE
    retry: bool = True
    """The retry rule: one streaming retry of an invalid response (as a client would)."""
    timeouts: Timeouts = Timeouts()
    concurrency: int = 16
    """Sessions running at once over the whole matrix."""

    @property
    def sessions(self) -> int:
        """How many sessions the matrix runs (targets x scenarios x runs)."""
        return len(self.targets) * len(self.scenarios) * self.runs

    def target(self, name: str) -> Target:
        """The target called ``name`` (KeyError if none)."""
        for t in self.targets:
            if t.name == name:
                return t
        raise KeyError(name)

    def scenario(self, name: str) -> Scenario:
        """The scenario called ``name`` (KeyError if none)."""
        for s in self.scenarios:
            if s.name == name:
                return s
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        """The spec as its JSON file says it."""
        refs = self.scenario_refs or tuple(s.name for s in self.scenarios)
        return {
            "targets": [t.to_json() for t in self.targets],
            "scenarios": list(refs),
            "runs": self.runs,
            "validation": self.validation,
            "retry": self.retry,
            "timeouts": {"connect": self.timeouts.connect, "read": self.timeouts.read,
                         "session": self.timeouts.session},
            "concurrency": self.concurrency,
        }  # fmt: skip

    @classmethod
    def from_json(cls, obj: Any, where: str = "spec", base: Path | None = None) -> MatrixSpec:
        """A spec from its JSON value; MatrixSpecError (one line, prefixed ``where``).
        ``base``: the folder relative scenario paths are read from (the spec's own)."""
        if not isinstance(obj, dict):
            raise MatrixSpecError(f"{where}: a matrix spec is a JSON object")
        _unknown(obj, SPEC_FIELDS, where)
        targets = obj.get("targets")
        if not isinstance(targets, list) or not targets:
            raise MatrixSpecError(f"{where}: 'targets' must be a non-empty list")
        rows = tuple(_target(t, f"{where}: targets[{i}]") for i, t in enumerate(targets))
        names = [t.name for t in rows]
        dup = next((n for n in names if names.count(n) > 1), None)
        if dup is not None:
            raise MatrixSpecError(f"{where}: two targets are named {dup!r} (give one a 'name')")
        refs = obj.get("scenarios")
        if not isinstance(refs, list) or not refs or not all(isinstance(r, str) for r in refs):
            raise MatrixSpecError(f"{where}: 'scenarios' must be a non-empty list of names/paths")
        scenarios = tuple(_scenario(r, base, f"{where}: scenarios") for r in refs)
        cols = [s.name for s in scenarios]
        dup = next((n for n in cols if cols.count(n) > 1), None)
        if dup is not None:
            raise MatrixSpecError(f"{where}: scenario {dup!r} is listed twice")
        validation = obj.get("validation", DEFAULT_MODE)
        if validation not in VALIDATION_MODES:
            raise MatrixSpecError(
                f"{where}: 'validation' must be one of {', '.join(VALIDATION_MODES)}"
            )
        retry = obj.get("retry", True)
        if not isinstance(retry, bool):
            raise MatrixSpecError(f"{where}: 'retry' must be true or false")
        return cls(
            rows, scenarios, tuple(refs),
            runs=_count(obj, "runs", 1, where, most=100),
            validation=cast(ValidationMode, validation), retry=retry,
            timeouts=_timeouts(obj.get("timeouts", {}), where),
            concurrency=_count(obj, "concurrency", 16, where, most=256),
        )  # fmt: skip


def load_spec(path: str | Path) -> MatrixSpec:
    """A spec file; MatrixSpecError naming the file when it cannot be read or used."""
    p = Path(path)
    try:
        obj = orjson.loads(p.read_bytes())
    except OSError as exc:
        raise MatrixSpecError(f"{p}: cannot read: {exc.strerror or exc}") from None
    except orjson.JSONDecodeError as exc:
        raise MatrixSpecError(f"{p}: not valid JSON: {exc}") from None
    return MatrixSpec.from_json(obj, str(p), p.parent)


def _unknown(obj: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    unknown = sorted(set(obj) - known)
    if unknown:
        raise MatrixSpecError(f"{where}: unknown field(s) {', '.join(unknown)}")


def _count(obj: Mapping[str, Any], key: str, default: int, where: str, *, most: int) -> int:
    value = obj.get(key, default)
    if type(value) is not int or not 1 <= value <= most:
        raise MatrixSpecError(f"{where}: {key!r} must be a whole number from 1 to {most}")
    return value


def _timeouts(obj: Any, where: str) -> Timeouts:
    if not isinstance(obj, dict):
        raise MatrixSpecError(f"{where}: 'timeouts' must be an object")
    _unknown(obj, TIMEOUT_FIELDS, f"{where}: timeouts")
    values: dict[str, float] = {}
    for key, value in obj.items():
        if type(value) not in (int, float) or not 0 < value <= 3600:
            raise MatrixSpecError(f"{where}: timeouts.{key} must be seconds in (0, 3600]")
        values[key] = float(value)
    return Timeouts(**values)


def _strings(obj: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = obj.get(key) or {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise MatrixSpecError(f"{where}: {key!r} must be an object of strings")
    return {str(k): v for k, v in value.items()}


def _target(obj: Any, where: str) -> Target:
    if not isinstance(obj, dict):
        raise MatrixSpecError(f"{where} is not an object")
    _unknown(obj, TARGET_FIELDS, where)
    for key in ("name", "profile", "model", "dialect", "base_url", "key_env"):
        if key in obj and obj[key] is not None and not (isinstance(obj[key], str) and obj[key]):
            raise MatrixSpecError(f"{where}: {key!r} must be a non-empty string")
    if "profile" not in obj:
        raise MatrixSpecError(f"{where} has no 'profile'")
    profile = _profile(obj, where)
    options = obj.get("options")
    if options is not None and not isinstance(options, dict):
        raise MatrixSpecError(f"{where}: 'options' must be an object")
    headers = _strings(obj, "headers", where)
    secret = next((h for h, v in headers.items() if is_secret_name(h) or holds_shape(v)), None)
    if secret is None and isinstance(options, dict):
        hidden = redact_body(options, ())
        secret = next((f"option {k!r}" for k in options if hidden.get(k) != options[k]), None)
    if secret is not None or redact_url(obj.get("base_url") or "") != (obj.get("base_url") or ""):
        what = (
            "'base_url'"
            if secret is None
            else secret
            if secret.startswith("option ")
            else (f"header {secret!r}")
        )
        raise MatrixSpecError(
            f"{where}: {what} would hold a credential: a spec is saved with the results, "
            "so name the variable holding it in 'key_env'"
        )
    profile = replace(
        profile,
        model=obj.get("model") or profile.model,
        headers={**profile.headers, **headers},
        options={**profile.options, **(options or {})},
    )
    name = obj.get("name") or f"{profile.name}/{profile.model}"
    return Target(name, profile, _count(obj, "concurrency", 4, where, most=64))


def _profile(obj: Mapping[str, Any], where: str) -> Profile:
    """The built-in profile ``obj["profile"]`` with the inline fields over it, or a profile
    described inline (``dialect`` + ``base_url`` + ``model``) under a new name."""
    name = obj["profile"]
    inline = {k: obj[k] for k in ("dialect", "base_url", "key_env") if k in obj}
    try:
        base = find_profile(name)
    except ScenarioError as exc:
        if not {"dialect", "base_url"} <= set(inline) or "model" not in obj:
            raise MatrixSpecError(f"{where}: {exc} or describe it inline with "
                                  "'dialect', 'base_url' and 'model'") from None  # fmt: skip
        base = Profile(name, inline["dialect"], inline["base_url"], obj["model"])
    profile = replace(base, **inline)
    if profile.dialect not in REGISTRY.names():
        raise MatrixSpecError(f"{where}: dialect must be one of {', '.join(REGISTRY.names())}")
    return profile


def _scenario(ref: str, base: Path | None, where: str) -> Scenario:
    path = Path(ref)
    if base is not None and ref.endswith(".json") and not path.is_absolute():
        path = base / path
    try:
        return find_scenario(str(path) if ref.endswith(".json") else ref)
    except ScenarioError as exc:
        raise MatrixSpecError(f"{where}: {exc}") from None
