"""`export_group` and `import_group` through the official MCP client: the archive as text, its
import under a prefix, and a taken group name refusing the whole import (no context is left)."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp_client import connect, err, ok

from tabane.errors import NoContext
from tabane.ingest.documents import DocumentInput
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique


@pytest.mark.slow
def test_group_archive_over_mcp(svc: Tabane, user: Principal) -> None:
    member, top = unique("gm"), unique("gt")
    svc.create_context(user, member)
    svc.ingest(user, member, DocumentInput("d.md", data=b"# D\n\nSome text."))
    svc.create_group(user, top, contexts=[member])
    svc.create_group(user, f"n-{top}")  # the name the second import's group would take

    async def body(c: Client) -> None:
        text = await ok(c, "export_group", {"name": top})
        assert text["group"] == top and text["contexts"] == [member] and text["lines"] == 4
        made = await ok(c, "import_group", {"archive": text["archive"], "prefix": "m-"})
        assert made["group"] == f"m-{top}" and made["contexts"][0]["context"] == f"m-{member}"
        refused = await err(
            c, "import_group", {"archive": text["archive"], "prefix": "n-"}, "name_taken", "prefix"
        )
        assert refused["written"] == "nothing"
        await err(c, "export_group", {"name": "no-such-group"}, "no_group")

    connect(svc, user, body)
    assert svc.get_group(user, f"m-{top}").contexts == (f"m-{member}",)
    with pytest.raises(NoContext):
        svc.get_context(user, f"n-{member}")
