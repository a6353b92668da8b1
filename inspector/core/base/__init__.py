"""The bottom layer: the vocabulary every stage shares, and nothing else.

Owns the wire and delta types (:mod:`.model`: ``SSEEvent``, ``Delta``, ``ToolCallDelta``, the
``OMITTED`` marker that keeps "absent" apart from ``None`` and ``""``), the one exception
type users see (:mod:`.errors`), and the :class:`~.provider.Provider` protocol with the small
types it speaks in (:mod:`.provider`: how stages use a provider without naming one). It
imports no other part of the core, so every stage may import it.
"""
