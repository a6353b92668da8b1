"""The session timeline: chunks, calls open to close, tool execution and round boundaries,
painted from core state (:mod:`.timeline`).
"""
