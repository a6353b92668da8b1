"""What every dialect shares when it reads the wire and writes a request.

Owns: a dialect's own base and the deltas for events that carry no JSON object
(:mod:`.events`), fields read with their wrong types flagged and identity strings shared
(:mod:`.fields`), a provider error's one-line message and OpenAI's error body
(:mod:`.errors`), the neutral request pieces (:mod:`.requests`), a head's events read once
for every provider's recognition (:mod:`.recognition`), and a provider's hand-over to its
package's recognition, dialect and tool modules (:mod:`.package`). Nothing here knows one
dialect's events; each dialect's package imports from here, never from another dialect's.
"""
