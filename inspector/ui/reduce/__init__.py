"""Reducing the capture on show from the window (a quirk's or a client row's context menu
"Reduce to a minimal capture…"): :mod:`.reduce`.
"""
