"""Claims, associations, aliases and retraction against the real store."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from tabane.contexts import contexts
from tabane.errors import AliasConflict, Forbidden, InvalidInput, NoClaim, NoConcept
from tabane.graph.claims import write as claims_mod
from tabane.graph.claims.parse import parse_claims
from tabane.graph.edges import Window, net
from tabane.ingest.documents import DocumentInput
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import Association, Claim, Context

from helpers import unique


def edge(
    svc: Tabane, user: Principal, context: str, s: str, label: str, o: str
) -> tuple[float, int]:
    with svc.store.session(user) as session:
        row = session.execute(
            select(func.sum(Association.weight), func.sum(Association.claims)).where(
                Association.subject == s,
                Association.label == label,
                Association.object == o,
                Association.context_id
                == select(Context.id).where(Context.name == context).scalar_subquery(),
            )
        ).one()
    return (float(row[0] or 0.0), int(row[1] or 0))


def test_batch_nets_weights_and_mints_spellings(svc: Tabane, user: Principal, context: str) -> None:
    batch = parse_claims(
        [
            {"subject": "ストレス", "label": "引き起こす", "object": "不眠", "weight": 1.0},
            {"subject": "ストレス", "label": "引き起こす", "object": "不眠", "weight": 0.5},
            {"subject": "カフェイン", "label": "引き起こす", "object": "不眠", "weight": -0.8},
        ]
    )
    report = svc.add_claims(user, context, batch)
    assert len(report.claims) == 3 and report.associations == 2
    assert report.minted_concepts == ("カフェイン", "ストレス", "不眠")
    assert report.minted_labels == ("引き起こす",)
    assert edge(svc, user, context, "ストレス", "引き起こす", "不眠") == (1.5, 2)
    assert edge(svc, user, context, "カフェイン", "引き起こす", "不眠") == (-0.8, 1)
    again = svc.add_claims(user, context, parse_claims([batch[0].__dict__ | {"closes": []}]))
    assert again.minted_concepts == () and again.minted_labels == ()
    assert edge(svc, user, context, "ストレス", "引き起こす", "不眠") == (2.5, 3)


def test_padded_spellings_are_the_same_concept(svc: Tabane, user: Principal, context: str) -> None:
    first = svc.add_claims(
        user,
        context,
        parse_claims([{"subject": "coffee", "label": "keeps", "object": "me up", "weight": 1.0}]),
    )
    padded = [{"subject": "  coffee ", "label": " keeps", "object": "me   up ", "weight": 0.5}]
    again = svc.add_claims(user, context, parse_claims(padded))
    assert first.minted_concepts == ("coffee", "me up") and again.minted_concepts == ()
    assert again.minted_labels == () and edge(svc, user, context, "coffee", "keeps", "me up") == (
        1.5,
        2,
    )


def test_bad_batch_names_every_problem_and_writes_nothing(
    svc: Tabane, user: Principal, context: str
) -> None:
    items: list[object] = [{"subject": "a", "label": "b", "object": "c", "weight": 1}] * 20
    items[3] = {"subject": "a", "label": "b", "object": "c", "weight": math.nan}
    items[17] = {"subject": " ", "label": "b", "object": "c", "weight": math.inf, "x": 1}
    items[18] = {"subject": "a", "label": "b", "object": "c", "weight": 2e6}
    items[19] = {"subject": "a", "label": "b", "object": "c", "weight": 10**400}  # JSON integer
    with pytest.raises(InvalidInput) as err:
        parse_claims(items)
    problems = {(i.path, i.problem) for i in err.value.issues}
    assert ("associations[3].weight", "not finite") in problems
    assert ("associations[17].weight", "not finite") in problems
    assert ("associations[17].subject", "empty") in problems
    assert ("associations[17].x", "unknown field") in problems
    assert ("associations[18].weight", "|weight| > 1e+06") in problems
    assert ("associations[19].weight", "not finite") in problems
    with pytest.raises(InvalidInput):
        parse_claims([{"subject": "a", "label": "b", "object": "c", "weight": 1}] * 10_001)


def test_paragraph_attribution_must_exist(svc: Tabane, user: Principal, context: str) -> None:
    svc.ingest(user, context, DocumentInput(source_id="doc", data=b"one\n\ntwo", format="text"))
    good = {"subject": "a", "label": "b", "object": "c", "weight": 1, "source": "doc"}
    with pytest.raises(InvalidInput) as err:
        svc.add_claims(
            user, context, parse_claims([good | {"paragraph": 0}, good | {"paragraph": 2}])
        )
    assert [i.path for i in err.value.issues] == ["associations[1].paragraph"]
    assert edge(svc, user, context, "a", "b", "c") == (0.0, 0)


def test_retracting_a_source_closes_its_claims_and_keeps_the_edge(
    svc: Tabane, user: Principal, context: str
) -> None:
    svc.ingest(
        user,
        context,
        DocumentInput(source_id="paper-a", data=b"Stress causes insomnia.", format="text"),
    )
    claim = {"subject": "stress", "label": "causes", "object": "insomnia"}
    svc.add_claims(
        user,
        context,
        parse_claims(
            [claim | {"weight": 1.0, "source": "paper-a", "paragraph": 0}, claim | {"weight": 0.25}]
        ),
    )
    result = svc.retract(user, context, "paper-a")
    assert (result.claims, result.associations) == (1, 1)
    assert edge(svc, user, context, "stress", "causes", "insomnia") == (0.25, 1)
    svc.retract_associations(user, context, [("stress", "causes", "insomnia", None, None)])
    assert edge(svc, user, context, "stress", "causes", "insomnia") == (0.0, 0)


def test_a_correction_closes_the_earlier_claim(svc: Tabane, user: Principal, context: str) -> None:
    first = svc.add_claims(
        user,
        context,
        parse_claims([{"subject": "Hana", "label": "lives_in", "object": "Oslo", "weight": 1}]),
    )
    svc.add_claims(
        user,
        context,
        parse_claims(
            [
                {
                    "subject": "Hana",
                    "label": "lives_in",
                    "object": "Bergen",
                    "weight": 1,
                    "closes": list(first.claims),
                    "valid_from": "2024-05-01",
                }
            ]
        ),
    )
    assert edge(svc, user, context, "Hana", "lives_in", "Oslo") == (0.0, 0)
    assert edge(svc, user, context, "Hana", "lives_in", "Bergen") == (1.0, 1)
    with pytest.raises(NoClaim):
        svc.add_claims(
            user,
            context,
            parse_claims(
                [
                    {
                        "subject": "x",
                        "label": "y",
                        "object": "z",
                        "weight": 1,
                        "closes": list(first.claims),
                    }
                ]
            ),
        )


def test_a_correction_never_extends_what_had_ended(
    svc: Tabane, user: Principal, context: str
) -> None:
    """A correction ends the claim where it begins, unless the claim had ended earlier; the end
    it had is kept (an erased correction gives it back: graph/forget.py)."""
    base = {"subject": "valve", "label": "state", "weight": 1}
    old = svc.add_claims(
        user,
        context,
        parse_claims(
            [base | {"object": "open", "valid_until": "2020-01-01"}, base | {"object": "shut"}]
        ),
    ).claims
    fix = base | {"object": "leaking", "closes": list(old), "valid_from": "2024-05-01"}
    svc.add_claims(user, context, parse_claims([fix]))
    with svc.store.session(user) as session:
        ends = {
            c.object: (c.valid_until, c.valid_until_before)
            for c in session.scalars(select(Claim).where(Claim.id.in_(old)))
        }
    assert ends == {
        "open": (datetime(2020, 1, 1, tzinfo=UTC), datetime(2020, 1, 1, tzinfo=UTC)),
        "shut": (datetime(2024, 5, 1, tzinfo=UTC), None),
    }


def test_aliases_are_entry_only(svc: Tabane, user: Principal, context: str) -> None:
    svc.add_claims(
        user,
        context,
        parse_claims(
            [
                {"subject": "arm_motors", "label": "kind", "object": "function", "weight": 1},
                {"subject": "motors_armed", "label": "kind", "object": "flag", "weight": 1},
            ]
        ),
    )
    info, created = svc.add_alias(user, context, "armMotors", "arm_motors")
    assert created and info.target == "arm_motors"
    report = svc.add_claims(
        user,
        context,
        parse_claims([{"subject": "armMotors", "label": "calls", "object": "pwm", "weight": 1}]),
    )
    assert report.aliased == {"armMotors": "arm_motors"}
    assert edge(svc, user, context, "arm_motors", "calls", "pwm") == (1.0, 1)
    with pytest.raises(AliasConflict):  # an alias may not join two existing concepts
        svc.add_alias(user, context, "motors_armed", "arm_motors")
    with pytest.raises(AliasConflict):
        svc.add_alias(user, context, "armMotors", "motors_armed")
    assert svc.remove_alias(user, context, "armMotors") == 1
    assert [a.alias for a in svc.list_aliases(user, context)] == []


def test_case_twins_are_distinct(svc: Tabane, user: Principal, context: str) -> None:
    report = svc.add_claims(
        user,
        context,
        parse_claims(
            [
                {"subject": "Frame", "label": "kind", "object": "type", "weight": 1},
                {"subject": "frame", "label": "kind", "object": "accessor", "weight": 1},
            ]
        ),
    )
    assert report.minted_concepts == ("Frame", "accessor", "frame", "type")


def test_personal_kinds_keep_one_partition_per_author(
    svc: Tabane, user: Principal, context: str
) -> None:
    opinion = {"subject": "jazz", "label": "is", "object": "good", "kind": "opinion"}
    svc.add_claims(
        user,
        context,
        parse_claims(
            [opinion | {"weight": 1, "author": "alice"}, opinion | {"weight": -1, "author": "bob"}]
        ),
    )
    with svc.store.session(user) as session:
        rows = session.execute(
            select(Association.perspective, Association.weight).where(Association.subject == "jazz")
        ).all()
    assert sorted(rows) == [("alice", 1.0), ("bob", -1.0)]


def test_claims_need_writable_scopes(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    owner = make_user()
    other = make_user(extra_read=[f"user:{owner.name}"])
    context = make_context(owner)
    with pytest.raises(Forbidden):
        svc.add_claims(
            other,
            context,
            parse_claims([{"subject": "a", "label": "b", "object": "c", "weight": 1}]),
            scopes=[f"user:{owner.name}"],
        )


def test_a_claim_may_be_a_statement_alone(svc: Tabane, user: Principal, context: str) -> None:
    with pytest.raises(InvalidInput) as err:  # graph writes need the triple by default
        parse_claims([{"statement": "Stress is common."}])
    assert {i.path for i in err.value.issues} == {
        "associations[0].subject",
        "associations[0].label",
        "associations[0].object",
    }
    with pytest.raises(InvalidInput) as err:  # part of a triple is never enough
        parse_claims([{"statement": "x", "subject": "a"}], require_triple=False)
    assert {i.path for i in err.value.issues} == {
        "associations[0].label",
        "associations[0].object",
        "associations[0].weight",
    }
    with pytest.raises(InvalidInput) as err:
        parse_claims([{"author": "me"}], require_triple=False)
    assert [i.path for i in err.value.issues] == ["associations[0]"]
    triple = svc.add_claims(
        user,
        context,
        parse_claims([{"subject": "stress", "label": "is", "object": "common", "weight": 1}]),
    )
    said = parse_claims(
        [{"statement": "Stress is not that common.", "closes": list(triple.claims)}],
        require_triple=False,
    )
    assert said[0].triple is None and said[0].weight is None
    report = svc.add_claims(user, context, said)
    assert (report.associations, report.minted_concepts, report.closed) == (0, (), 1)
    # The statement closed the triple claim: the edge stays, at 0.
    assert edge(svc, user, context, "stress", "is", "common") == (0.0, 0)
    with svc.store.session(user) as session:
        row = session.execute(select(Claim).where(Claim.id == report.claims[0])).scalar_one()
        assert (row.subject, row.weight, row.statement) == (None, None, said[0].statement)


def test_retracting_no_edges_closes_nothing(svc: Tabane, user: Principal, context: str) -> None:
    """An OR of no conditions is no condition: it must not reach every claim of the context."""
    svc.add_claims(
        user, context, parse_claims([{"subject": "a", "label": "r", "object": "b", "weight": 1}])
    )
    with svc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        report = claims_mod.retract_edges(session, user, ctx, [])
    assert (report.claims, report.associations) == (0, 0)
    assert edge(svc, user, context, "a", "r", "b") == (1.0, 1)


def test_an_alias_in_another_scope_set_than_its_concept(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    """Alice's concept is private, her alias of it public: Bob's writes through the alias land
    on the canonical spelling (in his own scope set); he cannot alias her private concept."""
    alice, bob = make_user("alice"), make_user("bob")
    context = unique("ctx")
    svc.create_context(alice, context, scopes=["public"])
    mine = [f"user:{alice.name}"]
    claim = {"subject": "arm_motors", "label": "calls", "object": "pwm", "weight": 1}
    svc.add_claims(alice, context, parse_claims([claim]), scopes=mine)
    with pytest.raises(NoConcept):  # Bob cannot see arm_motors
        svc.add_alias(bob, context, "armMotors", "arm_motors", scopes=["public"])
    info, created = svc.add_alias(alice, context, "armMotors", "arm_motors", scopes=["public"])
    assert created and info.scopes == ("public",)
    assert [(a.alias, a.target) for a in svc.list_aliases(bob, context)] == [
        ("armMotors", "arm_motors")
    ]
    report = svc.add_claims(
        bob,
        context,
        parse_claims([{"subject": "armMotors", "label": "calls", "object": "pwm", "weight": 0.5}]),
        scopes=["public"],
    )
    assert report.aliased == {"armMotors": "arm_motors"}
    assert report.minted_concepts == ("arm_motors", "pwm")  # new to Bob's scope set
    assert edge(svc, bob, context, "arm_motors", "calls", "pwm") == (0.5, 1)
    assert edge(svc, alice, context, "arm_motors", "calls", "pwm") == (1.5, 2)
    with pytest.raises(AliasConflict):  # the public alias already points elsewhere
        svc.add_alias(bob, context, "armMotors", "pwm", scopes=["public"])
    # Retracting through the alias reaches the canonical edge, only where the caller may write.
    closed = svc.retract_associations(bob, context, [("armMotors", "calls", "pwm", None, None)])
    assert closed.claims == 1
    assert edge(svc, alice, context, "arm_motors", "calls", "pwm") == (1.0, 1)


def test_a_default_alias_is_read_where_its_target_is_and_yours_wins_for_you(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    """Without `scopes` an alias of a private concept stays as private as it is (a public one
    would show the name to readers who cannot resolve it). Two aliases of one spelling under
    different scope sets: each reader lists every one they see, and the narrowest — their own
    word for it — decides where their writes land."""
    alice, bob = make_user("alice"), make_user("bob")
    context = unique("ctx")
    svc.create_context(alice, context, scopes=["public"])
    mine = [f"user:{alice.name}"]
    secret = {"subject": "Project Falcon", "label": "due", "object": "March", "weight": 1}
    svc.add_claims(alice, context, parse_claims([secret]), scopes=mine)
    info, _ = svc.add_alias(alice, context, "PF", "Project Falcon")  # no scopes given
    assert info.scopes == tuple(mine)
    assert svc.list_aliases(bob, context) == []
    assert svc.resolve(bob, context, "PF").candidates == []

    city = {"label": "has", "object": "subway", "weight": 1}
    svc.add_claims(alice, context, parse_claims([city | {"subject": "New York"}]), scopes=mine)
    svc.add_claims(bob, context, parse_claims([city | {"subject": "Boston"}]))
    svc.add_alias(alice, context, "NYC", "New York")  # private, as its target
    svc.add_alias(bob, context, "NYC", "Boston")  # public: Bob cannot see Alice's
    listed = [(a.alias, a.target) for a in svc.list_aliases(alice, context) if a.alias == "NYC"]
    assert listed == [("NYC", "New York"), ("NYC", "Boston")]  # hers first: it wins for her
    report = svc.add_claims(alice, context, parse_claims([city | {"subject": "NYC"}]), scopes=mine)
    assert report.aliased == {"NYC": "New York"}
    assert svc.add_claims(bob, context, parse_claims([city | {"subject": "NYC"}])).aliased == {
        "NYC": "Boston"
    }


def test_a_claim_built_in_python_gets_the_spellings_a_parsed_one_does(
    svc: Tabane, user: Principal, context: str
) -> None:
    """`Tabane.add_claims` with ClaimInput built by hand: spaces, NFD, zero-width and no-break
    characters are stored as parse_claims stores them; control characters are refused."""
    from tabane.errors import InvalidInput
    from tabane.graph.claims.parse import ClaimInput

    report = svc.add_claims(
        user,
        context,
        [
            ClaimInput("  coffee ", "is", "hot", 1.0),
            ClaimInput("coffee\u200b", "is", "cafe\u0301", 1.0),
            ClaimInput("co\u00adffee\u00a0", "is", "caf\u00e9", 1.0),
        ],
    )
    assert report.minted_concepts == ("café", "coffee", "hot")
    with pytest.raises(InvalidInput) as bad:
        svc.add_claims(user, context, [ClaimInput("tea\n\tpot", "is", "hot", 1.0)])
    assert [i.path for i in bad.value.issues] == ["associations[0].subject"]


def test_window_reads_count_superseded_claims_for_their_valid_time(
    svc: Tabane, user: Principal, context: str
) -> None:
    lives = {"subject": "Hana", "label": "lives_in", "weight": 1}
    old = svc.add_claims(
        user, context, parse_claims([lives | {"object": "Oslo", "valid_from": "2020-01-01"}])
    )
    svc.add_claims(
        user,
        context,
        parse_claims(
            [
                lives
                | {"object": "Bergen", "valid_from": "2024-05-01", "closes": list(old.claims)},
                lives | {"object": "Rome", "valid_from": "2019-01-01", "weight": 0.5},
                {"subject": "Hana", "label": "likes", "object": "tea", "weight": 1},  # from now
            ]
        ),
    )
    svc.retract_associations(user, context, [("Hana", "lives_in", "Rome", None, None)])

    def read(window: Window | None) -> dict[str, tuple[float, int]]:
        with svc.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            edges = net([ctx.id], window)
            rows = session.execute(select(edges.c.object, edges.c.weight, edges.c.claims))
            return {r.object: (float(r.weight), int(r.claims)) for r in rows}

    def at(day: str) -> datetime:
        return datetime.fromisoformat(day).replace(tzinfo=UTC)

    # Without a window: the association rows, closed edges at 0.
    assert read(None) == {
        "Oslo": (0.0, 0),
        "Bergen": (1.0, 1),
        "Rome": (0.0, 0),
        "tea": (1.0, 1),
    }
    # A retracted claim was never true; a superseded one was, until its successor began.
    assert read(Window(until=at("2023-01-01"))) == {"Oslo": (1.0, 1)}
    assert read(Window(until=at("2019-06-01"))) == {}
    assert read(Window(since=at("2023-01-01"), until=at("2025-01-01"))) == {
        "Oslo": (1.0, 1),
        "Bergen": (1.0, 1),
    }
    assert read(Window(since=at("2024-05-01"), until=at("2025-01-01"))) == {"Bergen": (1.0, 1)}
    assert read(Window(since=at("2025-01-01"))) == {"Bergen": (1.0, 1), "tea": (1.0, 1)}


def test_a_visible_concept_wins_over_an_alias_of_the_same_spelling(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    """A's private alias x → y must not redirect the public concept x that B minted later."""
    a, b = make_user(), make_user()
    context = make_context(a, scopes=["public"])
    svc.add_claims(
        a, context, parse_claims([{"subject": "y", "label": "is", "object": "z", "weight": 1}])
    )
    svc.add_alias(a, context, "x", "y", scopes=[f"user:{a.name}"])
    svc.add_claims(
        b, context, parse_claims([{"subject": "x", "label": "is", "object": "w", "weight": 1}])
    )
    report = svc.add_claims(
        a, context, parse_claims([{"subject": "x", "label": "is", "object": "v", "weight": 1}])
    )
    assert report.aliased == {}  # a sees the concept x, so x stays x
    assert edge(svc, a, context, "x", "is", "v") == (1.0, 1)
    assert edge(svc, a, context, "y", "is", "v") == (0.0, 0)
