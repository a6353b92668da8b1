"""Stage 4b, calls -> quirks: what the provider's stream does that its dialect's documentation
does not, each under a stable code, with the chunks that show it.

Owns the quirk codes and every fact about them, in one registry (:mod:`.codes` spells each
code, :mod:`.registry` says its family, scope, severity, meaning, doc anchor, detector,
public reports and what should have come instead), and their detection, grouped by family:

    lanes       tool-call fragments per wire lane, as they arrive (ids, names, indexes)
    events      the events and the deltas that carry no call fragment (comments, errors,
                finish reasons, fields of the wrong type)
    calls       one assembled call's fragments, and what the accumulator made of them
    turn        the turn as a whole once its finish or end is known

:func:`.detect.detect` runs them all, incrementally (:class:`.detect.QuirkScan`, over the
one pass :mod:`.wirescan` makes of the events and deltas). Beside ``verdicts`` in the
stages: both read calls, neither imports the other; ``analysis`` puts them together. No
provider is named here: what depends on one is asked of it (``Provider.checks``).
"""
