"""File ▸ Bug report…: the bug report of the capture on show, previewed as the Help pages are,
with Copy as Markdown and Save (:mod:`.bugreport`).
"""
