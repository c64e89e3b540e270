"""export_context and import_context through the official MCP client: a context moved whole,
what cannot be seen or is too big refused."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable

import pytest
from mcp import Client
from mcp_client import connect, err, ok

from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique


@pytest.mark.parametrize("transport", ["memory", pytest.param("http", marks=pytest.mark.slow)])
def test_a_context_moves_over_mcp(
    svc: Tabane,
    user: Principal,
    make_user: Callable[..., Principal],
    make_context: Callable[..., str],
    transport: str,
) -> None:
    context, copy = make_context(), unique("ctx")
    paragraphs = [block("Kettles boil water."), block("Never run one dry.")]
    svc.ingest(user, context, DocumentInput(source_id="kettle.md", paragraphs=paragraphs))

    async def body(c: Client) -> None:
        exported = await ok(c, "export_context", {"context": context})
        rows = [json.loads(line) for line in exported["archive"].splitlines()]
        assert (exported["context"], exported["lines"]) == (context, len(rows))
        report = await ok(c, "import_context", {"archive": exported["archive"], "context": copy})
        assert (report["context"], report["sources"], report["paragraphs"]) == (copy, 1, 2)
        cited = await ok(c, "cite", {"context": copy, "source_id": "kettle.md", "paragraph": 1})
        assert cited["text"] == "Never run one dry."
        again = {"archive": exported["archive"], "context": copy}
        await err(c, "import_context", again, "name_taken")
        broken = {"archive": exported["archive"].replace("kettle.md", "", 1), "context": "x-1"}
        await err(c, "import_context", broken, "invalid_input")
        await err(c, "get_context", {"name": "x-1"}, "no_context")  # nothing was written

    connect(svc, user, body, transport)

    async def stranger(c: Client) -> None:
        await err(c, "export_context", {"context": context}, "no_context", "context")

    connect(svc, make_user(), stranger, "memory")


def test_an_archive_over_the_body_limit_is_refused(
    svc: Tabane, user: Principal, make_context: Callable[..., str]
) -> None:
    context = make_context()
    svc.ingest(user, context, DocumentInput(source_id="a.md", paragraphs=[block("x " * 200)]))
    small = Tabane.build(svc.store, dataclasses.replace(svc.settings, max_body_bytes=300), None)

    async def body(c: Client) -> None:
        await err(c, "export_context", {"context": context}, "limit_exceeded", "context")
        too_big = {"archive": "{}\n" * 200, "context": unique("ctx")}
        await err(c, "import_context", too_big, "body_too_large", "archive")

    connect(small, user, body, "memory")
