"""What to send: profiles (where), scenarios (what to ask, which tools), and the request a
live session builds from them. Above the providers, because building a request is theirs.
"""
