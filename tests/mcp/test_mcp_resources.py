"""MCP resources (the protocol, each context you can see) and prompts, through the official client
in memory and over streamable HTTP, on the real store."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from mcp import Client, MCPError
from mcp_client import connect, ok, refused

from tabane.mcp import catalog
from tabane.mcp.resources import ANSWER_PROMPT, PROTOCOL_URI, context_uri
from tabane.mcp.server import protocol_text
from tabane.principal import Principal
from tabane.service import Tabane

TRANSPORTS = ["memory", pytest.param("http", marks=pytest.mark.slow)]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_resources_are_the_protocol_and_the_contexts_you_can_see(
    svc: Tabane,
    make_user: Callable[..., Principal],
    make_context: Callable[..., str],
    transport: str,
) -> None:
    me, other = make_user("res"), make_user("res")
    mine = make_context(me, description="kettles and their care")
    odd = make_context(me, description="a name that needs quoting")
    svc.rename_context(me, odd, odd + ".醸造")  # a URI quotes it
    odd += ".醸造"
    theirs = make_context(other, description="not yours")

    async def body(c: Client) -> None:
        listed = {str(r.uri): r for r in (await c.list_resources()).resources}
        visible = {info.name for info in svc.list_contexts(me)}
        assert set(listed) == {PROTOCOL_URI} | {context_uri(n) for n in visible}
        assert listed[context_uri(mine)].description == "kettles and their care"
        assert context_uri(theirs) not in listed

        text = (await c.read_resource(PROTOCOL_URI)).contents[0]
        assert (text.mime_type, getattr(text, "text", None)) == ("text/markdown", protocol_text())
        assert await ok(c, "get_protocol", {}) == {"text": protocol_text()}  # the same text
        assert (await refused(c, "get_protocol", {"name": "x"}))["code"] == "invalid_input"

        for name in (mine, odd):
            read = (await c.read_resource(context_uri(name))).contents[0]
            got = json.loads(getattr(read, "text", ""))
            assert (got["name"], got["scopes"]) == (name, [f"user:{me.name}"])
            assert {"description", "dice_floor", "semantic_floor", "stats", "usage"} <= set(got)

        for uri, code in (
            (context_uri(theirs), "no_context"),  # as get_context says: not visible is not there
            (context_uri("no-such-ctx"), "no_context"),
            ("tabane://nothing", None),
        ):
            with pytest.raises(MCPError) as no:
                await c.read_resource(uri)
            assert no.value.error.code == -32602  # invalid params: no such resource for you
            data = no.value.error.data
            assert (data["error"]["code"] if data else None) == code

        templates = (await c.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["tabane://contexts/{name}"]

    connect(svc, me, body, transport)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_answer_prompt_names_real_tools_and_refuses_no_question(
    svc: Tabane, user: Principal, transport: str
) -> None:
    tools = {t.name for t in catalog.all_tools()}

    async def body(c: Client) -> None:
        prompts = (await c.list_prompts()).prompts
        assert [p.name for p in prompts] == [ANSWER_PROMPT]
        assert {a.name: a.required for a in prompts[0].arguments or []} == {
            "question": True,
            "contexts": False,
        }

        got = await c.get_prompt(ANSWER_PROMPT, {"question": "Who fixed the kettle?"})
        text = got.messages[0].content.text  # type: ignore[union-attr]
        assert "Who fixed the kettle?" in text and "list_contexts" in text
        named = set(re.findall(r"`(\w+)`", text))
        assert {"recall", "cite", "explain_recall", "list_contexts"} <= named <= tools
        assert "not found" in text  # it tells the model to say so, never to guess

        got = await c.get_prompt(ANSWER_PROMPT, {"question": "q?", "contexts": "a, b"})
        assert '["a", "b"]' in got.messages[0].content.text  # type: ignore[union-attr]

        for name, args in ((ANSWER_PROMPT, {}), (ANSWER_PROMPT, {"question": " "}), ("x", {})):
            with pytest.raises(MCPError) as no:
                await c.get_prompt(name, args)
            assert no.value.error.code == -32602

    connect(svc, user, body, transport)
