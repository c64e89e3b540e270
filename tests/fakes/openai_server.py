"""A fake OpenAI-compatible embeddings server: real HTTP on loopback, deterministic, scriptable.

    with FakeOpenAIServer(dim=32) as server:
        embedder = OpenAIEmbedder(server.url, "fake")
        server.fail_next(2, status=429, retry_after=1.5)
        embedder.embed_query("…")          # two 429s, then an answer
        server.count, server.batch_sizes  # what arrived

It serves `POST /v1/embeddings` from a stdlib HTTP server on 127.0.0.1 (a free port) in a background
thread, so a client is tested over its real transport with no monkeypatching. Vectors are a signed
bag-of-words hashing embedding (`vector()`): texts that share words are close. `data` comes back in
reverse order unless `scramble=False`, so clients must order by `index`. Scripted faults are spent
one per request, in the order they were scripted. Timestamps come from `clock` (injectable).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Generic, Self, TypeVar

WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour: `status` (an error answer), `nan`, `zero`, `width` or `slow`."""

    kind: str
    status: int = 500
    retry_after: float | None = None
    message: str = "scripted failure"
    width: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class Request:
    """One request as the server saw it."""

    time: float
    path: str
    model: str | None
    inputs: tuple[str, ...]
    authorization: str | None
    status: int


FaultT = TypeVar("FaultT")
RequestT = TypeVar("RequestT")


class LoopbackServer(Generic[FaultT, RequestT]):
    """A stdlib HTTP server on 127.0.0.1 (a free port) in a background thread; `_answer` answers.

    It keeps the scripted faults (taken one per answer, in order) and the requests that arrived.

    Subclasses implement `_answer(path, body, authorization) -> (status, payload, headers, delay)`:
    the payload is JSON-encoded unless it is `bytes` (sent as it is, for malformed answers), and a
    delay is waited before answering (cut short when the server closes).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._faults: deque[FaultT] = deque()
        self._requests: list[RequestT] = []
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> Self:
        fake: LoopbackServer[Any, Any] = self

        class Handler(_Handler):
            server_fake = fake

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = False  # close() joins every handler thread
        httpd.block_on_close = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()  # cut slow answers short
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()
        self._httpd = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def root(self) -> str:
        """`http://127.0.0.1:PORT`, no path."""
        if self._httpd is None:
            raise RuntimeError("the fake server is not running; use it as a context manager")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def fail_next(
        self,
        times: int = 1,
        *,
        status: int = 500,
        retry_after: float | None = None,
        message: str = "scripted failure",
    ) -> None:
        """Answer the next `times` requests with `status` (and `Retry-After` when given) and the
        protocol's error body."""
        self._script(times, self._status_fault(status, retry_after, message))

    def _status_fault(self, status: int, retry_after: float | None, message: str) -> FaultT:
        raise NotImplementedError

    def _script(self, times: int, fault: FaultT) -> None:
        with self._lock:
            self._faults.extend([fault] * times)

    def _next_fault(self) -> FaultT | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _record(self, request: RequestT) -> None:
        with self._lock:
            self._requests.append(request)

    @property
    def requests(self) -> list[RequestT]:
        with self._lock:
            return list(self._requests)

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._requests)

    def _answer(
        self, path: str, body: Any, authorization: str | None
    ) -> tuple[int, Any, dict[str, str], float]:
        raise NotImplementedError


