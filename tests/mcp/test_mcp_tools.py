"""Every MCP tool through the official SDK client — in memory, over streamable HTTP and over stdio —
on the real store.

`Client(server)` connects in memory: mode "legacy" runs the initialize handshake over JSON-RPC
streams, mode "auto" the 2026 per-request protocol; both reach the same tool handler.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from mcp import Client, MCPError, StdioServerParameters

from tabane.errors import all_error_classes
from tabane.mcp import catalog
from tabane.mcp.server import build_server, mount_mcp, protocol_text
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import serve, unique

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test

ROOT = Path(__file__).resolve().parents[2]
TOOL_NAMES = {
    "list_contexts",
    "get_context",
    "create_context",
    "update_context",
    "rename_context",
    "delete_context",
    "list_groups",
    "get_group",
    "create_group",
    "change_group",
    "delete_group",
    "ingest_source",
    "list_sources",
    "lookup_source",
    "retract_source",
    "cite",
    "search_passages",
    "explain_search",
}


def test_every_tool_is_called_by_some_mcp_test() -> None:
    """A tool no test calls through an MCP client does not exist."""
    tests = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests" / "mcp").glob("*.py"))
    uncalled = {t.name for t in catalog.all_tools() if not re.search(rf'["\']{t.name}["\']', tests)}
    assert uncalled == set()


DOC = "# Kettle\n\nKettle boils water.\n\n## Safety\n\nNever run it dry.\n"


async def ok(c: Client, tool: str, args: dict[str, Any] | None = None) -> Any:
    result = await c.call_tool(tool, args or {})
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


async def err(c: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await c.call_tool(tool, args)
    assert result.is_error
    text = result.content[0].text
    assert "Traceback" not in text
    body = json.loads(text)
    assert set(body["error"]) == {"code", "message", "issues", "written"}
    return body["error"]


def connect(
    svc: Tabane,
    principal: Principal | Callable[[], Principal],
    body: Callable[[Client], Awaitable[None]],
    mode: str = "legacy",
    transport: str = "memory",
) -> None:
    """Run `body` with an official SDK client: in memory, over streamable HTTP (uvicorn on a real
    socket), or over stdio (`tabane mcp` as a subprocess acting as the principal's user)."""
    fn = principal if callable(principal) else (lambda: principal)

    async def main(target: Any) -> None:
        async with Client(target, mode=mode) as c:
            await body(c)

    if transport == "memory":
        anyio.run(main, build_server(svc, fn))
    elif transport == "http":
        app = FastAPI()
        mount_mcp(app, svc, fn)
        with serve(app) as url:
            anyio.run(main, f"{url}/mcp")
    else:
        env = {
            "TABANE_HOME": str(svc.settings.home),
            "TABANE_USER": fn().name,
            "TABANE_EMBEDDER": "none",
            "TABANE_WORKER": "off",
        }
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "tabane.cli.main", "mcp"], env=env
        )
        anyio.run(main, params)


