"""HAR test data: the shapes real tools (Chrome, Firefox, mitmproxy, Charles, Proxyman …) write
an LLM session in (:mod:`.shapes`, each builder citing where its shape comes from), and the HAR
1.2 schema written from the spec (``har-1.2.schema.json``) that every export is validated
against."""
