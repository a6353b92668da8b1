"""A whole session judged: attempts, rounds of a tool loop, and the turns sent back.

:mod:`.session` holds :class:`Analysis`, the one object every front end (window, ``analyze``,
live sessions, replay) drives; :mod:`.attempt` holds one attempt judged (``AttemptView``) and
the attempts of one round (``Round``); :mod:`.judgement` holds what a verdict depends on
besides the call (settings, tools, the verdicts already given); :mod:`.rounds` holds the tool
events that lay a tool loop's session out in a capture; :mod:`.continuation` holds the tool
results and assistant turns a loop sends back. It sits on top of the pipeline stages and
below the providers, which are passed into it.
"""