@pytest.mark.parametrize(
    ("transport", "mode"),
    [("memory", "legacy"), ("memory", "auto"), ("http", "legacy"), ("stdio", "legacy")],
)
def test_every_tool_end_to_end(svc: Tabane, user: Principal, transport: str, mode: str) -> None:
    name, other, g1, g2 = unique("ctx"), unique("ctx"), unique("grp"), unique("grp")

    async def body(c: Client) -> None:
        assert c.instructions == protocol_text()
        listed = {t.name: t for t in (await c.list_tools()).tools}
        assert set(listed) == {t.name for t in catalog.all_tools()}
        assert set(listed) >= TOOL_NAMES  # these are exercised here; the graph tools elsewhere
        assert all(t.description and t.output_schema for t in listed.values())

        made = await ok(c, "create_context", {"name": name, "description": "kitchen things"})
        assert (made["name"], made["scopes"]) == (name, [f"user:{user.name}"])
        assert name in [x["name"] for x in (await ok(c, "list_contexts"))["contexts"]]
        changed = await ok(c, "update_context", {"name": name, "semantic_floor": 0.4})
        assert (changed["description"], changed["semantic_floor"]) == ("kitchen things", 0.4)
        cleared = await ok(c, "update_context", {"name": name, "semantic_floor": None})
        assert cleared["semantic_floor"] is None
        await ok(c, "create_context", {"name": other + "x"})
        assert (await ok(c, "rename_context", {"name": other + "x", "new_name": other}))[
            "name"
        ] == other

        first = await ok(
            c,
            "ingest_source",
            {
                "context": name,
                "source_id": "kettle.md",
                "text": DOC,
                "tags": ["home"],
                "date": "2024-05-01",
            },
        )
        assert (first["outcome"], first["paragraphs"], first["sections"]) == ("created", 2, 2)
        assert set(first) == {  # the store's internal key stays inside
            "source_id", "outcome", "paragraphs", "sections", "reindexed", "claims_closed", "kept",
            "updated", "warnings",
        }  # fmt: skip
        assert first["warnings"] == []
        again = await ok(
            c,
            "ingest_source",
            {
                "context": name,
                "source_id": "kettle.md",
                "text": DOC,
                "tags": ["home"],
                "date": "2024-05-01",
            },
        )
        assert again["outcome"] == "unchanged"
        split = await ok(
            c,
            "ingest_source",
            {
                "context": name,
                "source_id": "manual.pdf",
                "title": "Manual",
                "paragraphs": [
                    {
                        "text": "Fill to the line.",
                        "section": ["Use"],
                        "locator": {"kind": "page", "start": 3},
                        "questions": ["How full?"],
                    },
                    {"text": "Descale monthly.", "section": ["Care"]},
                ],
            },
        )
        assert split["paragraphs"] == 2

        page = await ok(c, "list_sources", {"context": name, "limit": 1})
        assert [s["source_id"] for s in page["sources"]] == ["kettle.md"]
        assert page["sources"][0]["date"].startswith("2024-05-01")
        rest = await ok(c, "list_sources", {"context": name, "after": page["next_after"]})
        assert [s["source_id"] for s in rest["sources"]] == ["manual.pdf"]
        undated = await ok(
            c,
            "ingest_source",
            {"context": name, "source_id": "zz-undated.md", "text": "---\ndate: soon\n---\n" + DOC},
        )
        assert [w["path"] for w in undated["warnings"]] == ["front_matter.date"]
        assert "not an ISO 8601 date" in undated["warnings"][0]["problem"]
        await ok(c, "retract_source", {"context": name, "source_id": "zz-undated.md"})

        found = await ok(c, "lookup_source", {"context": name, "source_id": "manual.pdf"})
        assert found["source"]["title"] == "Manual"
        assert found["paragraphs"][0]["locator"] == {"kind": "page", "start": 3}
        assert found["paragraphs"][0]["questions"] == ["How full?"]
        cited = await ok(c, "cite", {"context": name, "source_id": "kettle.md", "paragraph": 1})
        assert (cited["text"], cited["section"], cited["title"]) == (
            "Never run it dry.",
            ["Kettle", "Safety"],
            "Kettle",
        )

        dry = await ok(
            c, "retract_source", {"context": name, "source_id": "kettle.md", "dry_run": True}
        )
        assert (dry["dry_run"], dry["paragraphs"]) == (True, 2)
        assert await ok(c, "cite", {"context": name, "source_id": "kettle.md", "paragraph": 0})
        gone = await ok(c, "retract_source", {"context": name, "source_id": "kettle.md"})
        assert (gone["dry_run"], gone["sources"]) == (False, 1)
        missing = await err(c, "lookup_source", {"context": name, "source_id": "kettle.md"})
        assert missing["code"] == "no_source"
        out_of_range = await err(
            c, "cite", {"context": name, "source_id": "manual.pdf", "paragraph": 9}
        )
        assert (out_of_range["code"], out_of_range["issues"][0]["path"]) == (
            "paragraph_out_of_range",
            "paragraph",
        )

        made_group = await ok(c, "create_group", {"name": g1, "contexts": [name]})
        assert made_group["contexts"] == [name]
        await ok(c, "create_group", {"name": g2, "description": "outer"})
        delta = await ok(
            c, "change_group", {"name": g2, "add_contexts": [other], "add_groups": [g1]}
        )
        assert (delta["contexts"], delta["groups"]) == ([other], [g1])
        assert (await ok(c, "get_group", {"name": g2}))["groups"] == [g1]
        cycle = await err(c, "change_group", {"name": g1, "add_groups": [g2]})
        assert (cycle["code"], cycle["issues"][0]["path"]) == ("group_cycle", "add_groups[0]")
        unknown = await err(c, "change_group", {"name": g2, "add_contexts": ["nope" + name]})
        assert (unknown["code"], unknown["issues"][0]["path"]) == ("no_context", "add_contexts[0]")
        delta = await ok(
            c,
            "change_group",
            {"name": g2, "remove_contexts": [other], "remove_groups": [g1], "description": "empty"},
        )
        assert (delta["contexts"], delta["groups"], delta["description"]) == ([], [], "empty")
        assert {g1, g2} <= {g["name"] for g in (await ok(c, "list_groups"))["groups"]}
        renamed = await ok(c, "rename_group", {"name": g1, "new_name": g1 + "r"})
        assert (renamed["name"], renamed["contexts"]) == (g1 + "r", [name])
        gone = await err(c, "rename_group", {"name": g1, "new_name": g1 + "s"})
        assert (gone["code"], gone["issues"][0]["path"]) == ("no_group", "name")
        taken = await err(c, "rename_group", {"name": g1 + "r", "new_name": g2})
        assert (taken["code"], taken["issues"][0]["path"]) == ("name_taken", "new_name")
        assert (await ok(c, "rename_group", {"name": g1 + "r", "new_name": g1}))["name"] == g1
        assert (await ok(c, "delete_group", {"name": g2})) == {"deleted": g2}
        assert (await err(c, "get_group", {"name": g2}))["code"] == "no_group"

        removed = await ok(c, "delete_context", {"name": name})
        assert removed == {
            "deleted": name,
            "removed": {
                "sources": 1,
                "paragraphs": 2,
                "sections": 2,
                "concepts": 0,
                "labels": 0,
                "associations": 0,
                "top_concepts": [],
                "label_samples": [],
            },
        }
        assert (await err(c, "get_context", {"name": name}))["code"] == "no_context"
        assert (await ok(c, "get_group", {"name": g1}))["contexts"] == []

    connect(svc, user, body, mode, transport)


