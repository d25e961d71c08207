"""Provider errors recognised by class name, status code, provider code or message, through wrappers."""

from __future__ import annotations

import pytest

from langacp_stop_reasons import classify


def error(name: str, message: str = "boom", **attrs: object) -> Exception:
    exc = type(name, (Exception,), {})(message)
    for key, value in attrs.items():
        setattr(exc, key, value)
    return exc


class Response:
    def __init__(self, status_code: int, headers: dict[str, str]) -> None:
        self.status_code = status_code
        self.headers = headers


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (error("ResourceExhausted", "429 quota", code=429), "rate_limit"),  # google.api_core
        (error("APIStatusError", response=Response(429, {})), "rate_limit"),
        (error("Unauthenticated", code=401), "auth"),
        (error("HTTPStatusError", response=Response(403, {})), "auth"),
        (error("ReadTimeout"), "network"),  # httpx
        (TimeoutError("timed out"), "network"),
        (error("InternalServerError", status_code=500), "overloaded"),
        (
            error("BadRequestError", "prompt is too long: 210000 tokens > 200000 maximum", status_code=400),
            "context_length",
        ),
        (error("APIError", "rejected", code="content_filter"), "refusal"),
        (error("RateLimitError", body={"error": {"type": "insufficient_quota"}}, status_code=429), "quota"),
    ],
)
def test_kinds(exc: Exception, kind: str) -> None:
    found = classify(exc)
    assert found is not None and found.kind == kind
    assert found.user_message()


def test_wrapped_errors_and_retry_after() -> None:
    cause = error("RateLimitError", response=Response(429, {"retry-after-ms": "1500"}), status_code=429)
    try:
        try:
            raise cause
        except Exception as inner:
            raise RuntimeError("node failed") from inner
    except RuntimeError as outer:
        found = classify(outer)
    assert found is not None and found.kind == "rate_limit" and found.retry_after == 1.5 and found.status == 429


def test_other_errors_are_not_provider_errors() -> None:
    assert classify(ValueError("bad argument")) is None
    assert classify(error("BadRequestError", "unknown parameter", status_code=400)) is None