class FakeOpenAIServer(LoopbackServer["Fault", "Request"]):
    def __init__(
        self,
        dim: int = 32,
        *,
        api_key: str | None = None,
        scramble: bool = True,
        max_batch: int = 2048,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(clock)
        self.dim, self.api_key, self.scramble, self.max_batch = dim, api_key, scramble, max_batch

    @property
    def url(self) -> str:
        """The base URL, ending in /v1 (an OpenAI client appends /embeddings)."""
        return f"{self.root}/v1"

    # -- scripting ------------------------------------------------------------------------------

    def _status_fault(self, status: int, retry_after: float | None, message: str) -> Fault:
        return Fault("status", status, retry_after, message)

    def nan_next(self, times: int = 1) -> None:
        """The next answers carry a NaN in their first vector."""
        self._script(times, Fault("nan"))

    def zero_next(self, times: int = 1) -> None:
        """The next answers carry an all-zero first vector."""
        self._script(times, Fault("zero"))

    def wrong_width_next(self, times: int = 1, width: int | None = None) -> None:
        """The next answers' vectors are `width` wide (default dim + 1): the model changed."""
        self._script(times, Fault("width", width=width or self.dim + 1))

    def slow_next(self, times: int = 1, seconds: float = 1.0) -> None:
        """The next answers wait `seconds` first (cut short when the server closes)."""
        self._script(times, Fault("slow", seconds=seconds))

    # -- what arrived ---------------------------------------------------------------------------

    @property
    def batch_sizes(self) -> list[int]:
        return [len(r.inputs) for r in self.requests]

    # -- the model ------------------------------------------------------------------------------

    def vector(self, text: str, dim: int | None = None) -> list[float]:
        """The unit-length embedding of `text`: each word adds ±1 at two hashed positions."""
        dim = dim or self.dim
        out = [0.0] * dim
        for word in WORD.findall(text.lower()) or [text]:
            digest = hashlib.blake2b(word.encode(), digest_size=16).digest()
            for k in (0, 8):
                h = int.from_bytes(digest[k : k + 8], "little")
                out[h % dim] += 1.0 if (h >> 63) & 1 else -1.0
        if not any(out):  # words that cancel out still give a non-zero vector
            out[int.from_bytes(hashlib.blake2b(text.encode()).digest()[:8], "little") % dim] = 1.0
        norm = math.sqrt(sum(x * x for x in out))
        return [x / norm for x in out]

    def _answer(
        self, path: str, body: Any, authorization: str | None
    ) -> tuple[int, dict[str, Any], dict[str, str], float]:
        """(status, payload, headers, delay) for one request, recording it."""
        model = body.get("model") if isinstance(body, dict) else None
        raw = body.get("input") if isinstance(body, dict) else None
        inputs = [raw] if isinstance(raw, str) else raw
        fault: Fault | None = None
        headers: dict[str, str] = {}
        if path.rstrip("/") != "/v1/embeddings":
            status, payload = 404, _error(f"no route {path}", "not_found")
        elif not isinstance(model, str) or not model:
            status, payload = 400, _error("you must provide a model parameter")
        elif not (isinstance(inputs, list) and inputs and all(isinstance(t, str) for t in inputs)):
            status, payload = 400, _error("input must be a string or a non-empty list of strings")
        elif len(inputs) > self.max_batch:
            status, payload = 400, _error(f"at most {self.max_batch} inputs per request")
        elif body.get("encoding_format", "float") != "float":
            status, payload = 400, _error("this fake only speaks encoding_format=float")
        elif self.api_key is not None and authorization != f"Bearer {self.api_key}":
            status, payload = 401, _error("Incorrect API key provided", "invalid_api_key")
        else:
            fault = self._next_fault()
            if fault is not None and fault.kind == "status":
                status, payload = fault.status, _error(fault.message, "scripted")
                if fault.retry_after is not None:
                    headers["Retry-After"] = f"{fault.retry_after:g}"
            else:
                status, payload = 200, self._embeddings(model, inputs, fault)
        texts = tuple(inputs) if isinstance(inputs, list) else ()
        self._record(Request(self.clock(), path, model, texts, authorization, status))
        delay = fault.seconds if fault is not None and fault.kind == "slow" else 0.0
        return status, payload, headers, delay

    def _embeddings(self, model: str, inputs: list[str], fault: Fault | None) -> dict[str, Any]:
        width = fault.width if fault is not None and fault.kind == "width" else self.dim
        vectors = [self.vector(t, width) for t in inputs]
        if fault is not None and fault.kind == "nan":
            vectors[0][0] = math.nan
        if fault is not None and fault.kind == "zero":
            vectors[0] = [0.0] * width
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        tokens = sum(len(WORD.findall(t)) for t in inputs)
        return {
            "object": "list",
            "data": data[::-1] if self.scramble else data,
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }


def _error(message: str, code: str = "invalid_request_error") -> dict[str, Any]:
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    }


class _Handler(BaseHTTPRequestHandler):
    server_fake: LoopbackServer[Any, Any]

    def do_POST(self) -> None:
        fake = self.server_fake
        try:
            length = int(self.headers.get("Content-Length") or 0)
            body: Any = json.loads(self.rfile.read(length) or b"null")
        except (ValueError, OSError):
            body = None
        status, payload, headers, delay = fake._answer(
            self.path, body, self.headers.get("Authorization")
        )
        if delay:
            fake._stopping.wait(delay)
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (a timeout): nothing to answer
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: requests are recorded on the fake instead
