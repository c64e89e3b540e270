"""The title lane: the maximal-title rule (pure), and the lane against the real store."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select

from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.recall.titles import named_titles, title_lane
from tabane.service import Tabane
from tabane.storage.schema import Context, Source


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


def test_a_title_is_named_by_the_name_it_opens_with() -> None:
    titles = [("rv", "git-revert(1)"), ("g", "git(1)"), ("rs", "git-reset(1)")]
    for question in ("git revert refuses to undo a merge", "what does git-revert do?"):
        got = named_titles(question, titles)
        # a compound name (it holds the name "git"); "git" alone is prose here, no naming
        assert [(m.ref, m.direct, m.whole, m.within) for m in got] == [("rv", True, False, ())]
    marked = named_titles("git revert, or plain `git`?", titles)
    assert [(m.ref, m.direct, m.within) for m in marked] == [
        ("rv", True, ()),
        ("g", True, ("git revert",)),  # named on its own as well: keeps its authority
    ]
    # the complete title, section and all, is a naming of the whole title
    assert next((m.ref, m.whole) for m in named_titles("see git-revert(1)", titles)) == ("rv", True)
    py = "subprocess — Subprocess management — Python 3.11.2 documentation"
    got = named_titles("subprocess.run hangs", [(py, py)])
    assert [(m.title, m.direct, m.whole) for m in got] == [(py, True, False)]
    assert named("a subprocessing pool", py) == []  # names keep word boundaries
    assert named("what about Tokyo?", "Tokyo Tower — a guide") == []  # a name is its whole head
    assert named("XXD(1) or xxd?", "XXD(1)") == [("XXD(1)", True)]


def test_a_name_is_marked_when_it_stands_out_from_the_prose() -> None:
    def marks(question: str, title: str) -> list[bool]:
        return [m.direct for m in named_titles(question, [(title, title)])] or [False]

    for question, title in (
        ("json.dumps fails on datetime", "json — JSON encoder and decoder"),
        ("is random.random() safe?", "random — Generate pseudo-random numbers"),
        ("what do the fields of /etc/fstab mean?", "fstab(5)"),
        ("why does .gitignore not apply?", "gitignore(5)"),
        ("My CSV output has blank lines", "csv — CSV File Reading and Writing"),
        ("find で更新日時を探す", "FIND(1)"),
        ("run `sed` in place", "SED(1)"),
    ):
        assert marks(question, title) == [True], question
    for question, title in (
        ("Building a big string is slow", "string — Common string operations"),
        ("set up logging.", "logging — Logging facility for Python"),
        ("I want git to ignore my edits", "git(1)"),
    ):
        assert marks(question, title) == [False], question
        assert named_titles(question, [(title, title)], "all"), question  # every name counts
        assert not named_titles(question, [(title, title)], "off"), question


def test_names_are_written_at_ingest(svc: Tabane, make_user, make_context) -> None:
    alice = make_user("alice")
    ctx = make_context(alice)
    for sid, title in (("r", "git-revert(1)"), ("s", "Shallow commits"), ("x", "XXD(1)")):
        svc.ingest(alice, ctx, DocumentInput(source_id=sid, title=title, paragraphs=[block("x")]))
    with svc.store.session(alice) as session:
        mine = Source.context_id.in_(_ids(svc, alice, ctx))
        names = dict(session.execute(select(Source.source_id, Source.name_key).where(mine)).all())
        hits = title_lane(session, _ids(svc, alice, ctx), "Does `git-revert` or XXD help?")
    assert names == {"r": "git revert", "s": "", "x": "xxd"}
    assert [(h.source_id, h.direct) for h in hits] == [("r", True), ("x", True)]


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
