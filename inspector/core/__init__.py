"""The inspector's engine: pure Python, no Qt, no network, deterministic.

Laid out by stage, each sub-package importing only those below it (import-linter's ``layers``
contract in pyproject.toml enforces the order)::

    matrix      targets x scenarios: a matrix spec, each cell judged over runs   (top)
    reports     the analyzer's JSON/table, compare two settings
    clients     what each client library would hand over: one package per replica
    replay      drive an Analysis through a capture: replay, progressive load
    requests    profiles, scenarios, the request a live session sends
    providers   one package per provider: wire events -> deltas, and all it knows
    analysis    a whole session judged: attempts, rounds, tool results
    quirks      calls -> quirks: the quirk codes' registry, their detectors by family
    | verdicts  calls -> verdicts: tools, validation, judgement, attempts
                (quirks and verdicts side by side: neither imports the other)
    calls       deltas -> calls: accumulator, JSON progress, one body's stream state
    events      bytes -> events: the SSE framing (the default) and the event log
    capture     the bytes as received, with times and request: write, read, migrate
    base        shared types: wire events, deltas, OMITTED, the error type, the Provider
                protocol (implemented in providers, passed in from above), the
                settings and every default                                   (bottom)

Data flows one way: bytes -> events -> deltas -> calls -> verdicts and quirks -> reports.
"""
