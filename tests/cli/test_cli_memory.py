"""`tabane remember` and `tabane sessions …`, in process through Typer's runner."""

from __future__ import annotations

from typing import Any

import pytest

from helpers import unique


@pytest.mark.slow
def test_remember_and_sessions(cli: Any, context: str) -> None:
    code, made, _ = cli("remember", context, "I moved to Montana.", "--speaker", "Hannah")
    assert code == 0 and made["id"] > 0
    name = unique("trip")
    for i in range(3):
        code, turn, _ = cli("sessions", "add", name, f"t{i}", "--speaker", "Ravi")
        assert code == 0 and turn["seq"] == i + 1
    code, shown, _ = cli("sessions", "show", name, "--last", "2")
    assert [t["text"] for t in shown["turns"]] == ["t1", "t2"]
    code, shown, _ = cli("sessions", "show", name, TABANE_SESSION_TURNS="1")
    assert [t["text"] for t in shown["turns"]] == ["t2"]  # the configured window
    code, listed, _ = cli("sessions", "list")
    assert name in [s["name"] for s in listed["sessions"]]
    code, gone, _ = cli("sessions", "delete", name)
    assert gone == {"deleted": name, "turns": 3}
    code, _, err = cli("sessions", "show", name)
    assert code != 0 and "no_session" in err
    code, _, err = cli("remember", context, "  ")
    assert code != 0 and "invalid_input" in err


@pytest.mark.slow
def test_every_note_field_a_listing_and_errors_named_as_options(cli: Any, context: str) -> None:
    code, old, _ = cli("remember", context, "Ravi lives in Pune.", "--speaker", "Ravi")
    code, new, _ = cli(
        "remember", context, "Ravi thinks Oslo is cold.", "--speaker", "Hannah",
        "--kind", "opinion", "--perspective", "Ravi", "--role", "friend", "--source", "chat:7",
        "--valid-from", "2024-05-01", "--valid-until", "2024-09-01", "--closes", str(old["id"]),
        "--scope", "public", "--in-reply-to", "And Oslo?",
    )  # fmt: skip
    assert code == 0
    code, page, _ = cli("memories", context)
    [note] = [m for m in page["memories"] if m["id"] == new["id"]]
    assert (note["perspective"], note["role"], note["source"]) == ("Ravi", "friend", "chat:7")
    assert note["valid_until"].startswith("2024-09-01")
    assert note["in_reply_to"] == "And Oslo?"
    assert old["id"] not in [m["id"] for m in page["memories"]]
    code, page, _ = cli("memories", context, "--include-closed", "--author", "Ravi")
    assert [m["id"] for m in page["memories"]] == [old["id"]]  # closed, and Ravi's

    name = unique("team")
    code, turn, _ = cli("sessions", "add", name, "hello all", "--scope", "public")
    assert code == 0 and turn["seq"] == 1
    code, listed, _ = cli("sessions", "list")
    assert [s["scopes"] for s in listed["sessions"] if s["name"] == name] == [["public"]]

    for args, option in [  # an issue names the option typed, never the request's field
        (("remember", context, "x", "--valid-from", "yesterday"), "--valid-from"),
        (("remember", context, "x", "--paragraph", "0"), "--paragraph"),
        (("remember", context, "x", "--kind", "rumour"), "--kind"),
        (("memories", context, "--limit", "0"), "--limit"),
        (("sessions", "add", name, "x", "--at", "garbage"), "--at"),
        (("sessions", "add", name, "x", "--at", "2999-01-01"), "--at"),
        (("sessions", "show", name, "--last", "0"), "--last"),
    ]:
        code, _, err = cli(*args)
        assert code == 2 and f"\n  {option}: " in err, (args, err)
