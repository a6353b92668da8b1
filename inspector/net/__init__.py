"""The network side: live sessions over asyncio and httpx, and the servers the inspector runs.

No Qt here (import-linter's "net has no Qt" contract): the window drives these coroutines on
its qasync loop, the command line on a plain one. What it owns:

- one physical request, streamed and recorded byte by byte as it arrives (:mod:`.client`),
  and what can go wrong in a live session, as one tree of errors (:mod:`.errors`);
- the session runner every live session runs on (:mod:`.runner`: connect, stream, record,
  retry, cancel), its states and "round R · attempt N" (:mod:`.runstate`), the settings and
  retry rule it obeys (:mod:`.policy`), a coroutine run once and cancellable (:mod:`.runonce`),
  and the one-request session under the retry rule (:mod:`.session`);
- the streaming-dispatch tool loop (:mod:`.toolloop`), each call judged and run the moment it
  closes (:mod:`.dispatch`), with the built-in demo tools (:mod:`.tools`);
- the embedded demo provider (:mod:`.demo`), the recording proxy (:mod:`.proxy`), the
  compatibility matrix's runner (:mod:`.matrix`), a capture answered as a provider
  (:mod:`.serve`), the loopback listener the demo and ``serve`` share (:mod:`.listen`), and
  Bedrock's SigV4 request signing (:mod:`.sigv4`).

Nothing here parses or judges a stream: the bytes go to the core (``inspector.core``), which
decides what they say.
"""
