"""Tool-Call Inspector: see how an LLM provider streams tool calls, fragment by fragment."""

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "toolcall-inspector"
"""The name the package is installed under (pyproject.toml's ``[project] name``)."""

try:
    __version__ = version(DISTRIBUTION)
    """The installed metadata's version: the one string the build wrote (pyproject.toml)."""
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
