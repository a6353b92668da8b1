"""What every window feature stands on: colours and badges (:mod:`.theme`), the dialogs and the
headless rule (:mod:`.dialogs`), a window's size and place on its screen (:mod:`.screenfit`)
and the thin item models over core state that several views share (:mod:`.models`). Nothing
here knows a feature.
"""
