"""The ``google-genai`` replica: the ``function_call`` parts of
``client.models.generate_content_stream(...)``, with the SDK's own line reader and error
wording (:mod:`.replica`).
"""
