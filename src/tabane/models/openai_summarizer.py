"""A `Summarizer` over an OpenAI-compatible `POST {base_url}/chat/completions` (OpenAI, Ollama,
vLLM, llama.cpp's server…).

The prompt lists the members one per line as `[ref] (weight w) text` and asks for a summary of at
most `budget_chars` characters that cites each statement's members as `[ref]`. Requests go through
`tabane.models.http_client.ResilientClient` (pacing, retries on 429 honouring `Retry-After`, 5xx
and transport errors, and a circuit breaker that fails fast with `SummarizerUnavailable`).

The answer is checked before it becomes a `Summary`: a reasoning model's `<think>` block is
dropped, refs that were not given are dropped from the markers, the text is cut to the budget at
a sentence end (`summarizer.fit`), and an answer that is malformed, empty, or cites none of the
given refs is refused with `InvalidInput` (path `summarizer`), like a malformed embedding answer.

Long inputs are capped so that a small local model's context is not overrun: each member's text at
`max_member_chars`, and the whole list at `max_prompt_chars` (the heaviest members are kept, ties to
the smaller ref, and listed in the given order). The fingerprint still covers every member given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Unpack

import httpx

from tabane.errors import InvalidInput, Issue, SummarizerUnavailable
from tabane.models.http_client import CircuitBreaker, HttpOptions, ResilientClient
from tabane.models.summarizer import (
    Member,
    Summary,
    checked_members,
    cited,
    fingerprint,
    fit,
    keep_known,
)

SYSTEM = (
    "You summarize the passages the user gives you. Each passage starts with its ref in square "
    "brackets. Rules: state only what the passages say; after each sentence cite the passages it "
    "comes from by their refs in square brackets, like [p:123] or [p:123, c:45]; cite only refs "
    "from the list; heavier passages matter more; write plain prose with no heading, list or "
    "preamble, at most {budget} characters in all. {language}"
)
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)


class OpenAISummarizer:
    """Summaries written by an OpenAI-compatible chat model; see the module docstring."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        max_member_chars: int = 2000,
        max_prompt_chars: int = 24000,
        **http: Unpack[HttpOptions],
    ) -> None:
        for key, value in [
            ("max_tokens", 1 if max_tokens is None else max_tokens),
            ("max_member_chars", max_member_chars),
            ("max_prompt_chars", max_prompt_chars),
        ]:
            if not value > 0:
                raise InvalidInput(f"{key} must be positive", issues=[Issue(key, f"{value!r}")])
        self.name, self.model = f"openai:{model}", model
        self.temperature, self.max_tokens = temperature, max_tokens
        self.max_member_chars, self.max_prompt_chars = max_member_chars, max_prompt_chars
        self._http = ResilientClient(
            base_url,
            kind="summarization service",
            name=self.name,
            issue_path="summarizer",
            unavailable=SummarizerUnavailable,
            **http,
        )
        self.url = self._http.url("/chat/completions")
        self.breaker: CircuitBreaker = self._http.breaker

    def summarize(
        self, members: Sequence[Member], *, budget_chars: int, language_hint: str | None = None
    ) -> Summary:
        checked_members(members, budget_chars)
        stamp = fingerprint(members)
        if not any(m.text.strip() for m in members):
            return Summary("", (), self.name, stamp)
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system_prompt(budget_chars, language_hint)},
                {"role": "user", "content": self.user_prompt(members, budget_chars)},
            ],
            "temperature": self.temperature,
            # Enough for the budget in any script (CJK runs at about one character a token).
            "max_tokens": self.max_tokens or budget_chars + 256,
            "stream": False,
        }
        content = self._content(self._http.post_json("/chat/completions", body))
        given = {m.ref for m in members}
        text = fit(keep_known(_THINK.sub("", content).strip(), given), budget_chars)
        if not text:
            raise self._bad("the answer is empty")
        refs = cited(text, given)
        if not refs:
            raise self._bad(f"the answer cites none of the given refs: {text[:200]!r}")
        return Summary(text, refs, self.name, stamp)

    def user_prompt(self, members: Sequence[Member], budget_chars: int) -> str:
        """The passages, one per line, capped as the module docstring says."""
        lines: dict[int, str] = {}
        used = 0
        by_weight = sorted(range(len(members)), key=lambda i: (-members[i].weight, members[i].ref))
        for i in by_weight:
            member = members[i]
            text = " ".join(member.text.split())[: self.max_member_chars]
            if not text:
                continue
            line = f"[{member.ref}] (weight {member.weight:.3g}) {text}"
            if lines and used + len(line) > self.max_prompt_chars:
                continue
            lines[i] = line
            used += len(line) + 1
        listed = "\n".join(lines[i] for i in sorted(lines))
        return f"Passages:\n{listed}\n\nSummary (at most {budget_chars} characters, citing refs):"

    def close(self) -> None:
        """Close the HTTP client's connections."""
        self._http.close()

    def __enter__(self) -> OpenAISummarizer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _content(self, response: httpx.Response) -> str:
        """`choices[0].message.content`, refused when the answer is not that shape."""
        try:
            payload: Any = response.json()
        except ValueError:
            raise self._bad(f"not JSON: {response.text[:200]!r}") from None
        choices = payload.get("choices") if isinstance(payload, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._bad("no `choices` in the answer")
        message = choices[0].get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise self._bad("`choices[0].message.content` is not a string")
        return content

    def _bad(self, problem: str) -> InvalidInput:
        return InvalidInput(
            f"summarization service {self.name} gave an unusable answer",
            issues=[Issue("summarizer", f"{self.name} at {self.url}: {problem}")],
        )


def system_prompt(budget_chars: int, language_hint: str | None) -> str:
    language = f"Write in {language_hint}." if language_hint else "Write in the passages' language."
    return SYSTEM.format(budget=budget_chars, language=language)
