"""The bottom layer: the vocabulary every stage shares, and nothing else.

Owns the wire and delta types (:mod:`.model`: ``SSEEvent``, ``Delta``, ``ToolCallDelta``, the
``OMITTED`` marker that keeps "absent" apart from ``None`` and ``""``), the kinds of
tool-call item and who runs them (:mod:`.kinds`), the one exception
type users see (:mod:`.errors`), the :class:`~.provider.Provider` protocol with the small
types it speaks in (:mod:`.provider`: how stages use a provider without naming one), and the
user's settings with every default (:mod:`.settings`). It imports no other part of the core,
so every stage may import it.
"""
