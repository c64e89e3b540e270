"""MCP resources and prompts: the protocol text and each context the caller can see, and a prompt
that asks a model to answer from tabane with citations.

Resources: `tabane://protocol` (docs/protocol.md, markdown) and `tabane://contexts/{name}` (the
context's `get_context` JSON: description, scopes, floors, stats, usage). Visibility is exactly
`list_contexts`'s: the list is that call's, and a read is `get_context` as the caller, so a context
the caller cannot see is neither listed nor readable (`no_context`, as the tool says).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib.resources import files
from typing import Any
from urllib.parse import quote, unquote

import anyio.to_thread
from mcp import MCPError
from mcp import types as mt
from mcp.server import ServerRequestContext

from tabane.errors import TabaneError
from tabane.plain import to_plain
from tabane.principal import Principal
from tabane.service import Tabane

PROTOCOL_URI = "tabane://protocol"
CONTEXT_PREFIX = "tabane://contexts/"

ANSWER_PROMPT = "answer_from_tabane"
_ANSWER = """\
Answer this question from tabane's memory, with citations: {question}

1. {where}, then call `recall` with the question as asked. Do not answer from your own knowledge.
2. Answer from the returned evidence only, and cite each item you use as it is rendered (its
   context, source and paragraph); `cite` returns a paragraph's exact text when you need it.
3. If recall found nothing that answers the question, say that it was not found in tabane's
   memory; do not guess. If you expected an item that is missing, ask `explain_recall`.
"""


def protocol_text() -> str:
    """The discipline taught to connected models: docs/protocol.md, shipped in the package."""
    return (files("tabane.mcp") / "protocol.md").read_text(encoding="utf-8")


def context_uri(name: str) -> str:
    return CONTEXT_PREFIX + quote(name, safe="")


def _json(plain: object) -> str:
    return json.dumps(plain, ensure_ascii=False)


def resource_handlers(
    svc: Tabane, principal: Callable[[], Principal], protocol: str
) -> dict[str, Any]:
    """The `Server` keyword arguments that serve resources, each read acting as `principal()`."""
    served = _Resources(svc, principal, protocol)
    return {
        "on_list_resources": served.list_resources,
        "on_list_resource_templates": served.list_templates,
        "on_read_resource": served.read_resource,
    }


class _Resources:
    def __init__(self, svc: Tabane, principal: Callable[[], Principal], protocol: str) -> None:
        self.svc, self.principal, self.protocol = svc, principal, protocol

    async def list_resources(
        self, ctx: ServerRequestContext[Any], params: mt.PaginatedRequestParams | None
    ) -> mt.ListResourcesResult:
        user = self.principal()
        infos = await anyio.to_thread.run_sync(lambda: self.svc.list_contexts(user))
        listed = [
            mt.Resource(
                name=PROTOCOL_URI.removeprefix("tabane://"),
                title="tabane protocol",
                uri=PROTOCOL_URI,
                description="How to use tabane's tools (the server's instructions).",
                mime_type="text/markdown",
            )
        ]
        listed += [
            mt.Resource(
                name=info.name,
                title=f"context {info.name}",
                uri=context_uri(info.name),
                description=info.description,
                mime_type="application/json",
            )
            for info in infos
        ]
        return mt.ListResourcesResult(resources=listed)

    async def list_templates(
        self, ctx: ServerRequestContext[Any], params: mt.PaginatedRequestParams | None
    ) -> mt.ListResourceTemplatesResult:
        template = mt.ResourceTemplate(
            name="context",
            uri_template=CONTEXT_PREFIX + "{name}",
            description="A context you can see: description, scopes, floors, stats and usage.",
            mime_type="application/json",
        )
        return mt.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(
        self, ctx: ServerRequestContext[Any], params: mt.ReadResourceRequestParams
    ) -> mt.ReadResourceResult:
        uri = str(params.uri)
        if uri == PROTOCOL_URI:
            text, mime = self.protocol, "text/markdown"
        elif uri.startswith(CONTEXT_PREFIX) and uri != CONTEXT_PREFIX:
            user, name = self.principal(), unquote(uri.removeprefix(CONTEXT_PREFIX))
            try:
                info = await anyio.to_thread.run_sync(lambda: self.svc.get_context(user, name))
            except TabaneError as exc:  # not visible is not there, as get_context says
                body = exc.to_body()
                raise MCPError(code=mt.INVALID_PARAMS, message=exc.message, data=body) from None
            text, mime = _json(to_plain(info)), "application/json"
        else:
            raise MCPError(code=mt.INVALID_PARAMS, message=f"unknown resource {uri!r}")
        contents = mt.TextResourceContents(uri=uri, mime_type=mime, text=text)
        return mt.ReadResourceResult(contents=[contents])


def prompt_handlers() -> dict[str, Any]:
    """The `Server` keyword arguments that serve prompts."""
    prompt = mt.Prompt(
        name=ANSWER_PROMPT,
        title="Answer from tabane with citations",
        description="Answer a question from tabane's memory: recall first, cite what you use, "
        "say so when nothing was found.",
        arguments=[
            mt.PromptArgument(name="question", description="The question.", required=True),
            mt.PromptArgument(
                name="contexts",
                description="Contexts to recall from, comma-separated (default: the model "
                "chooses with list_contexts).",
                required=False,
            ),
        ],
    )

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: mt.PaginatedRequestParams | None
    ) -> mt.ListPromptsResult:
        return mt.ListPromptsResult(prompts=[prompt])

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: mt.GetPromptRequestParams
    ) -> mt.GetPromptResult:
        if params.name != ANSWER_PROMPT:
            raise MCPError(code=mt.INVALID_PARAMS, message=f"unknown prompt {params.name!r}")
        args = params.arguments or {}
        question = (args.get("question") or "").strip()
        if not question:
            raise MCPError(code=mt.INVALID_PARAMS, message="argument 'question' is required")
        names = [n.strip() for n in (args.get("contexts") or "").split(",") if n.strip()]
        where = (
            f"Recall from the contexts {json.dumps(names, ensure_ascii=False)}"
            if names
            else "Choose the contexts that fit (`list_contexts`, or a preset from `list_presets`)"
        )
        text = _ANSWER.format(question=question, where=where)
        message = mt.PromptMessage(role="user", content=mt.TextContent(type="text", text=text))
        return mt.GetPromptResult(description=prompt.description, messages=[message])

    return {"on_list_prompts": list_prompts, "on_get_prompt": get_prompt}


__all__ = [
    "ANSWER_PROMPT",
    "PROTOCOL_URI",
    "context_uri",
    "prompt_handlers",
    "protocol_text",
    "resource_handlers",
]