def test_a_reader_cannot_write_a_team_context(svc: Tabane, make_user, make_context) -> None:
    team = unique("team:")
    owner = make_user(extra_write=(team,))
    reader = make_user(extra_read=(team,))
    name = make_context(owner, scopes=[team], description="team notes")

    async def body(c: Client) -> None:
        assert (await ok(c, "get_context", {"name": name}))["description"] == "team notes"
        denied = await err(c, "update_context", {"name": name, "description": "mine now"})
        assert (denied["code"], denied["written"]) == ("forbidden", "nothing")
        assert (await err(c, "ingest_source", {"context": name, "source_id": "a", "text": "x"}))[
            "code"
        ] == "forbidden"
        scoped = await err(c, "create_context", {"name": unique("ctx"), "scopes": [team]})
        assert (scoped["code"], scoped["issues"][0]["path"]) == ("forbidden", "scopes")

    connect(svc, reader, body)
    assert svc.get_context(owner, name).description == "team notes"
    assert svc.get_context(owner, name).stats.sources == 0


def test_names_are_checked_with_paths(svc: Tabane, user: Principal) -> None:
    async def body(c: Client) -> None:
        bad = await err(c, "create_context", {"name": "has space"})
        assert (bad["code"], bad["issues"][0]["path"]) == ("invalid_name", "name")
        renamed = await err(c, "rename_context", {"name": "x", "new_name": ".dot"})
        assert renamed["code"] == "no_context"

    connect(svc, user, body)


def test_arguments_are_validated_with_paths(svc: Tabane, user: Principal, context: str) -> None:
    async def body(c: Client) -> None:
        wrong = await err(
            c,
            "ingest_source",
            {
                "context": context,
                "source_id": "a",
                "paragraphs": [{"text": "ok"}, {"text": "  ", "locator": {"start": 0}}],
            },
        )
        assert wrong["code"] == "invalid_input"
        assert {i["path"] for i in wrong["issues"]} == {
            "paragraphs[1].text",
            "paragraphs[1].locator.start",
        }
        both = await err(
            c,
            "ingest_source",
            {"context": context, "source_id": "a", "text": "x", "paragraphs": [{"text": "y"}]},
        )
        assert (both["code"], both["issues"][0]["path"]) == ("invalid_input", "text")
        empty = await err(c, "ingest_source", {"context": context, "source_id": "a", "text": ""})
        assert (empty["code"], empty["issues"][0]["path"]) == ("empty_document", "text")
        required = await err(c, "cite", {"context": context, "source_id": "a"})
        assert [i["path"] for i in required["issues"]] == ["paragraph"]
        floor = await err(c, "update_context", {"name": context, "dice_floor": 2})
        assert floor["issues"][0]["path"] == "dice_floor"
        state = await err(c, "list_sources", {"context": context, "state": "lost"})
        assert state["issues"][0]["path"] == "state"

    connect(svc, user, body)
    assert svc.get_context(user, context).stats.sources == 0


