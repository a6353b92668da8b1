"""What every dialect shares when it reads the wire and writes a request.

Owns: a dialect's own base and the deltas for events that carry no JSON object
(:mod:`.events`), fields read with their wrong types flagged and identity strings shared
(:mod:`.fields`), a provider error's one-line message and OpenAI's error body
(:mod:`.errors`), the neutral request pieces (:mod:`.requests`), and a head's events read
once for every provider's recognition (:mod:`.recognition`). Nothing here knows one
dialect's events; each dialect's package imports from here, never from another dialect's.
"""
