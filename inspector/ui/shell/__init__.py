"""The window's frame: the application and screenshot mode (:mod:`.app`), the main window that
builds every feature and wires it to the document (:mod:`.mainwindow`), its menus
(:mod:`.menus`) and Help (:mod:`.help`) over the window's intents (:mod:`.intents`), and the
status line (:mod:`.statusline`).
"""
