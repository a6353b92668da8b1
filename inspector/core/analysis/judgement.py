"""What a call's verdict depends on besides the call: the settings, the tools in force, and a
cache of the verdicts already given.

Invariants:
- ``generation`` grows whenever something a verdict or an attempt record may depend on has
  changed (new data, another setting, other tools). A value derived under one generation
  stays current until it grows, so readers cache by it and nothing needs a "dirty" flag.
- A verdict is recomputed only when its call or the settings changed since (a view reads
  verdicts on every flush; re-validating every buffer each time would grow with the stream).
- It refers to the streams it judges and to the capture, never to an attempt or an Analysis:
  attempts refer to it, and the core makes no reference cycles (the window freezes the
  garbage collector's view of everything read).
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.model import Delta, DeltaKind
from inspector.core.base.provider import Providers
from inspector.core.base.settings import Settings
from inspector.core.calls.stream import StreamState
from inspector.core.calls.toolcall import ToolCall
from inspector.core.capture.records import Capture
from inspector.core.verdicts.judge import CallVerdict, call_shape, judge_call, registry_for
from inspector.core.verdicts.tools import ToolRegistry


class Judgement:
    """The judging half of one :class:`inspector.core.analysis.session.Analysis`."""

    def __init__(
        self, settings: Settings, tools: ToolRegistry | None, providers: Providers
    ) -> None:
        self.settings = settings
        """The settings in force (replace through :meth:`Analysis.apply`)."""
        self.user_tools = tools
        """Tools the user supplied (take precedence over any found in the capture)."""
        self.providers = providers
        """Whose tool-definition shapes the capture's (or a stream's) tools are read in."""
        self.capture: Capture | None = None
        """The capture being judged, if any (its request body may carry tool definitions)."""
        self.streams: list[StreamState] = []
        """Every attempt's stream, in order (a Responses stream may echo its tools)."""
        self.generation = 0
        """Grows on every change that may change a verdict (see the module docstring)."""
        self._verdicts: dict[StreamState, list[CallVerdict | None]] = {}  # by call slot
        self._under: tuple[Any, ...] = (None, None, None)  # what verdicts are judged under
        self._tools: ToolRegistry | None = None
        self._tools_generation = -1

    def changed(self) -> None:
        """Something a verdict may depend on changed: every derived value is stale."""
        self.generation += 1

    def forget_verdicts(self) -> None:
        """The calls are about to be rebuilt (another empty-id policy): old verdicts must not
        linger, nor keep old calls alive."""
        self._verdicts.clear()
        self.changed()

    def tools(self) -> ToolRegistry | None:
        """The tools calls are judged against, resolved at most once per generation: the
        user's, else the capture's request body's, else those a Responses stream echoes in
        ``response.created`` (a registry comes from :func:`registry_for`, cached by its
        definitions list). None when no tools are known."""
        if self._tools_generation != self.generation:
            self._tools = self._resolve_tools()
            self._tools_generation = self.generation
        return self._tools

    def basis(self, state: StreamState) -> tuple[Any, ...]:
        """What ``state``'s verdicts are judged under now: (validation mode, tools, empty-id
        policy), the same object for as long as none of them changes (a reader that kept it
        knows by identity whether every verdict may have changed)."""
        registry = self.tools()
        mode = self.settings.validation
        under = self._under
        if under[0] != mode or under[1] is not registry or under[2] != state.empty_id:
            under = self._under = (mode, registry, state.empty_id)
        return under

    def verdict(self, state: StreamState, call: ToolCall) -> CallVerdict:
        """``call`` (of ``state``) judged under the current settings and tools, from the cache
        while neither the call nor they changed. A call still open is not validated yet."""
        under = self.basis(state)
        mode, registry = under[0], under[1]
        shape = call_shape(call)
        kept = self._verdicts.get(state)
        if kept is None:
            kept = self._verdicts[state] = []
        slot = call.slot
        cached = kept[slot] if slot < len(kept) else None
        if (
            cached is not None
            and cached.call is call
            and cached.shape == shape
            and cached.under is under
        ):
            return cached
        verdict = judge_call(state, call, mode, registry)
        verdict.shape, verdict.under = shape, under
        if slot >= len(kept):
            kept.extend([None] * (slot + 1 - len(kept)))
        kept[slot] = verdict
        return verdict

    def _resolve_tools(self) -> ToolRegistry | None:
        if self.user_tools is not None:
            return self.user_tools
        source = self._tool_source()
        return registry_for(source, self.providers) if source is not None else None

    def _tool_source(self) -> Any:
        if self.capture is not None and self.capture.tools:
            return self.capture.tools
        for state in self.streams:
            for d in state.deltas[:8]:
                if isinstance(d, Delta) and d.kind == DeltaKind.META and type(d.value) is dict:
                    response = d.value.get("response")  # wire data: any type (the dialect
                    tools = response.get("tools") if type(response) is dict else None  # says)
                    if tools and type(tools) is list:
                        return tools
        return None
