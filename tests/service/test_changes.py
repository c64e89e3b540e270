"""A context's write log (`changes`, contexts/changes.py): every kind of event in order, pages
that join without a gap or a repeat, a cursor that gives the same page twice, a write still
open when a page is read that comes after its cursor (never before it), and row-level security
deciding what each caller sees."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import text

from tabane.contexts import contexts
from tabane.errors import InvalidInput, NoContext
from tabane.graph.claims.parse import ClaimInput
from tabane.graph.claims.write import write_batch
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane


def _all(svc: Tabane, user: Principal, context: str, limit: int = 1000) -> list[dict]:
    out, since = [], None
    while True:
        page = svc.changes(user, context, since=since, limit=limit)
        out += [vars(c) for c in page.changes]
        since = page.next
        if not page.more:
            return out


def test_every_kind_of_write_is_an_event_in_order(
    svc: Tabane, user: Principal, context: str
) -> None:
    doc = DocumentInput(source_id="doc", paragraphs=[block("Kettles boil water.")])
    svc.ingest(user, context, doc)
    [old] = svc.add_claims(user, context, [ClaimInput("Kettle", "boils", "Water", 1.0)]).claims
    svc.add_alias(user, context, "kettel", "Kettle")
    svc.add_claims(user, context, [ClaimInput("Kettle", "boils", "Milk", 1.0, closes=[old])])
    svc.retract(user, context, "doc")
    kinds = [
        (e["kind"], e["source"], e["subject"], e["object"], e["reason"])
        for e in _all(svc, user, context)
    ]
    assert kinds == [
        ("source_stored", "doc", None, None, None),
        ("claim_recorded", None, "Kettle", "Water", None),
        ("alias_added", None, "kettel", "Kettle", None),
        ("claim_recorded", None, "Kettle", "Milk", None),
        ("claim_closed", None, "Kettle", "Water", "superseded"),
        ("source_retracted", "doc", None, None, kinds[-1][4]),
    ]
    assert [e for e in _all(svc, user, context, limit=1)] == _all(svc, user, context)


def test_a_cursor_is_stable_and_a_late_commit_comes_after_it(
    svc: Tabane, user: Principal, context: str
) -> None:
    svc.add_claims(user, context, [ClaimInput("A", "to", "B", 1.0)])
    first = svc.changes(user, context)
    assert [c.subject for c in first.changes] == ["A"]
    with svc.store.session(user) as open_write:  # started now, commits after the next page
        open_write.execute(text("SELECT 1"))
        svc.add_claims(user, context, [ClaimInput("C", "to", "D", 1.0)])
        held = svc.changes(user, context, since=first.next)
        assert held.changes == ()  # C→D is newer than a transaction still open: held back
        assert held.next == first.next
        ctx = contexts.resolve(open_write, context)
        write_batch(open_write, user, ctx, [ClaimInput("E", "to", "F", 1.0)], tuple(ctx.scopes))
    later = svc.changes(user, context, since=first.next)
    assert [c.subject for c in later.changes] == ["E", "C"]  # E's transaction began first
    assert svc.changes(user, context, since=first.next) == later  # the same cursor, the same page
    assert svc.changes(user, context, since=later.next).changes == ()


def test_tail_gives_a_cursor_for_what_comes_next(
    svc: Tabane, user: Principal, context: str
) -> None:
    svc.add_claims(user, context, [ClaimInput("A", "to", "B", 1.0)])
    now = svc.changes(user, context, tail=True)
    assert now.changes == () and not now.more
    svc.add_claims(user, context, [ClaimInput("B", "to", "C", 1.0)])
    assert [c.subject for c in svc.changes(user, context, since=now.next).changes] == ["B"]


def test_what_a_caller_may_not_see_is_not_an_event(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    owner, reader = make_user(), make_user()
    svc.add_scope("team-chg")
    svc.grant(owner.name, "team-chg", write=True)
    svc.grant(reader.name, "team-chg", write=False)
    owner, reader = svc.principal(owner.name), svc.principal(reader.name)
    context = make_context(owner, scopes=["team-chg"])
    svc.add_claims(owner, context, [ClaimInput("Shared", "is", "seen", 1.0)])
    svc.add_claims(
        owner, context, [ClaimInput("Private", "is", "hidden", 1.0)], scopes=[f"user:{owner.name}"]
    )
    assert [e["subject"] for e in _all(svc, owner, context)] == ["Shared", "Private"]
    assert [e["subject"] for e in _all(svc, reader, context)] == ["Shared"]


@pytest.mark.parametrize("since", ["nonsense", "eyJhIjogMX0", ""])
def test_a_cursor_it_did_not_make_is_invalid_input(
    svc: Tabane, user: Principal, context: str, since: str
) -> None:
    with pytest.raises(InvalidInput) as caught:
        svc.changes(user, context, since=since)
    assert [i.path for i in caught.value.issues] == ["since"]


def test_bad_limit_and_unknown_context(svc: Tabane, user: Principal, context: str) -> None:
    for limit in (0, 1001):
        with pytest.raises(InvalidInput):
            svc.changes(user, context, limit=limit)
    with pytest.raises(NoContext):
        svc.changes(user, "no-such-context")
