"""`tabane users|scopes|contexts|groups …`: each command's JSON output, and errors as one line."""

from __future__ import annotations

from typing import Any

import pytest

from tabane.service import Tabane

from helpers import unique


@pytest.mark.slow
def test_users_and_scopes_round_trip(cli: Any, svc: Tabane) -> None:
    name, team = unique("ann"), unique("org:team")
    code, added, err = cli("users", "add", name)  # a principal: its scope sets print as lists
    assert code == 0, err
    assert added["name"] == name and added["write"] == ["public", f"user:{name}"]
    added_scope = {"scope": team, "added": True}
    assert cli("scopes", "add", team, "--description", "first")[1] == added_scope
    again = cli("scopes", "add", team, "--description", "the team")[1]  # described anew
    assert again == {"scope": team, "added": False}
    code, granted, _ = cli("users", "grant", name, team, "--write")
    assert code == 0 and sorted(granted["read"]) == granted["read"] and team in granted["write"]
    listed = {u["name"]: u for u in cli("users", "list")[1]}
    assert team in listed[name]["write"]
    assert cli("users", "revoke", name, team)[1] == {"revoked": True}
    assert team not in svc.principal(name).read
    held = {s["name"]: s for s in cli("scopes", "list")[1]}
    assert held[team]["description"] == "the team"
    assert cli("scopes", "remove", team)[1] == {"removed": team}
    code, _, err = cli("users", "add", name)  # taken: one line with its code, exit 2
    assert code == 2 and err.startswith("error [")
    assert "Traceback" not in err
    code, erased, _ = cli("users", "erase", name, "--yes")
    assert code == 0 and erased
    code, _, err = cli("users", "grant", name, "public")
    assert code == 2 and "[no_user]" in err


@pytest.mark.slow
def test_scopes_and_users_refuse_what_would_mislead(cli: Any, svc: Tabane) -> None:
    """A scope name with an empty part, a revoke of a scope that does not exist, and a user
    whose personal scope was granted to someone before they existed are refused, never a quiet
    no-op; a user may be added who reads `public` without writing it."""
    bob, zed = unique("bob"), unique("zed")
    cli("users", "add", bob)
    for bad in ("user:", "org::x"):
        code, _, err = cli("scopes", "add", bad)
        assert code == 2 and "[invalid_name]" in err, bad
    code, _, err = cli("users", "revoke", bob, unique("org:typo"))
    assert code == 2 and "[no_scope]" in err
    code, _, err = cli("users", "revoke", bob, "not a scope")
    assert code == 2 and "[invalid_name]" in err
    assert cli("users", "revoke", bob, "public")[1] == {"revoked": True}
    assert cli("users", "revoke", bob, "public")[1] == {"revoked": False}  # not held any more
    cli("scopes", "add", f"user:{zed}")
    cli("users", "grant", bob, f"user:{zed}", "--write")
    code, _, err = cli("users", "add", zed)  # zed's scope would not be zed's alone
    assert code == 2 and "[conflict]" in err and bob in err
    assert zed not in {u["name"] for u in cli("users", "list")[1]}
    cli("users", "revoke", bob, f"user:{zed}")
    code, added, _ = cli("users", "add", zed, "--public-read-only")
    assert code == 0 and "public" in added["read"] and "public" not in added["write"]


@pytest.mark.slow
def test_contexts_and_groups_round_trip(cli: Any) -> None:
    ctx, group = unique("desk"), unique("work")
    code, made, _ = cli("contexts", "create", ctx, "--description", "my desk")
    assert code == 0 and made["name"] == ctx and made["description"] == "my desk"
    code, changed, _ = cli("contexts", "update", ctx, "--dice-floor", "0.4")
    assert code == 0 and changed["dice_floor"] == 0.4
    assert cli("contexts", "show", ctx)[1]["dice_floor"] == 0.4
    assert ctx in [c["name"] for c in cli("contexts", "list")[1]]
    code, made, _ = cli("groups", "create", group, "--context", ctx)
    assert code == 0 and made["contexts"] == [ctx]
    renamed = ctx + "-2"
    assert cli("contexts", "rename", ctx, renamed)[1]["name"] == renamed
    assert cli("groups", "show", group)[1]["contexts"] == [renamed]
    code, changed, _ = cli("groups", "change", group, "--remove-context", renamed)
    assert code == 0 and changed["contexts"] == []
    assert cli("groups", "rename", group, group + "-2")[1]["name"] == group + "-2"
    group += "-2"
    assert group in [g["name"] for g in cli("groups", "list")[1]]
    assert cli("groups", "delete", group)[1] == {"deleted": group}
    code, _, err = cli("sources", "refresh-embeddings", "--context", renamed)  # no embedder here
    assert code == 2 and "[conflict]" in err
    assert cli("contexts", "delete", renamed)[1]["deleted"] == renamed
    code, _, err = cli("contexts", "show", renamed)
    assert code == 2 and "[no_context]" in err
    code, _, err = cli("contexts", "update", unique("none"), "--dice-floor", "2")
    assert code == 2 and err.startswith("error [")
