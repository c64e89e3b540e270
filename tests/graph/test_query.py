"""query (OR-lists, any, paging, windows, partitions, cross-context), describe, labels and
association citations against the real store."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from tabane.errors import InvalidInput, NoConcept, NoContext, NotFound
from tabane.graph.claims.parse import parse_claims
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique


def write(svc: Tabane, user: Principal, context: str, *claims: dict[str, Any], **kw: Any) -> None:
    svc.add_claims(user, context, parse_claims(list(claims)), **kw)


def c(s: str, label: str, o: str, w: float, **more: Any) -> dict[str, Any]:
    return {"subject": s, "label": label, "object": o, "weight": w, **more}


def triples(result: Any) -> list[tuple[str, str, str, float]]:
    return [(e.subject, e.label, e.object, e.weight) for e in result.edges]


CAUSAL = (
    c("stress", "causes", "insomnia", 1.0),
    c("caffeine", "causes", "insomnia", -0.8),
    c("exercise", "prevents", "insomnia", 1.0),
    c("stress", "correlates", "anxiety", 0.3),
    c("insomnia", "causes", "fatigue", 0.6),
)


def test_or_lists_any_and_aliases(svc: Tabane, user: Principal, context: str) -> None:
    write(svc, user, context, *CAUSAL)
    why = svc.query(user, contexts=[context], label=["causes", "prevents"], object="insomnia")
    assert triples(why) == [
        ("exercise", "prevents", "insomnia", 1.0),  # |1.0| tie: subject order
        ("stress", "causes", "insomnia", 1.0),
        ("caffeine", "causes", "insomnia", -0.8),  # negative: "does not cause", still returned
    ]
    assert why.total == 3 and why.next is None and why.edges[0].context == context
    touching = svc.query(user, contexts=[context], any=["insomnia"])
    assert {e.subject for e in touching.edges} == {"stress", "caffeine", "exercise", "insomnia"}
    assert touching.total == 4
    none = svc.query(user, contexts=[context], any="causes")  # a label is not a concept
    assert none.total == 0
    svc.add_alias(user, context, "Stress", "stress")
    aliased = svc.query(user, contexts=[context], subject="Stress", object=["anxiety", "nope"])
    assert triples(aliased) == [("stress", "correlates", "anxiety", 0.3)]
    assert aliased.aliased == {"Stress": "stress"}


def test_truncation_keeps_the_strongest_and_pages_without_gaps(
    svc: Tabane, user: Principal, context: str
) -> None:
    weights = [0.5, -3.0, 2.0, 2.0, -2.0, 0.1, 1.5, 1.5, -0.7, 4.0, 0.9, -1.1, 0.2]
    write(svc, user, context, *(c("hub", f"l{i % 3}", f"n{i}", w) for i, w in enumerate(weights)))
    everything = svc.query(user, contexts=[context], any="hub", limit=1000)
    assert everything.total == len(weights)
    magnitudes = [abs(e.weight) for e in everything.edges]
    assert magnitudes == sorted(magnitudes, reverse=True)
    top = svc.query(user, contexts=[context], subject="hub", limit=3)
    assert [e.weight for e in top.edges] == [4.0, -3.0, 2.0] and top.total == len(weights)
    seen, after, pages = [], None, 0
    while True:
        page = svc.query(user, contexts=[context], subject="hub", limit=4, after=after)
        assert page.total == len(weights)
        seen.extend(triples(page))
        pages += 1
        if page.next is None:
            break
        after = page.next
    assert seen == triples(everything) and pages == 4
    with pytest.raises(InvalidInput) as err:
        svc.query(user, contexts=[context], subject="hub", after="not-a-cursor")
    assert [i.path for i in err.value.issues] == ["after"]
    forged = base64.urlsafe_b64encode(json.dumps(["q", 1.0, "a", "b", "c", "", True]).encode())
    with pytest.raises(InvalidInput) as err:  # true is no row id: refused, never sent to SQL
        svc.query(user, contexts=[context], subject="hub", after=forged.decode())
    assert [i.path for i in err.value.issues] == ["after"]


def test_windows_count_superseded_claims_while_they_were_valid(
    svc: Tabane, user: Principal, context: str
) -> None:
    first = svc.add_claims(
        user, context, parse_claims([c("Hana", "lives_in", "Oslo", 1, valid_from="2020-01-01")])
    )
    write(
        svc, user, context,
        c("Hana", "lives_in", "Bergen", 1, valid_from="2024-05-01", closes=list(first.claims)),
    )  # fmt: skip

    def where(since: str | None, until: str | None) -> list[str]:
        got = svc.query(
            user,
            contexts=[context],
            subject="Hana",
            since=None if since is None else datetime.fromisoformat(since).replace(tzinfo=UTC),
            until=None if until is None else datetime.fromisoformat(until).replace(tzinfo=UTC),
        )
        return sorted(e.object for e in got.edges)

    assert where(None, None) == ["Bergen", "Oslo"]  # the superseded edge stays, at weight 0
    now = svc.query(user, contexts=[context], subject="Hana")
    assert [(e.object, e.weight) for e in now.edges] == [("Bergen", 1.0), ("Oslo", 0.0)]
    assert now.edges[1].attributions[0].close_reason == "superseded"
    live = svc.query(user, contexts=[context], subject="Hana", include_retracted=False)
    assert [e.object for e in live.edges] == ["Bergen"]  # the superseded claim no longer counts
    assert where("2021-01-01", "2022-01-01") == ["Oslo"]
    assert where("2023-01-01", "2025-01-01") == ["Bergen", "Oslo"]
    assert where("2025-01-01", None) == ["Bergen"]
    with pytest.raises(InvalidInput) as err:
        svc.query(
            user, contexts=[context], since=datetime(2025, 1, 1, tzinfo=UTC),
            until=datetime(2024, 1, 1, tzinfo=UTC),
        )  # fmt: skip
    assert err.value.issues[0].path == "until"


def test_perspective_partitions_stay_apart(svc: Tabane, user: Principal, context: str) -> None:
    jazz = {"subject": "jazz", "label": "is", "object": "good", "kind": "opinion"}
    write(
        svc, user, context,
        jazz | {"weight": 1.0, "perspective": "alice"},
        jazz | {"weight": -1.0, "perspective": "bob"},
        jazz | {"weight": 0.5, "perspective": "bob"},
        c("jazz", "is", "good", 0.25),
    )  # fmt: skip
    result = svc.query(user, contexts=[context], subject="jazz")
    assert [(e.perspective, e.weight, e.claims) for e in result.edges] == [
        ("alice", 1.0, 1),
        ("bob", -0.5, 2),  # bob's two opinions net; never summed with alice's or the world's
        (None, 0.25, 1),
    ]
    bobs = svc.query(user, contexts=[context], subject="jazz", perspective="bob")
    assert [(e.perspective, e.weight) for e in bobs.edges] == [("bob", -0.5)]
    world = svc.query(user, contexts=[context], subject="jazz", perspective="")
    assert [(e.perspective, e.weight) for e in world.edges] == [(None, 0.25)]


@pytest.mark.slow
def test_cross_context_tags_and_group_expansion(
    svc: Tabane, user: Principal, make_context: Callable[..., str]
) -> None:
    a, b, outside = make_context(), make_context(), make_context()
    write(svc, user, a, c("sake", "made_from", "rice", 1.0))
    write(svc, user, b, c("sake", "made_from", "koji", 2.0), c("beer", "made_from", "barley", 3))
    write(svc, user, outside, c("sake", "made_from", "water", 9.0))
    group, parent = unique("g"), unique("g")
    svc.create_group(user, group, contexts=[a, b])
    svc.create_group(user, parent, groups=[group])
    result = svc.query(user, groups=[parent], contexts=[a], any="sake")
    assert [(e.context, e.object) for e in result.edges] == [(b, "koji"), (a, "rice")]
    assert set(result.contexts) == {a, b}
    # an alias in one context maps the cue there only
    svc.add_alias(user, a, "nihonshu", "sake")
    aliased = svc.query(user, contexts=[a, b], subject="nihonshu")
    assert [(e.context, e.object) for e in aliased.edges] == [(a, "rice")]
    with pytest.raises(InvalidInput):
        svc.query(user, any="sake")
    with pytest.raises(NoContext):
        svc.query(user, contexts=["no-such-context"], any="sake")


def test_another_users_private_claims_are_invisible(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    org = unique("org:q")
    alice = make_user(extra_write=(org,))
    bob = make_user(extra_write=(org,))
    shared = make_context(alice, scopes=[org])
    write(svc, alice, shared, c("kettle", "boils", "water", 1.0))
    write(
        svc, alice, shared, c("kettle", "hides", "secret", 5.0), c("kettle", "boils", "water", 2),
        scopes=[f"user:{alice.name}"],
    )  # fmt: skip
    mine = svc.query(alice, contexts=[shared], subject="kettle")
    assert triples(mine) == [("kettle", "hides", "secret", 5.0), ("kettle", "boils", "water", 3.0)]
    theirs = svc.query(bob, contexts=[shared], subject="kettle")
    assert triples(theirs) == [("kettle", "boils", "water", 1.0)]
    assert svc.describe(bob, shared, "kettle").degree == 1
    assert [u.label for u in svc.labels(bob, shared).labels] == ["boils"]
    with pytest.raises(NoConcept):
        svc.describe(bob, shared, "secret")
    with pytest.raises(NoConcept):
        svc.association_citations(bob, shared, "kettle", "hides", "secret")
    stats = svc.get_context(bob, shared).stats
    assert (stats.concepts, stats.labels, stats.associations) == (2, 1, 1)


def test_describe_counts_labels_per_role(svc: Tabane, user: Principal, context: str) -> None:
    write(svc, user, context, *CAUSAL, c("insomnia", "causes", "insomnia", 0.1))
    svc.add_alias(user, context, "sleeplessness", "insomnia")
    d = svc.describe(user, context, "sleeplessness")
    assert d.concept == "insomnia" and d.aliases == ("sleeplessness",)
    assert [(x.label, x.edges, x.weight) for x in d.as_subject] == [
        ("causes", 2, pytest.approx(0.7))
    ]
    assert [(x.label, x.edges, x.weight) for x in d.as_object] == [
        ("causes", 3, pytest.approx(0.3)),
        ("prevents", 1, 1.0),
    ]
    assert d.degree == 5  # the self-loop once
    assert d.strength == pytest.approx(1.0 + 0.8 + 1.0 + 0.6 + 0.1)
    with pytest.raises(NoConcept) as err:
        svc.describe(user, context, "nothing-like-it")
    assert err.value.code == "no_concept" and err.value.issues[0].path == "concept"


def test_labels_page_with_prefix_and_counts(svc: Tabane, user: Principal, context: str) -> None:
    write(
        svc, user, context,
        *(c("a", f"label{i:02d}", f"b{j}", 1) for i in range(7) for j in range(i % 3 + 1)),
        c("a", "Other", "b", 1),
    )  # fmt: skip
    svc.retract_associations(user, context, [("a", "Other", "b", None, None)])
    names, after = [], None
    while True:
        page = svc.labels(user, context, limit=3, after=after)
        names.extend((u.label, u.edges) for u in page.labels)
        if page.next is None:
            break
        after = page.next
    assert names == [("Other", 0)] + [(f"label{i:02d}", i % 3 + 1) for i in range(7)]
    assert [u.label for u in svc.labels(user, context, prefix="LABEL0").labels][:2] == [
        "label00",
        "label01",
    ]
    assert svc.labels(user, context, prefix="oth").labels[0].label == "Other"
    with pytest.raises(InvalidInput):
        svc.labels(user, context, limit=0)


def test_citations_carry_text_section_and_locator(
    svc: Tabane, user: Principal, context: str
) -> None:
    svc.ingest(
        user,
        context,
        DocumentInput(
            source_id="paper",
            paragraphs=[
                block("Intro."),
                block("Stress causes insomnia.", ["Results"], {"kind": "page", "start": 4}),
            ],
            title="Sleep paper",
        ),
    )
    write(
        svc, user, context,
        c("stress", "causes", "insomnia", 1.0, source="paper", paragraph=1),
        c("stress", "causes", "insomnia", 0.5, statement="heard it somewhere"),
    )  # fmt: skip
    svc.add_alias(user, context, "Stress", "stress")
    cited = svc.association_citations(user, context, "Stress", "causes", "insomnia")
    (part,) = cited.associations
    assert (cited.subject, part.weight, part.claims, part.perspective) == ("stress", 1.5, 2, None)
    first, second = part.citations
    assert (first.text, first.section, first.title) == (
        "Stress causes insomnia.",
        ("Results",),
        "Sleep paper",
    )
    assert first.locator is not None and (first.locator["kind"], first.locator["start"]) == (
        "page",
        4,
    )
    assert second.source is None and second.statement == "heard it somewhere"
    edge = svc.query(user, contexts=[context], subject="stress").edges[0]
    assert edge.attributions[0].section == ("Results",) and edge.attributions[0].locator
    with pytest.raises(NotFound) as err:
        svc.association_citations(user, context, "stress", "prevents", "insomnia")
    assert err.value.code == "not_found"


def test_query_input_errors_name_their_paths(svc: Tabane, user: Principal, context: str) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"subject": []}, "subject"),
        ({"any": ["ok", " "]}, "any[1]"),
        ({"label": 3}, "label"),
    ]
    for kwargs, path in cases:
        with pytest.raises(InvalidInput) as err:
            svc.query(user, contexts=[context], **kwargs)
        assert err.value.code == "invalid_input"
        assert [i.path for i in err.value.issues] == [path], kwargs


def test_a_retracted_edge_stays_at_weight_zero_with_its_history(
    svc: Tabane, user: Principal, context: str
) -> None:
    """Regression (issue 35): weights drop, edges stay — an edge whose only source is retracted
    is still read by `query`, at weight 0, its closed claims as its attributions; a read that
    wants live edges only says so."""
    svc.ingest(
        user,
        context,
        DocumentInput(source_id="old", paragraphs=[block("Stress causes insomnia.", ["Results"])]),
    )
    write(
        svc, user, context,
        c("stress", "causes", "insomnia", 1.0, source="old", paragraph=0),
        c("stress", "causes", "fatigue", 0.5),
    )  # fmt: skip
    svc.retract(user, context, "old")
    got = svc.query(user, contexts=[context], subject="stress")
    assert triples(got) == [
        ("stress", "causes", "fatigue", 0.5),
        ("stress", "causes", "insomnia", 0.0),
    ]
    assert got.total == 2
    gone = got.edges[1]
    assert gone.claims == 0
    (history,) = gone.attributions
    assert (history.source, history.weight, history.close_reason) == ("old", 1.0, "retracted")
    assert history.closed_at is not None
    assert got.edges[0].attributions[0].close_reason is None  # a live claim
    live = svc.query(user, contexts=[context], subject="stress", include_retracted=False)
    assert triples(live) == [("stress", "causes", "fatigue", 0.5)] and live.total == 1


def test_weights_are_served_rounded_and_sections_as_lists(
    svc: Tabane, user: Principal, context: str
) -> None:
    """0.1 + 0.2 is stored as the sum PostgreSQL computes, and served as 0.3; an attribution's
    section is its heading path, a list, as in citations."""
    svc.ingest(
        user,
        context,
        DocumentInput(source_id="doc", paragraphs=[block("Tea.", ["Drinks", "Hot"])]),
    )
    write(
        svc, user, context,
        c("tea", "warms", "you", 0.1, source="doc", paragraph=0),
        c("tea", "warms", "you", 0.2),
    )  # fmt: skip
    (edge,) = svc.query(user, contexts=[context], subject="tea").edges
    assert edge.weight == 0.3 and repr(edge.weight) == "0.3"
    cited, bare = sorted(edge.attributions, key=lambda a: a.source is None)
    assert (cited.source, cited.section, bare.section) == ("doc", ("Drinks", "Hot"), ())
    (part,) = svc.association_citations(user, context, "tea", "warms", "you").associations
    assert repr(part.weight) == "0.3"
    assert repr(svc.describe(user, context, "tea").strength) == "0.3"
    hop = svc.activate(user, context, ["tea"]).edges[0]
    assert repr(hop.weight) == "0.3"
