"""A bug report for the people who can fix a stream's fault (``toolcall-inspector report``):
the Markdown (:mod:`.markdown`), the script that reproduces it with the affected client
(:mod:`.scripts`) and the ``--pytest`` regression test (:mod:`.regression`).

It reads the quirk registry's ``references`` and ``expected``, and the clients' verdict; it
imports nothing above ``reports``.
"""
