"""Tool-Call Inspector: see how an LLM provider streams tool calls, fragment by fragment."""

__version__ = "0.1.0"
