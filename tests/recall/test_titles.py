"""The title lane: the maximal-title rule (pure), and the lane against the real store."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select

from tabane.ingest.documents import DocumentInput, block
from tabane.recall.titles import named_titles, title_lane
from tabane.service import Tabane
from tabane.storage.schema import Context, Source
from tabane.types import Principal


def named(question: str, *titles: str) -> list[tuple[str, bool]]:
    return [(m.title, m.direct) for m in named_titles(question, [(t, t) for t in titles])]


def test_a_title_inside_a_longer_named_title_loses_its_direct_authority() -> None:
    got = named_titles(
        "How does the Python Tutorial explain decorators?",
        [("a", "Python"), ("b", "Python Tutorial"), ("c", "Tutorial"), ("d", "Rust Book")],
    )
    assert [(m.ref, m.direct, m.within) for m in got] == [
        ("b", True, ()),
        ("a", False, ("python tutorial",)),
        ("c", False, ("python tutorial",)),
    ]


def test_unrelated_titles_named_together_stay_peers() -> None:
    assert named("Compare the Go Guide with the Rust Book", "Rust Book", "Go Guide") == [
        ("Go Guide", True),
        ("Rust Book", True),
    ]
    # named on its own elsewhere in the question, a shorter title keeps its authority
    assert named("Is Tokyo Tower in Tokyo?", "Tokyo", "Tokyo Tower") == [
        ("Tokyo Tower", True),
        ("Tokyo", True),
    ]


def test_word_boundaries_for_spaced_scripts_anywhere_for_cjk() -> None:
    assert named("a rapid reply", "api", "rapid") == [("rapid", True)]
    assert named("read the apis", "api") == []
    assert named("記憶の設計書について教えて", "記憶の設計", "設計書") == [
        ("記憶の設計", True),
        ("設計書", True),
    ]
    assert named("キオクの設計とは", "きおくの設計") == [("きおくの設計", True)]
    assert named("東京都", "東京") == []  # shorter than MIN_TITLE


def test_punctuation_case_and_width_variants() -> None:
    assert named("What's in 'Getting Started'?", "Getting Started") == [("Getting Started", True)]
    assert named("ＧＥＴＴＩＮＧ　ｓｔａｒｔｅｄ, please", "getting   started") == [
        ("getting   started", True)
    ]
    assert named("Contexts & Scopes: how?", "Contexts & Scopes") == [("Contexts & Scopes", True)]
    assert named("getting-started", "Getting Started") == []
    assert named("", "Getting Started") == []


def test_order_is_deterministic_and_equal_titles_are_peers() -> None:
    titles = [("2", "FAQ list"), ("1", "faq list"), ("3", "Install")]
    got = named_titles("install? see the FAQ list", titles)
    assert [(m.ref, m.direct) for m in got] == [("3", True), ("1", True), ("2", True)]
    assert named_titles("install? see the FAQ list", titles[::-1]) == got


def _ids(svc: Tabane, user: Principal, *contexts: str) -> list[int]:
    with svc.store.session(user) as session:
        return [int(session.scalar(select(Context.id).where(Context.name == c))) for c in contexts]


def test_title_lane_finds_visible_named_sources_only(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    mine, theirs = make_context(alice), make_context(bob)
    for sid, title in (("p", "Python"), ("pt", "Python Tutorial"), ("gs", "Getting Started")):
        svc.ingest(alice, mine, DocumentInput(source_id=sid, title=title, paragraphs=[block("x")]))
    svc.ingest(
        bob, theirs, DocumentInput(source_id="s", title="Secret Plan", paragraphs=[block("y")])
    )
    with svc.store.session(alice) as session:
        keys = dict(session.execute(select(Source.source_id, Source.title_key)).all())
    assert keys["pt"] == "python tutorial"
    question = "Where does the Python Tutorial mention the secret plan?"
    with svc.store.session(alice) as session:
        hits = title_lane(session, _ids(svc, alice, mine) + _ids(svc, bob, theirs), question)
    assert [(h.source_id, h.direct, h.rank) for h in hits] == [("pt", True, 1), ("p", False, 2)]
    with svc.store.session(bob) as session:
        bobs = title_lane(session, _ids(svc, bob, theirs), question)
    assert [h.source_id for h in bobs] == ["s"]
    svc.retract(alice, mine, "pt")
    with svc.store.session(alice) as session:
        hits = title_lane(session, _ids(svc, alice, mine), question)
    assert [(h.source_id, h.direct) for h in hits] == [("p", True)]