def test_no_argument_can_name_another_user(svc: Tabane, make_user, make_context) -> None:
    victim = make_user()
    theirs = make_context(victim)
    attacker = make_user()

    async def body(c: Client) -> None:
        for spec in catalog.all_tools():
            props = spec.args.model_json_schema().get("properties", {})
            assert not {"user", "user_id", "principal", "as_user"} & set(props), spec.name
        forged = await err(c, "get_context", {"name": theirs, "user": victim.name})
        assert (forged["code"], forged["issues"][0]["path"]) == ("invalid_input", "user")
        assert (await err(c, "get_context", {"name": theirs}))["code"] == "no_context"
        listed = await ok(c, "list_contexts")
        assert theirs not in [x["name"] for x in listed["contexts"]]

    connect(svc, attacker, body)


def test_the_principal_is_asked_on_every_call(svc: Tabane, make_user, make_context) -> None:
    a, b = make_user(), make_user()
    only_a = make_context(a)
    acting = [a]

    async def body(c: Client) -> None:
        assert (await ok(c, "get_context", {"name": only_a}))["name"] == only_a
        acting[0] = b
        assert (await err(c, "get_context", {"name": only_a}))["code"] == "no_context"

    connect(svc, lambda: acting[0], body)


def test_lists_sent_as_json_strings_are_parsed(svc: Tabane, user: Principal, context: str) -> None:
    async def body(c: Client) -> None:
        await ok(
            c,
            "ingest_source",
            {"context": context, "source_id": "t.txt", "text": "[not json", "tags": '["a", "b"]'},
        )
        found = await ok(c, "lookup_source", {"context": context, "source_id": "t.txt"})
        assert (found["source"]["tags"], found["paragraphs"][0]["text"]) == (
            ["a", "b"],
            "[not json",
        )

    connect(svc, user, body)


def test_an_unexpected_failure_is_an_internal_error_body(svc: Tabane, caplog) -> None:
    def broken() -> Principal:
        raise RuntimeError("secret detail")

    async def body(c: Client) -> None:
        failed = await err(c, "list_contexts", {})
        assert failed["code"] == "internal"
        assert "secret" not in failed["message"]

    connect(svc, broken, body)
    assert "secret detail" in caplog.text


def test_an_unknown_tool_is_a_protocol_error(svc: Tabane, user: Principal) -> None:
    async def body(c: Client) -> None:
        with pytest.raises(MCPError, match="unknown tool"):
            await c.call_tool("drop_everything", {})

    connect(svc, user, body)


def test_protocol_doc_is_shipped_and_complete() -> None:
    doc = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert doc == (ROOT / "src" / "tabane" / "mcp" / "protocol.md").read_text(encoding="utf-8")
    assert doc == protocol_text()
    assert 60 <= len(doc.splitlines()) <= 200  # a manual, not a book
    mentioned = set(re.findall(r"`([a-z_]+)`", doc))
    assert {t.name for t in catalog.all_tools()} <= mentioned
    assert {cls.code for cls in all_error_classes()} <= mentioned


def test_every_parameter_is_described() -> None:
    for spec in catalog.all_tools():
        schema = spec.args.model_json_schema()
        assert schema.get("additionalProperties") is False, spec.name
        for where in (schema, *schema.get("$defs", {}).values()):
            for prop, value in where.get("properties", {}).items():
                assert value.get("description"), f"{spec.name}.{prop}"
        assert spec.output_schema()["type"] == "object"


def test_an_open_locator_is_served_back_unchanged(
    svc: Tabane, user: Principal, context: str
) -> None:
    """Taguru's `{kind, value}` locator (decision 0023) through `ingest_source` and `cite`."""
    sheet = {"kind": "sheet", "value": "Q3!A1:C4"}

    async def body(c: Client) -> None:
        paragraphs = [{"text": "Revenue by region.", "locator": sheet}]
        args = {"context": context, "source_id": "q3.xlsx", "paragraphs": paragraphs}
        assert (await ok(c, "ingest_source", args))["outcome"] == "created"
        cited = await ok(c, "cite", {"context": context, "source_id": "q3.xlsx", "paragraph": 0})
        assert {k: v for k, v in cited["locator"].items() if v is not None} == sheet
        both = {**sheet, "start": 1}
        args = {
            "context": context,
            "source_id": "b",
            "paragraphs": [{"text": "x", "locator": both}],
        }
        wrong = await err(c, "ingest_source", args)
        assert [i["path"] for i in wrong["issues"]] == ["paragraphs[0].locator.value"]

    connect(svc, user, body)
