"""HTTP clients that act on the three moves: one small module per client library.

- `errconv.clients.httpx`: `Transport` and `AsyncTransport`, wrapping another httpx
  transport (httpx's own by default);
- `errconv.clients.httpx2`: the same for httpx2, which the OpenAI and Anthropic SDKs
  build on (`OpenAI(http_client=httpx2.Client(transport=...), max_retries=0)`);
- `errconv.clients.requests`: `Adapter`, a requests `HTTPAdapter` (and so for
  stripe-python's `RequestsClient(session=...)`);
- `errconv.clients.tenacity`: `wait_fault` and `retry_if_fault`;
- `errconv.clients.stamina`: `backoff_hook`.

Each reads a failed response with `errconv.from_http` (body and headers: RetryInfo,
`retry_after_seconds`, Retry-After, `x-should-retry`, `Stripe-Should-Retry` ...) and
acts through `errconv.retry.RetryPolicy` (one loop, one set of rules) and, optionally,
`errconv.retry.TerminalGuard`: a wait is repeated after exactly the stated delay, a
fix_request or a give_up is never repeated, and a wait longer than the policy's
`max_sleep` is given up at once with `WaitTooLong`, which carries the delay.

Importing this package imports no client library; each module imports its own when
it is imported, and names the extra to install when it is missing.
"""

from ._core import StoppedError, WaitTooLong, stopped

__all__ = ["StoppedError", "WaitTooLong", "stopped"]
