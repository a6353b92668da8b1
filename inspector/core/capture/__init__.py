"""Captures: the bytes a session received, exactly, with their times and the request behind them.

Owns the capture file format (:mod:`.format`), the crash-safe writer that redacts secrets
before anything is serialised (:mod:`.writer`), the records checked into attempts
(:mod:`.records`), the reader (:mod:`.reader`, its lines a batch at a time in
:mod:`.lines`) and the migrations from older versions (:mod:`.compat`). It sits just above
:mod:`inspector.core.base` and below every stage: a capture is the pipeline's input, and it
knows nothing of dialects or verdicts.
"""
