"""A fake OpenAI-compatible chat server: real HTTP on loopback, deterministic, scriptable.

    with FakeChatServer() as server:
        summarizer = OpenAISummarizer(server.url, "fake")
        server.fail_next(2, status=429, retry_after=1.5)
        server.answer_next("")                  # an empty answer
        summarizer.summarize(members, budget_chars=400)
        server.requests                         # what arrived

It serves `POST /v1/chat/completions` (non-streaming) from the stdlib HTTP server of
`fakes.openai_server.LoopbackServer`, checking the body as the real services do (a model,
a non-empty list of `{role, content}` messages) and answering in the same shape
(`choices[0].message.content`, `finish_reason`, `usage`). The model "summarizes" by taking the
first sentence of each of the first `take` passages it finds in the last user message, written as
lines `[ref] …` (the prompt of `tabane.models.openai_summarizer`), each followed by its `[ref]`.
Scripted faults are spent one per request, in the order they were scripted.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakes.openai_server import LoopbackServer

PATH = "/v1/chat/completions"
ROLES = ("system", "user", "assistant", "developer", "tool")
# Ways an answer can be broken with status 200.
MALFORMATIONS = ("not_json", "no_choices", "no_message", "null_content")
_PASSAGE = re.compile(r"^\[([^\]\s]+)\](?: \([^)]*\))? (.+)$", re.MULTILINE)
_FIRST = re.compile(r".+?(?:[.!?](?=\s|$)|[。！？]|$)")


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour: `status` (an error answer), `answer` (this content),
    `malformed` or `slow`."""

    kind: str
    status: int = 500
    retry_after: float | None = None
    message: str = "scripted failure"
    content: str = ""
    finish_reason: str = "stop"
    malformation: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class Request:
    """One request as the server saw it: `messages` as (role, content) pairs."""

    time: float
    path: str
    model: str | None
    messages: tuple[tuple[str, str], ...]
    max_tokens: int | None
    temperature: float | None
    authorization: str | None
    status: int


class FakeChatServer(LoopbackServer["Fault", "Request"]):
    def __init__(
        self,
        *,
        api_key: str | None = None,
        take: int = 3,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(clock)
        self.api_key, self.take = api_key, take
        self._served = 0

    @property
    def url(self) -> str:
        """The base URL, ending in /v1 (an OpenAI client appends /chat/completions)."""
        return f"{self.root}/v1"

    # -- scripting ------------------------------------------------------------------------------

    def _status_fault(self, status: int, retry_after: float | None, message: str) -> Fault:
        return Fault("status", status, retry_after, message)

    def answer_next(self, content: str, *, times: int = 1, finish_reason: str = "stop") -> None:
        """Answer the next `times` requests with this assistant content."""
        self._script(times, Fault("answer", content=content, finish_reason=finish_reason))

    def malformed_next(self, malformation: str, times: int = 1) -> None:
        """Break the next answers in one of the MALFORMATIONS ways (status 200)."""
        if malformation not in MALFORMATIONS:
            raise ValueError(f"unknown malformation {malformation!r}; one of {MALFORMATIONS}")
        self._script(times, Fault("malformed", malformation=malformation))

    def slow_next(self, times: int = 1, seconds: float = 1.0) -> None:
        """The next answers wait `seconds` first (cut short when the server closes)."""
        self._script(times, Fault("slow", seconds=seconds))

    # -- the model ------------------------------------------------------------------------------

    def reply(self, prompt: str) -> str:
        """The first sentence of each of the first `take` passages, each followed by `[ref]`."""
        parts = []
        for ref, text in _PASSAGE.findall(prompt)[: self.take]:
            first = _FIRST.match(text.strip())
            parts.append(f"{(first.group() if first else text).strip()} [{ref}]")
        return " ".join(parts)

    def _answer(
        self, path: str, body: Any, authorization: str | None
    ) -> tuple[int, Any, dict[str, str], float]:
        """(status, payload, headers, delay) for one request, recording it."""
        body = body if isinstance(body, dict) else {}
        model, raw = body.get("model"), body.get("messages")
        messages = _messages(raw)
        max_tokens = body.get("max_tokens")
        fault: Fault | None = None
        headers: dict[str, str] = {}
        if path.rstrip("/") != PATH:
            status, payload = 404, _error(f"no route {path}", "not_found")
        elif not isinstance(model, str) or not model:
            status, payload = 400, _error("you must provide a model parameter")
        elif messages is None:
            status, payload = 400, _error("`messages` must be a non-empty list of messages")
        elif max_tokens is not None and not (isinstance(max_tokens, int) and max_tokens > 0):
            status, payload = 400, _error("`max_tokens` must be a positive integer")
        elif body.get("stream"):
            status, payload = 400, _error("this fake does not stream")
        elif self.api_key is not None and authorization != f"Bearer {self.api_key}":
            status, payload = 401, _error("Incorrect API key provided", "invalid_api_key")
        else:
            fault = self._next_fault()
            if fault is not None and fault.kind == "status":
                status, payload = fault.status, _error(fault.message, "scripted")
                if fault.retry_after is not None:
                    headers["Retry-After"] = f"{fault.retry_after:g}"
            else:
                status, payload = 200, self._completion(model, messages, fault)
        temperature = body.get("temperature")
        self._record(
            Request(
                self.clock(),
                path,
                model if isinstance(model, str) else None,
                tuple(messages or ()),
                max_tokens if isinstance(max_tokens, int) else None,
                float(temperature) if isinstance(temperature, int | float) else None,
                authorization,
                status,
            )
        )
        delay = fault.seconds if fault is not None and fault.kind == "slow" else 0.0
        return status, payload, headers, delay

    def _completion(self, model: str, messages: list[tuple[str, str]], fault: Fault | None) -> Any:
        prompt = next((c for r, c in reversed(messages) if r == "user"), "")
        scripted = fault is not None and fault.kind == "answer"
        content = fault.content if fault is not None and scripted else self.reply(prompt)
        finish = fault.finish_reason if fault is not None and scripted else "stop"
        with self._lock:
            self._served += 1
            served = self._served
        message: dict[str, Any] = {"role": "assistant", "content": content}
        payload: dict[str, Any] = {
            "id": f"chatcmpl-fake-{served}",
            "object": "chat.completion",
            "created": 1_700_000_000 + served,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": sum(len(c.split()) for _, c in messages),
                "completion_tokens": len(content.split()),
                "total_tokens": sum(len(c.split()) for _, c in messages) + len(content.split()),
            },
        }
        broken = fault.malformation if fault is not None and fault.kind == "malformed" else ""
        if broken == "not_json":
            return b"<html>502 bad gateway</html>"
        if broken == "no_choices":
            payload["choices"] = []
        elif broken == "no_message":
            del payload["choices"][0]["message"]
        elif broken == "null_content":
            message["content"] = None
        return payload


def _messages(raw: Any) -> list[tuple[str, str]] | None:
    """The messages as (role, content) pairs; None when they are not a valid non-empty list."""
    if not isinstance(raw, list) or not raw:
        return None
    out = []
    for item in raw:
        if not isinstance(item, dict):
            return None
        role, content = item.get("role"), item.get("content")
        if role not in ROLES or not isinstance(content, str):
            return None
        out.append((role, content))
    return out


def _error(message: str, code: str = "invalid_request_error") -> dict[str, Any]:
    """OpenAI's error body."""
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    }
