"""Reading captures written by older versions of the tool: step-by-step format migrations.

Modelled on mitmproxy's ``io/compat.py``: the capture format version is an integer that is
independent of the tool's release number, and every change to the format gets a new version
plus one converter in :data:`CONVERTERS`, keyed by the version it converts *from*.
:func:`migrate` applies them one after another until the data is at :data:`CURRENT_VERSION`,
so a reader only ever has to understand the current format.

Invariants:
- Files are never rewritten: migration happens in memory, while reading.
- A converter receives the header and the record stream of version ``N`` and returns the
  header and record stream of a later version, with ``header["version"]`` set to it (usually
  ``N + 1``). Record streams are lazy iterators, so a converter should map them lazily
  (a generator) rather than build a list: captures can be large.
- A version newer than :data:`CURRENT_VERSION` is refused with a message asking the user to
  upgrade; a version with no converter path is refused too. Neither is ever guessed at.

Adding format version 2 means: bump :data:`CURRENT_VERSION` to 2, teach the writer and the
reader the new shape, and register ``CONVERTERS[1] = convert_1_2``, a function that turns
version-1 data into version-2 data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from inspector.core.capture.format import CaptureError

CURRENT_VERSION = 2
"""The capture format version this tool writes and reads natively. Version 2 (issue 25): a
chunk record may list ``masked``, the ``[start, end)`` byte offsets in its attempt's body
where the writer masked the session's key (``*`` of the same length)."""

Header = dict[str, Any]
Record = dict[str, Any]
Converter = Callable[[Header, Iterator[Record]], tuple[Header, Iterator[Record]]]
"""Turns (header, records) of one version into those of a later one (see module docstring)."""


def convert_1_2(header: Header, records: Iterator[Record]) -> tuple[Header, Iterator[Record]]:
    """Version 1 has no ``masked`` ranges (it stored response chunks unmasked): its records
    are version 2's as they are."""
    header["version"] = 2
    return header, records


CONVERTERS: dict[int, Converter] = {1: convert_1_2}
"""Registry of converters, keyed by the version they convert from."""


def _error(reason: str) -> CaptureError:
    return CaptureError(reason)


def file_version(header: Header) -> int:
    """The format version a header declares; CaptureError when it is missing or not an int."""
    version = header.get("version")
    if type(version) is not int:
        raise _error(f"capture header has no valid 'version' (got {version!r})")
    return version


def migrate(header: Header, records: Iterator[Record]) -> tuple[Header, Iterator[Record]]:
    """Bring ``header`` and ``records`` from the file's version up to :data:`CURRENT_VERSION`.

    Raises CaptureError (without a path or line: the caller adds them) for a version newer
    than this tool supports or one no chain of converters leads from. The header passed in
    is not modified; converters get a copy.
    """
    current = CURRENT_VERSION
    version = file_version(header)
    if version > current:
        raise _error(
            f"capture version {version} is newer than this tool supports ({current}); "
            "upgrade toolcall-inspector"
        )
    while version != current:
        converter = CONVERTERS.get(version)
        if converter is None:
            raise _error(
                f"capture version {version} is not supported: "
                f"no migration from it to version {current}"
            )
        header, records = converter(dict(header), records)
        new_version = header.get("version")
        if type(new_version) is not int or not version < new_version <= current:
            # A bug in the converter table, not in the file: a loop or a jump past current.
            raise RuntimeError(
                f"capture converter from version {version} produced version {new_version!r}"
            )
        version = new_version
    return header, records
