"""What each popular client library would have assembled from the same bytes.

A *replica* is a behavioural model of one library's streaming accumulator (openai-python's
``ChatCompletionStreamState``, LiteLLM's ``stream_chunk_builder``, LangChain's
``AIMessageChunk`` merge, …), written here in plain Python: the library itself is never
imported at run time. Each replica names the library version and the source file it follows,
and is held to the real library by golden files (``make verify-clients`` writes them;
``make test`` compares).

Invariants:
- A replica reads one attempt's wire events (:class:`~.base.Exchange`) in order and either
  hands over calls (id, name, arguments string) or raises what the library raises
  (:class:`~.base.ClientRaised`: the exception's class name and message).
- A replica speaks only the dialects its library speaks; for the others its result is
  ``n/a`` (:data:`~.judge.NOT_APPLICABLE`), never agreement.
- Replicas run lazily, when a view or ``analyze`` asks (:func:`~.judge.judge_clients`), never
  during ingest.
- This stage sits just below ``reports``: it reads an :class:`Analysis`, names no provider
  module, and only declares the dialect names its replicas speak.

Layout: the driver at the top (the protocol in :mod:`.base`, the runs and ``diverges_at`` in
:mod:`.judge`, the calls compared in :mod:`.handed`, where a library's own reading of the body
lands in :mod:`.pins`, what a run would cost in :mod:`.cost`, the one list in :mod:`.registry`);
one package per library with its SDK reader and JSON semantics (``openai_python``, ``litellm``,
``langchain``, ``vercel_ai``, ``anthropic_sdk``, ``google_genai``, ``handwritten``); and a
package named for what it is where several replicas share a library's behaviour
(``openai_sdk``: the openai SDK's SSE layer and chunks; ``pydantic``: its lax checks and
``ValidationError`` wording); and ``plain``: the plain stream, on which the replicas that
declare it are judged from the inspector's own calls instead of replayed. A replica's
package imports the driver and shared packages, never another replica's.
"""
