"""A whole session judged: attempts, rounds of a tool loop, and the turns sent back.

:mod:`.session` holds :class:`Analysis`, the one object every front end (window, ``analyze``,
live sessions, replay) drives; :mod:`.rounds` lays a tool loop's session out by round;
:mod:`.continuation` holds the tool results and assistant turns a loop sends back. It sits on
top of the pipeline stages and below the providers, which are passed into it.
"""
