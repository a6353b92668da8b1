"""The desktop window (PySide6): thin adapters over core state, a folder per feature.

Laid out in layers, each part importing only those below it (import-linter's ``layers``
contract in pyproject.toml keeps the order; parts on one line import none of each other)::

    shell       the application, the main window that builds every feature, menus, Help   (top)
    har  matrix  proxy  compare  views     the features: HAR files, Live ▸ Matrix…, Live ▸
                                           Proxy…, View ▸ Compare, the document's views
    clients  panes  timeline  live         the views' parts (Clients view, raw wire / problems
                                           / turn / attempts, timeline) and live sessions
    lanes  document                        one lane per call; the open document, its clock,
                                           its toolbar and the Host a feature asks
    loading  base                          progressive open; theme, dialogs, item models  (bottom)

A feature takes the window as a :class:`~inspector.ui.document.host.Host` (the document, the
settings, the status line, ``open``), never the main window's class; the menus and Help take
:class:`~inspector.ui.shell.intents.Intents`. Nothing here parses or judges: the core does.
"""
