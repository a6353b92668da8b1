"""The ``anthropic-sdk`` replica: ``client.messages.stream(...)`` and its final message
(:mod:`.replica`), with the JSON semantics it re-parses tool input with, jiter's partial mode
(:mod:`.jiter_partial`).
"""
