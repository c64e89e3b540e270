"""Properties of the graph write path against the real store, each with a Python model.

- After any sequence of claim batches (with corrections), edge retractions, source retractions,
  re-ingests and aliases, every association row equals the sum and count of the open claims of
  its (edge, scope set), and an edge whose claims all closed stays with weight 0 and count 0.
- Retracting a source and re-ingesting it, then writing its claims again, restores the same
  associations.
- Two users writing into one shared context each see exactly the rows of the scope sets they
  may read; someone with neither personal scope sees only the rows scoped exactly {public}.
- A rejected batch writes nothing.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, insert, select

from tabane.errors import (
    AliasConflict,
    Forbidden,
    InvalidInput,
    NoClaim,
    NoConcept,
    NoSource,
    TabaneError,
)
from tabane.graph.claims.parse import parse_claims
from tabane.ingest.documents import DocumentInput
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import (
    Association,
    Claim,
    Context,
    ContextUsage,
    VocabEntry,
    VocabGram,
)

from helpers import unique

pytestmark = pytest.mark.slow  # Hypothesis property runs over claims

HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]


def props(examples: int) -> settings:
    return settings(
        max_examples=examples, deadline=None, database=None, suppress_health_check=HEALTH
    )


CONCEPTS = ("a", "b", "A1")  # A1 may become an alias of a concept, or a concept itself
ALIASES = ("A1", "B1")
LABELS = ("r", "s")
KINDS = ("world", "world", "opinion")
AUTHORS = (None, "x", "y")
# Two versions of each document: the second has another text and three paragraphs.
DOCS = {
    "doc0": (b"Zero one.\n\nZero two.", b"Zero uno.\n\nZero dos.\n\nZero tres."),
    "doc1": (b"One one.\n\nOne two.", b"One uno.\n\nOne dos.\n\nOne tres."),
}
EPS = 1e-9

# (perspective, subject, label, object)
EdgeKey = tuple[str, str, str, str]
Row = tuple[EdgeKey, tuple[str, ...]]  # an association row: edge and scope set

weights = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False, allow_infinity=False)


# --- the model --------------------------------------------------------------------------------


@dataclass
class ModelClaim:
    key: EdgeKey
    weight: float
    scopes: tuple[str, ...]
    source: str | None
    open: bool = True


@dataclass
class Model:
    """What the store should hold: claims with their state, every (edge, scope set) that was
    ever written (association rows are never removed), spellings, aliases and live sources."""

    author: str
    claims: dict[int, ModelClaim] = field(default_factory=dict)
    rows: set[Row] = field(default_factory=set)
    concepts: set[str] = field(default_factory=set)
    aliases: dict[str, str] = field(default_factory=dict)
    live: dict[str, tuple[int, int]] = field(default_factory=dict)  # doc -> (version, paragraphs)

    def canonical(self, name: str) -> str:
        return self.aliases.get(name, name)

    def key(self, item: dict[str, Any]) -> EdgeKey:
        author = item.get("author") or self.author
        perspective = "" if item.get("kind", "world") == "world" else author
        s, o = self.canonical(item["subject"]), self.canonical(item["object"])
        return (perspective, s, item["label"], o)

    def open_ids(self) -> list[int]:
        return sorted(cid for cid, c in self.claims.items() if c.open)

    def close(self, ids: Iterable[int]) -> int:
        n = 0
        for cid in ids:
            if self.claims[cid].open:
                self.claims[cid].open = False
                n += 1
        return n

    def expected(self, readable: Callable[[tuple[str, ...]], bool]) -> dict[Row, tuple[float, int]]:
        out: dict[Row, tuple[float, int]] = {row: (0.0, 0) for row in self.rows if readable(row[1])}
        for c in self.claims.values():
            row = (c.key, c.scopes)
            if c.open and row in out:
                w, n = out[row]
                out[row] = (w + c.weight, n + 1)
        return out


def readable_by(p: Principal) -> Callable[[tuple[str, ...]], bool]:
    return lambda scopes: set(scopes) <= p.read or list(scopes) == ["public"]


# --- reading the store ------------------------------------------------------------------------


def new_context(svc: Tabane, scopes: list[str]) -> tuple[str, int]:
    """A fresh context (name, id), made by the owner: these properties are about what is
    written into it."""
    name = unique("ctx")
    with svc.store.owner.begin() as conn:
        ctx_id = conn.execute(
            insert(Context).values(name=name, scopes=scopes).returning(Context.id)
        ).scalar_one()
        conn.execute(insert(ContextUsage).values(context_id=ctx_id))
    return name, int(ctx_id)


def stored_rows(svc: Tabane, p: Principal, ctx_id: int) -> dict[Row, tuple[float, int]]:
    """The association rows of a context that `p` can see (no context lookup: an outsider who
    cannot see the context still reaches rows scoped {public})."""
    a = Association
    with svc.store.session(p) as session:
        found = session.execute(
            select(a.perspective, a.subject, a.label, a.object, a.scopes, a.weight, a.claims)
            .where(a.context_id == ctx_id)
            .order_by(a.id)
        ).all()
    out: dict[Row, tuple[float, int]] = {}
    for r in found:
        row = ((r.perspective, r.subject, r.label, r.object), tuple(r.scopes))
        assert row not in out, f"two association rows for {row}"
        out[row] = (float(r.weight), int(r.claims))
    return out


def assert_matches(got: dict[Row, tuple[float, int]], want: dict[Row, tuple[float, int]]) -> None:
    assert sorted(got) == sorted(want)
    for row, (w, n) in want.items():
        assert got[row][1] == n, row
        assert math.isclose(got[row][0], w, abs_tol=EPS), (row, got[row][0], w)
    # The net edge (over scope sets) is the sum of its live claims too.
    net_got: dict[EdgeKey, float] = defaultdict(float)
    net_want: dict[EdgeKey, float] = defaultdict(float)
    for (key, _), (w, _) in got.items():
        net_got[key] += w
    for (key, _), (w, _) in want.items():
        net_want[key] += w
    for key in net_want:
        assert math.isclose(net_got[key], net_want[key], abs_tol=EPS), key


def open_claim_ids(svc: Tabane, p: Principal, ctx_id: int) -> set[int]:
    with svc.store.session(p) as session:
        found = session.scalars(
            select(Claim.id).where(Claim.context_id == ctx_id, Claim.closed_at.is_(None))
        )
        return set(found)


def footprint(svc: Tabane, ctx_id: int) -> dict[str, Any]:
    """Everything a write could change in one context, through the owner."""
    with svc.store.owner.begin() as conn:

        def count(model: Any) -> int:
            stmt = select(func.count()).select_from(model).where(model.context_id == ctx_id)
            return int(conn.execute(stmt).scalar_one())

        a = Association
        rows = conn.execute(
            select(a.perspective, a.subject, a.label, a.object, a.scopes, a.weight, a.claims)
            .where(a.context_id == ctx_id)
            .order_by(a.id)
        ).all()
        closed = conn.execute(
            select(Claim.id, Claim.closed_at).where(Claim.context_id == ctx_id).order_by(Claim.id)
        ).all()
        return {
            "claims": count(Claim),
            "associations": [tuple(r) for r in rows],
            "vocabulary": count(VocabEntry),
            "grams": count(VocabGram),
            "closed": [tuple(r) for r in closed],
        }


# --- 1. net weight = sum of live claims -------------------------------------------------------


@st.composite
def claim_items(draw: st.DrawFn, model: Model) -> dict[str, Any]:
    item: dict[str, Any] = {
        "subject": draw(st.sampled_from(CONCEPTS)),
        "label": draw(st.sampled_from(LABELS)),
        "object": draw(st.sampled_from(CONCEPTS)),
        "weight": draw(weights),
        "kind": draw(st.sampled_from(KINDS)),
    }
    author = draw(st.sampled_from(AUTHORS))
    if author is not None:
        item["author"] = author
    attribution = draw(st.integers(0, 19))
    live = sorted(model.live)
    if 10 <= attribution < 19 and live:  # a live source, mostly with a paragraph in range
        item["source"] = doc = draw(st.sampled_from(live))
        paragraph = draw(st.sampled_from((None, *range(model.live[doc][1]))))
        if paragraph is not None:
            item["paragraph"] = paragraph
    elif attribution == 19:  # perhaps a retracted source, or a paragraph out of range
        item["source"] = draw(st.sampled_from(sorted(DOCS)))
        item["paragraph"] = draw(st.integers(0, 3))
    if model.claims and draw(st.integers(0, 4)) == 0:
        open_ids = model.open_ids()
        if open_ids and draw(st.integers(0, 5)):
            item["closes"] = [draw(st.sampled_from(open_ids))]
        else:  # perhaps one that is closed already
            item["closes"] = [draw(st.sampled_from(sorted(model.claims)))]
    return item


@st.composite
def edge_to_retract(draw: st.DrawFn, model: Model) -> tuple[str, str, str, str | None, str | None]:
    """Mostly the edge of an open claim (perhaps spelled through an alias, perhaps narrowed to
    its perspective or source), else any edge of the alphabet."""
    open_ids = model.open_ids()
    if not open_ids or not draw(st.integers(0, 3)):
        return (
            draw(st.sampled_from(CONCEPTS)),
            draw(st.sampled_from(LABELS)),
            draw(st.sampled_from(CONCEPTS)),
            draw(st.sampled_from((None, "", "x", model.author))),
            draw(st.sampled_from((None, None, "doc0"))),
        )
    claim = model.claims[draw(st.sampled_from(open_ids))]
    perspective, s, label, o = claim.key
    spellings = [s, *(a for a, t in model.aliases.items() if t == s)]
    return (
        draw(st.sampled_from(spellings)),
        label,
        o,
        draw(st.sampled_from((None, None, perspective, "y"))),
        draw(st.sampled_from((None, None, claim.source))),
    )


class Step:
    """One operation: run it against the store and the model (raising what the store should)."""

    def __init__(self, svc: Tabane, user: Principal, context: str, model: Model) -> None:
        self.svc, self.user, self.context, self.model = svc, user, context, model

    def write(self, items: list[dict[str, Any]], scopes: tuple[str, ...] | None) -> None:
        m = self.model
        bad_attribution = any(
            "paragraph" in it
            and (it["source"] not in m.live or it["paragraph"] >= m.live[it["source"]][1])
            for it in items
        )
        chosen = scopes if scopes is not None else self.ctx_scopes
        refused: type[Exception] | None = InvalidInput if bad_attribution else None
        closing: set[int] = set()
        for cid in (cid for it in items for cid in it.get("closes", ())):
            if refused is not None:
                break
            if not m.claims[cid].open or cid in closing:
                refused = NoClaim
            elif not set(chosen) <= {*m.claims[cid].scopes, "public"}:
                refused = Forbidden  # fewer could read the correction than the claim it closes
            closing.add(cid)
        call = lambda: self.svc.add_claims(  # noqa: E731
            self.user, self.context, parse_claims(items), scopes=scopes
        )
        if refused is not None:
            event(f"write refused: {refused.__name__}")
            with pytest.raises(refused):
                call()
            return
        event("write with a correction" if any("closes" in it for it in items) else "write")
        report = call()
        assert len(report.claims) == len(items)
        for cid, it in zip(report.claims, items, strict=True):
            m.close(it.get("closes", ()))
            key = m.key(it)
            m.claims[cid] = ModelClaim(key, it["weight"], chosen, it.get("source"))
            m.rows.add((key, chosen))
            m.concepts |= {key[1], key[3]}

    def retract_edge(
        self, s: str, label: str, o: str, perspective: str | None, source: str | None
    ) -> None:
        m = self.model
        want = (m.canonical(s), label, m.canonical(o))
        hit = [
            cid
            for cid, c in m.claims.items()
            if c.open
            and c.key[1:] == want
            and (perspective is None or c.key[0] == perspective)
            and (source is None or c.source == source)
        ]
        report = self.svc.retract_associations(
            self.user, self.context, [(s, label, o, perspective, source)]
        )
        assert report.claims == len(hit)
        assert report.associations == len({m.claims[cid].key for cid in hit})
        event(f"edge retraction closing {min(len(hit), 2)}+ claims")
        m.close(hit)

    def retract_source(self, doc: str) -> None:
        m = self.model
        if doc not in m.live:
            with pytest.raises(NoSource):
                self.svc.retract(self.user, self.context, doc)
            return
        hit = [cid for cid, c in m.claims.items() if c.open and c.source == doc]
        event(f"source retraction closing {min(len(hit), 2)}+ claims")
        result = self.svc.retract(self.user, self.context, doc)
        assert (result.sources, result.claims) == (1, len(hit))
        m.close(hit)
        del m.live[doc]

    def ingest(self, doc: str, version: int) -> None:
        m = self.model
        data = DOCS[doc][version]
        result = self.svc.ingest(
            self.user, self.context, DocumentInput(source_id=doc, data=data, format="text")
        )
        before = m.live.get(doc)
        event(f"ingest: {result.outcome}")
        if before is not None and before[0] != version:
            assert result.outcome == "replaced"
            m.close(cid for cid, c in m.claims.items() if c.open and c.source == doc)
        elif before is not None:
            assert result.outcome == "unchanged"
        else:
            assert result.outcome in ("created", "revived")
        m.live[doc] = (version, result.paragraphs)

    def alias(self, alias: str, target: str) -> None:
        m = self.model
        error: type[TabaneError] | None = None
        resolved = m.canonical(target)
        if alias == target:
            error = InvalidInput
        elif resolved not in m.concepts:
            error = NoConcept
        elif alias in m.concepts or m.aliases.get(alias, resolved) != resolved:
            error = AliasConflict
        event(f"alias: {error.__name__ if error else 'added'}")
        if error is not None:
            with pytest.raises(error):
                self.svc.add_alias(self.user, self.context, alias, target)
            return
        info, created = self.svc.add_alias(self.user, self.context, alias, target)
        assert info.target == resolved
        assert created == (alias not in m.aliases)
        m.aliases[alias] = resolved

    @property
    def ctx_scopes(self) -> tuple[str, ...]:
        return (f"user:{self.user.name}",)


def test_net_weight_is_the_sum_of_live_claims(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    user = make_user()
    personal = f"user:{user.name}"
    scope_choices: tuple[tuple[str, ...] | None, ...] = (
        None,
        None,
        ("public",),
        tuple(sorted((personal, "public"))),
    )

    @props(30)
    @given(data=st.data())
    def prop(data: st.DataObject) -> None:
        context, ctx_id = new_context(svc, [f"user:{user.name}"])
        model = Model(author=user.name)
        step = Step(svc, user, context, model)
        step.ingest("doc0", 0)
        for _ in range(data.draw(st.integers(3, 12), label="steps")):
            op = data.draw(
                st.sampled_from(("write", "write", "write", "edge", "source", "ingest", "alias")),
                label="op",
            )
            if op == "write":
                scopes = data.draw(st.sampled_from(scope_choices), label="scopes")
                items = data.draw(
                    st.lists(claim_items(model), min_size=1, max_size=5), label="batch"
                )
                step.write(items, scopes)
            elif op == "edge":
                step.retract_edge(*data.draw(edge_to_retract(model), label="edge"))
            elif op == "source":
                step.retract_source(data.draw(st.sampled_from(sorted(DOCS)), label="doc"))
            elif op == "ingest":
                step.ingest(
                    data.draw(st.sampled_from(sorted(DOCS)), label="doc"),
                    data.draw(st.integers(0, 1), label="version"),
                )
            else:
                step.alias(
                    data.draw(st.sampled_from(ALIASES), label="alias"),
                    data.draw(st.sampled_from(("a", "b", "A1", "B1")), label="target"),
                )
            assert_matches(stored_rows(svc, user, ctx_id), model.expected(readable_by(user)))
        assert open_claim_ids(svc, user, ctx_id) == set(model.open_ids())
        # Edges whose claims all closed are still there, at weight 0 with no claims.
        got = stored_rows(svc, user, ctx_id)
        for row, (_, n) in model.expected(readable_by(user)).items():
            if n == 0:
                assert got[row] == (0.0, 0), row

    prop()


# --- 2. retract and re-ingest restores the associations ---------------------------------------


@st.composite
def attributed_batches(draw: st.DrawFn) -> list[dict[str, Any]]:
    items = []
    for _ in range(draw(st.integers(1, 10))):
        item: dict[str, Any] = {
            "subject": draw(st.sampled_from(("a", "b", "c"))),
            "label": draw(st.sampled_from(LABELS)),
            "object": draw(st.sampled_from(("a", "b", "c"))),
            "weight": draw(weights),
            "kind": draw(st.sampled_from(KINDS)),
            "author": draw(st.sampled_from(("x", "y"))),
        }
        if draw(st.booleans()):
            item |= {"source": "doc0", "paragraph": draw(st.integers(0, 1))}
        items.append(item)
    return items


def test_retracting_and_reingesting_a_source_restores_its_associations(
    svc: Tabane, user: Principal
) -> None:
    @props(25)
    @given(items=attributed_batches(), replace=st.booleans())
    def prop(items: list[dict[str, Any]], replace: bool) -> None:
        context, ctx_id = new_context(svc, [f"user:{user.name}"])
        doc = DocumentInput(source_id="doc0", data=DOCS["doc0"][0], format="text")
        svc.ingest(user, context, doc)
        svc.add_claims(user, context, parse_claims(items))
        before = stored_rows(svc, user, ctx_id)
        vocabulary = footprint(svc, ctx_id)["vocabulary"]
        attributed = [it for it in items if "source" in it]
        if replace:  # a new version replaces the old: its claims close with it
            changed = DocumentInput(source_id="doc0", data=DOCS["doc0"][1], format="text")
            assert svc.ingest(user, context, changed).outcome == "replaced"
        else:
            result = svc.retract(user, context, "doc0")
            assert result.claims == len(attributed)
            assert svc.ingest(user, context, doc).outcome == "revived"
        # Only the unattributed claims count now.
        model = Model(author=user.name)
        scopes = (f"user:{user.name}",)
        for n, it in enumerate(items):
            key = model.key(it)
            model.rows.add((key, scopes))
            model.claims[n] = ModelClaim(key, it["weight"], scopes, None, "source" not in it)
        assert_matches(stored_rows(svc, user, ctx_id), model.expected(readable_by(user)))
        if attributed:
            svc.add_claims(user, context, parse_claims(attributed))
        after = stored_rows(svc, user, ctx_id)
        assert_matches(after, before)
        assert footprint(svc, ctx_id)["vocabulary"] == vocabulary

    prop()


# --- 3. two users, one shared context ---------------------------------------------------------


@pytest.mark.parametrize("shared", ["public", "org"])
def test_each_reader_sees_the_rows_of_their_scope_sets(
    svc: Tabane, make_user: Callable[..., Principal], shared: str
) -> None:
    org = unique("org:o")
    alice = make_user("alice", extra_write=(org,))
    bob = make_user("bob", extra_write=(org,))
    outsider = make_user("eve")
    users = {"alice": alice, "bob": bob}
    shared_scope = "public" if shared == "public" else org

    def choices(p: Principal) -> list[tuple[str, ...]]:
        mine = f"user:{p.name}"
        return [(mine,), (shared_scope,), tuple(sorted((mine, shared_scope)))]

    @props(20)
    @given(data=st.data())
    def prop(data: st.DataObject) -> None:
        context, ctx_id = new_context(svc, [shared_scope])
        models = {who: Model(author=p.name) for who, p in users.items()}
        claims: dict[int, tuple[str, ModelClaim]] = {}
        rows: set[Row] = set()
        for _ in range(data.draw(st.integers(2, 6), label="steps")):
            who = data.draw(st.sampled_from(sorted(users)), label="who")
            p = users[who]
            if data.draw(st.integers(0, 3), label="retract?") == 0:
                s = data.draw(st.sampled_from(("a", "b")), label="s")
                label = data.draw(st.sampled_from(LABELS), label="l")
                o = data.draw(st.sampled_from(("a", "b")), label="o")
                readable = readable_by(p)
                hit = [
                    cid
                    for cid, (_, c) in claims.items()
                    if c.open and c.key[1:] == (s, label, o) and readable(c.scopes)
                ]
                report = svc.retract_associations(p, context, [(s, label, o, None, None)])
                assert report.claims == len(hit)
                for cid in hit:
                    claims[cid][1].open = False
                continue
            scopes = data.draw(st.sampled_from(choices(p)), label="scopes")
            items = [
                {
                    "subject": data.draw(st.sampled_from(("a", "b"))),
                    "label": data.draw(st.sampled_from(LABELS)),
                    "object": data.draw(st.sampled_from(("a", "b"))),
                    "weight": data.draw(weights),
                    "kind": data.draw(st.sampled_from(KINDS)),
                }
                for _ in range(data.draw(st.integers(1, 4), label="size"))
            ]
            report = svc.add_claims(p, context, parse_claims(items), scopes=list(scopes))
            for cid, it in zip(report.claims, items, strict=True):
                key = models[who].key(it)
                claims[cid] = (who, ModelClaim(key, it["weight"], scopes, None))
                rows.add((key, scopes))
        everything = Model(author="")
        everything.rows = rows
        everything.claims = {cid: c for cid, (_, c) in claims.items()}
        for reader in (alice, bob, outsider):
            want = everything.expected(readable_by(reader))
            assert_matches(stored_rows(svc, reader, ctx_id), want)
            if reader is outsider:
                assert all(scopes == ("public",) for _, scopes in want)
        # Each writer's personal rows stay theirs.
        for who, p in users.items():
            other = bob if p is alice else alice
            theirs = {row for row in stored_rows(svc, other, ctx_id)}
            assert not any(f"user:{p.name}" in scopes for _, scopes in theirs), who

    prop()


# --- 4. a rejected batch writes nothing -------------------------------------------------------

FAULTS = (
    "nan",
    "empty",
    "unknown_field",
    "half_triple",
    "paragraph_range",
    "unknown_source",
    "scope",
    "closes_unknown",
    "closes_twice",
    "closes_readonly",
)


def test_a_rejected_batch_writes_nothing(svc: Tabane, make_user: Callable[..., Principal]) -> None:
    ro = unique("org:ro")
    writer = make_user("w", extra_write=(ro,))
    user = make_user("u", extra_read=(ro,))
    stranger = make_user("s")

    @props(30)
    @given(
        batch=st.lists(
            st.fixed_dictionaries(
                {
                    "subject": st.sampled_from(("a", "b", "new1", "新しい")),
                    "label": st.sampled_from(("r", "new_label")),
                    "object": st.sampled_from(("a", "b", "new2")),
                    "weight": weights,
                }
            ),
            min_size=1,
            max_size=8,
        ),
        fault=st.sampled_from(FAULTS),
        where=st.integers(0, 7),
    )
    def prop(batch: list[dict[str, Any]], fault: str, where: int) -> None:
        context, ctx_id = new_context(svc, ["public"])
        svc.ingest(
            user,
            context,
            DocumentInput(source_id="doc0", data=DOCS["doc0"][0], format="text", scopes=["public"]),
        )
        base = svc.add_claims(
            user,
            context,
            parse_claims([{"subject": "a", "label": "r", "object": "b", "weight": 0.5}]),
            scopes=["public"],
        )
        readonly = svc.add_claims(
            writer,
            context,
            parse_claims([{"subject": "a", "label": "r", "object": "b", "weight": 0.25}]),
            scopes=[ro],
        )
        before = footprint(svc, ctx_id)
        i = where % len(batch)
        items: list[Any] = [dict(it) for it in batch]
        scopes: list[str] = ["public"]
        error: type[TabaneError] = InvalidInput
        path: str | None = f"associations[{i}]"
        if fault == "nan":
            items[i]["weight"] = math.nan
            path += ".weight"
        elif fault == "empty":
            items[i]["object"] = "  "
            path += ".object"
        elif fault == "unknown_field":
            items[i]["wieght"] = 1
            path += ".wieght"
        elif fault == "half_triple":
            del items[i]["label"]
            path += ".label"
        elif fault == "paragraph_range":
            items[i] |= {"source": "doc0", "paragraph": 2}
            path += ".paragraph"
        elif fault == "unknown_source":
            items[i] |= {"source": "nowhere", "paragraph": 0}
            path += ".source"
        elif fault == "scope":
            scopes, error, path = [f"user:{stranger.name}"], Forbidden, None
        elif fault == "closes_unknown":
            items[i]["closes"] = [max(before["closed"])[0] + 10_000]
            error, path = NoClaim, path + ".closes"
        elif fault == "closes_twice":
            items[i]["closes"] = list(base.claims)
            items.insert(i, {**items[i]})
            error, path = NoClaim, f"associations[{i + 1}].closes"
        else:  # a claim the user can read but not write
            items[i]["closes"] = list(readonly.claims)
            error, path = Forbidden, path + ".closes"
        with pytest.raises(error) as raised:
            svc.add_claims(user, context, parse_claims(items), scopes=scopes)
        if path is not None:
            assert path in [issue.path for issue in raised.value.issues]
        assert footprint(svc, ctx_id) == before

    prop()
