"""The session's verdict in one line: whether the stream can be assembled, and which client
libraries it breaks. The window's status line, ``analyze``'s text and ``--json``
(``headline``) all say :func:`headline`; none words a verdict line of its own.

Invariants:
- The first half is a :data:`~inspector.core.reports.words.SessionWord`, decided from the same
  facts as the exit code (:func:`~inspector.core.reports.exitcodes.session_status`): a failed
  request or an interrupted attempt first (with its short reason), then ``INVALID`` (an
  invalid call, or a body that is not UTF-8, with its reason), ``not checked`` (validation
  off), ``valid``. A session whose request failed is never ``valid``.
- The second half is :meth:`ClientsVerdict.phrase` (``breaks 2 clients: …``, ``every client
  agrees``). After a failed request the clients raise too, which is agreement, so the phrase
  is added only when some client breaks (one that raises nothing); after a body that is not
  UTF-8 it is always added: clients differ there (some raise, some read U+FFFD).
- When some lane of the last attempt is not a function call, the word is followed by the
  agent's calls and the hosted items counted apart (``valid (1 agent call · 6 hosted items)
  — every client agrees``); a session of function calls reads as it always did.
- While the last attempt's body is still arriving the headline is ``streaming`` and no
  replica runs (replicas run lazily, on ended attempts, cached per stream state).
"""

from __future__ import annotations

from inspector.core.analysis.session import Analysis
from inspector.core.reports.clients import ClientsVerdict, clients_verdict
from inspector.core.reports.exitcodes import SessionStatus, session_status
from inspector.core.reports.kinds import counts_phrase, shows_kinds
from inspector.core.reports.words import SessionWord, shown_word

DASH = " — "
"""Between the session word and what follows it."""


def session_word(analysis: Analysis, status: SessionStatus | None = None) -> SessionWord:
    """The word the headline leads with (see the module's invariants)."""
    if not analysis.final.state.ended:
        return "streaming"
    status = status or session_status(analysis)
    if status.first is not None and status.first[0] in ("failed", "interrupted"):
        return "failed" if status.first[0] == "failed" else "interrupted"
    if status.first is not None or status.calls:  # a body that is not UTF-8, invalid calls
        return "invalid"
    return "not checked" if analysis.settings.validation == "off" else "valid"


def headline(
    analysis: Analysis,
    clients: ClientsVerdict | None = None,
    status: SessionStatus | None = None,
) -> str:
    """The session's verdict in one line, for every view (window status line, ``analyze``
    text and JSON):

    - ``valid — every client agrees``; ``valid — breaks 2 clients: openai-python (doubled
      id), langchain (phantom calls)``; ``not checked — every client agrees`` (validation
      off); ``INVALID — breaks 1 client: litellm (merged)`` (an invalid call);
    - ``failed — HTTP 401`` (``failed — HTTP 401; breaks 1 client: x (silent failure)``
      when a client raises nothing); ``interrupted — attempt 2 has no end record``;
      ``INVALID — the body is not valid UTF-8 at byte 57; breaks 1 client: openai-python
      (raised)``;
    - ``streaming`` while the last attempt's body arrives.

    ``clients`` reuses a verdict already made (default: every registered replica, run lazily
    and cached); ``status`` likewise for :func:`session_status`.
    """
    word = session_word(analysis, status)
    if word == "streaming":
        return word
    status = status or session_status(analysis)
    clients = clients or clients_verdict(analysis)
    head = shown_word(word)
    final = analysis.final
    if shows_kinds(final):  # hosted, built-in or custom items: the agent's calls apart
        head += f" ({counts_phrase(final)})"
    if status.first is None:
        return head + DASH + clients.phrase()
    reason = head + DASH + status.first[1]
    if word == "invalid" or clients.broken:  # a body that is not UTF-8: always say who breaks
        return reason + "; " + clients.phrase()
    return reason
