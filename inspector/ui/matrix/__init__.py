"""The Matrix view (Live ▸ Matrix…): its window (:mod:`.matrix`), grid (:mod:`.grid`), runs
(:mod:`.run`) and spec builder (:mod:`.spec`), and how the main window reaches it
(:mod:`.opener`, the only module the window imports before the view is first opened).
"""
