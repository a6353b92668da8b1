"""HAR files in the window: opening one (a picker when it holds several LLM sessions) and
File ▸ Export as HAR… (:mod:`.har`).
"""
