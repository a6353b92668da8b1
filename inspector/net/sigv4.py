"""AWS SigV4 request signing for a Bedrock profile (``Profile.aws_region``), with ``botocore``
(the optional ``bedrock`` extra: ``pip install toolcall-inspector[bedrock]``).

Invariants:
- Credentials come from botocore's usual chain (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``/
  ``AWS_SESSION_TOKEN``, ``AWS_PROFILE`` and the shared files, SSO, container and instance
  roles) at the moment a request is sent; they are never stored, logged or written. What is
  added is only the signature headers (``authorization``, ``x-amz-date``,
  ``x-amz-security-token``), after the capture recorded the request's headers, so a capture
  never holds them (and the capture's redaction would drop them by name anyway).
- The signature covers the exact bytes sent (the caller passes the encoded body).
- Failures are one line (:class:`SigningError`): botocore missing, no credentials found.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .errors import LiveError

SERVICE: Final = "bedrock"
"""The SigV4 service name of bedrock-runtime."""
SIGNED: Final = ("authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256")
"""The headers a signature adds."""


class SigningError(LiveError):
    """A request that cannot be signed: no botocore, or no AWS credentials."""


def credentials(session: Any = None) -> Any:
    """Frozen credentials from the usual AWS chain; :class:`SigningError` when none."""
    try:
        from botocore.session import Session
    except ImportError:
        raise SigningError(
            "signing Bedrock requests needs botocore: pip install 'toolcall-inspector[bedrock]'"
        ) from None
    found = (session or Session()).get_credentials()
    if found is None:
        raise SigningError(
            "no AWS credentials for SigV4: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
            "(or AWS_PROFILE, SSO, an instance role: the usual AWS chain)"
        )
    return found.get_frozen_credentials()


def signature(
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: bytes,
    region: str,
    frozen: Any = None,
) -> dict[str, str]:
    """The headers that sign ``method url`` with ``headers`` and ``body`` for ``region``
    (credentials from :func:`credentials` unless given)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest

    frozen = frozen if frozen is not None else credentials()
    request = AWSRequest(method=method, url=url, data=body, headers=dict(headers))
    SigV4Auth(frozen, SERVICE, region).add_auth(request)
    return {k.lower(): str(v) for k, v in request.headers.items() if k.lower() in SIGNED}
