"""Who sees what, over real HTTP: a Hypothesis property against a pure-Python oracle.

Each example makes a writer, one or two readers and a few organisation scopes with overlapping
and disjoint grants (a reader may also be granted the writer's personal scope, and may act
through an API key narrower than itself). Through HTTP, the writer stores, in one context every
user can see (scopes {public}), a few items each under a drawn scope set: a source with words
no other item uses, a remembered note with its own triple, an alias of that triple's subject,
and a claim on one hub edge they all share. Each reader then asks every read route — sources
listing, search and its explain twin (per context and across contexts), lookup and citations,
the graph reads (query, describe, activate, explore, paths, unreachable_from, labels, aliases,
association citations, vocabulary audit, context stats), resolve and resolve_label with their
explain twins, `/memories`, `/recall` and `/recall/explain`, a stored recall trace — once
without an embedder and once with the real one (vector lanes, claims lane, semantic tier) —
and the answers must hold exactly the items the
oracle allows: a row is visible when its scope set lies inside the reader's read set, or is
exactly {public} (ARCHITECTURE.md §1). Counts, weights and BM25 statistics must be those of the
visible items alone, and an explain twin asked about an invisible item must answer, byte for
byte, what it answers about an item never written.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabane.api.app import create_app
from tabane.api.auth import key_resolver
from tabane.api.ratelimit import RateLimiter, RateLimits
from tabane.principal import PUBLIC
from tabane.service import Tabane

from helpers import serve, unique

pytestmark = pytest.mark.slow  # a Hypothesis property run across users

# The same knob as the storage RLS property; each example here is a few hundred HTTP requests.
# Each example writes and reads through ~40 HTTP routes (about 1.3 s): a twentieth of the RLS
# property test's examples (TABANE_RLS_EXAMPLES, 300 in CI) keeps CI near 20 s for this file.
EXAMPLES = max(5, int(os.environ.get("TABANE_RLS_EXAMPLES") or 300) // 20)
PROPERTY_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Embedding makes an example slower: a third as many (at least 3).
VECTOR_SETTINGS = settings(PROPERTY_SETTINGS, max_examples=max(3, EXAMPLES // 3))
NEVER = 9  # the item index no example writes: its names are the "never stored" twins
WRITER = "writer"  # symbolic scope: the writer's personal scope
SELF = "self"  # symbolic scope: the reader's own personal scope


# --- the world and its oracle ---------------------------------------------------------------


@dataclass(frozen=True)
class Reader:
    grants: frozenset[str]  # symbolic scopes granted for reading, beyond public and its own
    key_read: frozenset[str] | None  # a narrower API key's read set, or None: the user's own

    def reads(self) -> frozenset[str]:
        own = frozenset({PUBLIC, SELF}) | self.grants
        return own if self.key_read is None else self.key_read


@dataclass(frozen=True)
class World:
    orgs: tuple[str, ...]  # symbolic organisation scopes
    readers: tuple[Reader, ...]
    items: tuple[frozenset[str], ...]  # the symbolic scope set of each written item


def visible(reads: frozenset[str], scopes: frozenset[str]) -> bool:
    """The oracle: the whole set inside the read set, or exactly {public}."""
    return scopes <= reads or scopes == {PUBLIC}


@st.composite
def readers(draw: st.DrawFn, orgs: tuple[str, ...]) -> Reader:
    grantable = (*orgs, WRITER)
    grants = draw(st.frozensets(st.sampled_from(grantable)))
    narrowed = draw(st.booleans())
    own = sorted({PUBLIC, SELF} | grants)
    key_read = draw(st.frozensets(st.sampled_from(own))) if narrowed else None
    return Reader(grants, key_read)


@st.composite
def worlds(draw: st.DrawFn) -> World:
    orgs = tuple(f"org{j}" for j in range(draw(st.integers(2, 3))))
    pool = (PUBLIC, WRITER, *orgs)
    people = draw(st.lists(readers(orgs), min_size=1, max_size=2))
    items = draw(st.lists(st.frozensets(st.sampled_from(pool), min_size=1), min_size=1, max_size=4))
    return World(orgs, tuple(people), tuple(items))


# --- names ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Names:
    """Every spelling of one example. Item i's names end in its index, and each kind has its own
    letter, so no name is inside another and item NEVER's names have the same shape (and the same
    bigram overlaps with everything stored) as a written item's."""

    tag: str

    def word(self, i: int) -> str:
        return f"{self.tag}w{i}"

    def source(self, i: int) -> str:
        return f"{self.tag}s{i}"

    def subject(self, i: int) -> str:
        return f"{self.tag}a{i}"

    def object(self, i: int) -> str:
        return f"{self.tag}b{i}"

    def alias(self, i: int) -> str:
        return f"{self.tag}c{i}"

    def note(self, i: int) -> str:
        return f"{self.tag}n{i}"

    def hub_statement(self, i: int) -> str:
        return f"{self.tag}h{i}"

    def markers(self, i: int) -> tuple[str, ...]:
        """Strings that only item i's rows contain."""
        return (
            self.word(i),
            self.source(i),
            self.subject(i),
            self.object(i),
            self.alias(i),
            self.note(i),
            self.hub_statement(i),
        )

    @property
    def hub(self) -> str:
        return f"{self.tag}hub"

    @property
    def spoke(self) -> str:
        return f"{self.tag}spoke"

    @property
    def label(self) -> str:
        return f"{self.tag}link"


# --- the served app ---------------------------------------------------------------------------


@contextmanager
def _served(service: Tabane) -> Iterator[httpx.Client]:
    """One client on the real app behind API keys, rate limits off; each call names its token."""
    app = create_app(service, key_resolver(service), limiter=RateLimiter(RateLimits()))
    with serve(app) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client


@pytest.fixture(scope="module")
def http(svc: Tabane) -> Iterator[httpx.Client]:
    """The app without an embedder: the lexical lanes."""
    with _served(svc) as client:
        yield client


@pytest.fixture(scope="module")
def vhttp(vsvc: Tabane) -> Iterator[httpx.Client]:
    """The app with the real embedder: the vector lanes of search and recall, the claims lane
    and resolve's semantic tier run too."""
    with _served(vsvc) as client:
        yield client


class As:
    """Requests acting for one API key."""

    def __init__(self, client: httpx.Client, token: str) -> None:
        self.client = client
        self.headers = {"authorization": f"Bearer {token}"}

    def post(self, path: str, body: dict[str, Any], status: int | None = 200) -> httpx.Response:
        response = self.client.post(path, json=body, headers=self.headers)
        assert status is None or response.status_code == status, (path, body, response.text)
        return response

    def get(
        self, path: str, params: dict[str, Any] | None = None, status: int | None = 200
    ) -> httpx.Response:
        response = self.client.get(path, params=params, headers=self.headers)
        assert status is None or response.status_code == status, (path, params, response.text)
        return response


@dataclass(frozen=True)
class Written:
    context: str
    names: Names
    notes: tuple[int, ...]  # item i's note claim id
    hub_claims: tuple[int, ...]  # item i's claim on the hub edge
    trace: int  # a recall trace of the writer's
    vectors: bool  # embedded: the vector lanes, the claims lane and the semantic tier must run


def _setup_users(svc: Tabane, world: World) -> tuple[str, dict[str, str], list[str]]:
    """Make the users, scopes, grants and keys; return the writer's token, the symbolic→real
    scope map of the writer's side, and each reader's token."""
    writer = unique("wr")
    svc.add_user(writer)
    real = {PUBLIC: PUBLIC, WRITER: f"user:{writer}"}
    for org in world.orgs:
        real[org] = unique("org:p")
        svc.add_scope(real[org])
        svc.grant(writer, real[org], write=True)
    tokens = []
    for reader in world.readers:
        name = unique("rd")
        svc.add_user(name)
        mine = {**real, SELF: f"user:{name}"}
        for scope in reader.grants:
            svc.grant(name, mine[scope], write=False)
        if reader.key_read is None:
            tokens.append(svc.create_key(name).token)
        else:
            read = sorted(mine[s] for s in reader.key_read)
            write = sorted(mine[s] for s in reader.key_read & {PUBLIC, SELF})
            tokens.append(svc.create_key(name, read=read, write=write).token)
    return svc.create_key(writer).token, real, tokens


def _write(
    w: As, world: World, real: dict[str, str], settle: Callable[[], object] | None = None
) -> Written:
    names = Names(unique("k"))
    context = unique("ctx")
    w.post("/contexts", {"name": context, "scopes": [PUBLIC]}, status=201)
    notes, hubs = [], []
    for i, symbolic in enumerate(world.items):
        scopes = sorted(real[s] for s in symbolic)
        text = f"The {names.word(i)} paragraph is stored here."
        source = {"source_id": names.source(i), "text": text, "title": names.word(i)}
        w.post(f"/contexts/{context}/sources", {**source, "scopes": scopes}, status=201)
        note = {
            "context": context,
            "text": f"remember {names.note(i)} about {names.word(i)}",
            "subject": names.subject(i),
            "label": names.label,
            "object": names.object(i),
            "weight": 1.0,
            "scopes": scopes,
        }
        notes.append(w.post("/memories", note, status=201).json()["id"])
        alias = {"alias": names.alias(i), "target": names.subject(i), "scopes": scopes}
        w.post(f"/contexts/{context}/aliases", alias, status=201)
        hub = {
            "subject": names.hub,
            "label": names.label,
            "object": names.spoke,
            "weight": 1.0,
            "statement": f"the hub {names.hub_statement(i)}",
            "source": names.source(i),
            "paragraph": 0,
        }
        batch = {"associations": [hub], "scopes": scopes}
        (claim,) = w.post(f"/contexts/{context}/associations", batch, status=201).json()["claims"]
        hubs.append(claim)
    if settle is not None:
        settle()
    asked = {"question": f"what about {names.word(0)}?", "contexts": [context], "force": True}
    trace = w.post("/recall", asked).json()["recall_id"]
    return Written(context, names, tuple(notes), tuple(hubs), trace, settle is not None)


# --- checks -----------------------------------------------------------------------------------


def _no_markers(body: Any, hidden: list[int], names: Names, where: str) -> None:
    """No string that only an invisible item holds appears anywhere in `body`."""
    text = json.dumps(body, ensure_ascii=False)
    for i in hidden:
        for marker in names.markers(i):
            assert marker not in text, f"{where}: invisible item {i} leaked {marker!r}: {text}"


def _same(hidden: httpx.Response, never: httpx.Response, pairs: list[tuple[str, str]]) -> None:
    """An explain twin's answer about an invisible item is its answer about a never-written one
    (after renaming the one to the other in the answer)."""
    text = hidden.text
    for invisible, absent in pairs:
        text = text.replace(invisible, absent)
    assert (hidden.status_code, text) == (never.status_code, never.text), (
        f"twin tells an invisible item from a missing one:\n{hidden.text}\n{never.text}"
    )


def _idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def _check_sources(r: As, w: Written, seen: list[int], hidden: list[int]) -> None:
    names, ctx = w.names, w.context
    everything = " ".join(names.word(i) for i in (*seen, *hidden))
    want = {names.source(i) for i in seen}

    listed = r.get(f"/contexts/{ctx}/sources").json()
    assert {s["source_id"] for s in listed["sources"]} == want
    _no_markers(listed, hidden, names, "GET sources")

    stats = r.get(f"/contexts/{ctx}").json()["stats"]
    edges = len(seen) + (1 if seen else 0)  # each note's edge, and the hub edge once
    assert (stats["sources"], stats["paragraphs"]) == (len(seen), len(seen)), stats
    assert (stats["associations"], stats["labels"]) == (edges, 1 if seen else 0), stats
    assert stats["concepts"] == 2 * len(seen) + (2 if seen else 0), stats
    _no_markers(stats, hidden, names, "GET context")

    search = {"query": everything, "limit": 50}
    for path, body in (
        (f"/contexts/{ctx}/sources/search", search),
        ("/sources/search", {**search, "contexts": [ctx]}),
    ):
        found = r.post(path, body).json()
        assert {h["source_id"] for h in found["hits"]} == want, (path, found)
        (plan,) = found["plan"]["contexts"]
        assert plan["lanes"]["bm25"]["hits"] == len(seen), plan
        assert plan["lanes"]["vector"]["hits"] <= len(seen), plan
        assert plan["lanes"]["vector"]["ran"] is w.vectors, plan
        _no_markers(found["hits"], hidden, names, path)

    for path, where in (
        (f"/contexts/{ctx}/sources/search/explain", {}),
        ("/sources/search/explain", {"contexts": [ctx]}),
    ):
        ask = {**search, **where}
        scope = {"context": ctx} if where else {}
        for i in seen:
            got = r.post(path, {**ask, "expected": {"source_id": names.source(i), **scope}}).json()
            assert got["verdict"] == "served", got
            # BM25 statistics count only visible rows: df and idf are the visible corpus's
            for term in got["terms"]:
                j = next(k for k in (*seen, *hidden) if term["term"] == names.word(k))
                df = 1 if j in seen else 0
                assert term["df"] == df, (term, seen)
                assert term["idf"] == pytest.approx(_idf(len(seen), df)), (term, seen)
        absent = r.post(path, {**ask, "expected": {"source_id": names.source(NEVER), **scope}})
        assert absent.json()["verdict"] == "not_stored", absent.text
        for i in hidden:
            twin = r.post(path, {**ask, "expected": {"source_id": names.source(i), **scope}})
            _same(twin, absent, [(names.source(i), names.source(NEVER))])


def _check_lookup(r: As, w: Written, seen: list[int], hidden: list[int]) -> None:
    names, ctx = w.names, w.context

    def reads(sid: str) -> list[httpx.Response]:
        return [
            r.post(f"/contexts/{ctx}/sources/lookup", {"source_id": sid}, status=None),
            r.post(f"/contexts/{ctx}/citations", {"source_id": sid, "paragraph": 0}, status=None),
            r.get(f"/contexts/{ctx}/citations", {"source_id": sid, "paragraph": 0}, status=None),
        ]

    for i in seen:
        for got in reads(names.source(i)):
            assert got.status_code == 200 and names.word(i) in got.text, got.text
    absent = reads(names.source(NEVER))
    assert {a.status_code for a in absent} == {404}, [a.text for a in absent]
    for i in hidden:
        for twin, never in zip(reads(names.source(i)), absent, strict=True):
            _same(twin, never, [(names.source(i), names.source(NEVER))])


def _check_graph(r: As, w: Written, seen: list[int], hidden: list[int]) -> None:
    names, ctx, base = w.names, w.context, f"/contexts/{w.context}"
    label = names.label
    hub_claims = {w.hub_claims[i] for i in seen}
    want = {(names.subject(i), names.object(i)) for i in seen}
    if seen:
        want.add((names.hub, names.spoke))

    for path, extra in ((f"{base}/query", {}), ("/query", {"contexts": [ctx]})):
        got = r.post(path, {"label": label, "limit": 50, **extra}).json()
        assert {(e["subject"], e["object"]) for e in got["edges"]} == want, got
        assert got["total"] == len(want), got
        for edge in got["edges"]:
            claims = {a["claim"] for a in edge["attributions"]}
            if edge["subject"] == names.hub:  # the net of the visible claims only
                assert (edge["weight"], edge["claims"]) == (len(seen), len(seen)), edge
                assert claims == hub_claims, edge
            else:
                i = next(k for k in seen if edge["subject"] == names.subject(k))
                assert claims == {w.notes[i]}, edge
        _no_markers(got, hidden, names, path)

    aliases = r.get(f"{base}/aliases").json()["aliases"]
    assert {(a["alias"], a["target"]) for a in aliases} == {
        (names.alias(i), names.subject(i)) for i in seen
    }, aliases
    labels = r.get(f"{base}/labels").json()
    assert labels["labels"] == ([{"label": label, "edges": len(want)}] if seen else []), labels

    island = r.post(f"{base}/unreachable_from", {"origin": names.hub, "limit": 100}, status=None)
    cited = r.post(
        f"{base}/associations/citations",
        {"subject": names.hub, "label": label, "object": names.spoke},
        status=None,
    )
    described = r.post(f"{base}/describe", {"concept": names.hub}, status=None)
    activated = r.post(f"{base}/activate", {"origins": [names.hub]}, status=None)
    if seen:
        islands = {c for pair in want - {(names.hub, names.spoke)} for c in pair}
        assert set(island.json()["concepts"]) == islands, island.text
        assert island.json()["total"] == len(islands), island.text
        (partition,) = cited.json()["associations"]
        assert {c["claim"] for c in partition["citations"]} == hub_claims, cited.text
        assert described.json()["strength"] == len(seen), described.text
        assert [c["concept"] for c in activated.json()["concepts"]] == [names.spoke]
        for got in (island, cited, described, activated):
            _no_markers(got.json(), hidden, names, str(got.request.url))
    else:  # the hub itself is invisible: every read of it answers like an unknown concept
        for got in (island, cited, described, activated):
            assert got.status_code == 404 and got.json()["error"]["code"] == "no_concept"
            _no_markers(got.json(), hidden, names, str(got.request.url))

    audit = r.get(f"{base}/vocabulary/audit").json()
    _no_markers(audit, hidden, names, "vocabulary audit")

    def reads(i: int) -> list[httpx.Response]:
        a, b = names.subject(i), names.object(i)
        return [
            r.post(f"{base}/describe", {"concept": a}, status=None),
            r.post(f"{base}/activate", {"origins": [a]}, status=None),
            r.post(f"{base}/explore", {"origins": [a], "depth": 2}, status=None),
            r.post(f"{base}/paths", {"origins": [a], "targets": [b]}, status=None),
            r.post(f"{base}/unreachable_from", {"origin": a}, status=None),
            r.post(
                f"{base}/associations/citations",
                {"subject": a, "label": label, "object": b},
                status=None,
            ),
            r.post(f"{base}/query", {"subject": a, "object": b}, status=None),
            r.post(f"{base}/describe", {"concept": names.alias(i)}, status=None),
        ]

    for i in seen:
        got = reads(i)
        assert all(g.status_code == 200 for g in got), [g.text for g in got]
        assert got[0].json()["aliases"] == [names.alias(i)], got[0].text
        assert [c["concept"] for c in got[2].json()["concepts"]] == [names.object(i)]
        assert len(got[3].json()["paths"]) == 1, got[3].text
        for g in got:
            _no_markers(g.json(), hidden, names, str(g.request.url))
    never = reads(NEVER)
    for i in hidden:
        pairs = [(f(i), f(NEVER)) for f in (names.subject, names.object, names.alias)]
        for twin, absent in zip(reads(i), never, strict=True):
            _same(twin, absent, pairs)


def _check_resolve(r: As, w: Written, seen: list[int], hidden: list[int]) -> None:
    names, base = w.names, f"/contexts/{w.context}"
    for i in seen:
        got = r.post(f"{base}/resolve", {"cue": names.subject(i)}).json()
        assert got["candidates"][0]["name"] == names.subject(i), got
        _no_markers(got, hidden, names, "resolve")
        aliased = r.post(f"{base}/resolve", {"cue": names.alias(i)}).json()
        assert aliased["candidates"][0]["name"] == names.subject(i), aliased
        ok = r.post(
            f"{base}/resolve/explain", {"cue": names.subject(i), "expected": names.subject(i)}
        )
        assert ok.json()["verdict"] == "served", ok.text
    # a cue near every subject: only visible spellings come back, fuzzy or contained
    near = r.post(f"{base}/resolve", {"cue": f"{names.tag}a", "limit": 100}).json()
    assert {c["name"] for c in near["candidates"]} >= {names.subject(i) for i in seen}, near
    _no_markers(near, hidden, names, "resolve near")

    def explain(i: int, cue: str) -> httpx.Response:
        return r.post(f"{base}/resolve/explain", {"cue": cue, "expected": names.subject(i)})

    absent = explain(NEVER, names.subject(NEVER))
    assert absent.json()["verdict"] == "not_in_vocabulary", absent.text
    by_alias = explain(NEVER, names.alias(NEVER))
    for i in hidden:
        pairs = [(f(i), f(NEVER)) for f in (names.subject, names.alias)]
        _same(explain(i, names.subject(i)), absent, pairs)
        _same(explain(i, names.alias(i)), by_alias, pairs)

    # a cue no spelling is near: with an embedder the semantic tier runs over the glosses
    far = "a remembered paragraph that is stored here"
    semantic = r.post(f"{base}/resolve", {"cue": far, "limit": 100}).json()
    _no_markers(semantic, hidden, names, "resolve semantic")
    assert semantic["semantic_plan"]["ran"] is (w.vectors and bool(seen)), semantic["semantic_plan"]
    never = r.post(f"{base}/resolve/explain", {"cue": far, "expected": names.subject(NEVER)})
    for i in hidden:
        twin = r.post(f"{base}/resolve/explain", {"cue": far, "expected": names.subject(i)})
        _same(twin, never, [(names.subject(i), names.subject(NEVER))])

    labels = r.post(f"{base}/resolve_label", {"cue": names.label}).json()
    assert [c["name"] for c in labels["candidates"]][:1] == ([names.label] if seen else [])
    if not seen:  # the label itself is invisible
        other = f"{names.tag}lin0"  # same length, same shape, never written
        path = f"{base}/resolve_label/explain"
        twin = r.post(path, {"cue": names.label, "expected": names.label})
        absent_label = r.post(path, {"cue": other, "expected": other})
        _same(twin, absent_label, [(names.label, other)])


def _check_memory_and_recall(
    r: As, w: Written, seen: list[int], hidden: list[int], reads: frozenset[str]
) -> None:
    names, ctx = w.names, w.context
    notes = r.get("/memories", {"context": ctx, "limit": 100}).json()
    remembered = {w.notes[i] for i in seen} | {w.hub_claims[i] for i in seen}  # both have text
    assert {m["id"] for m in notes["memories"]} == remembered, notes
    _no_markers(notes, hidden, names, "GET memories")

    words = " ".join(f"{names.word(i)} {names.note(i)}" for i in (*seen, *hidden))
    ask = {"question": f"what is said about {words}?", "contexts": [ctx], "force": True}
    got = r.post("/recall", {**ask, "budget": 4000, "trace": True}).json()
    for lane in ("vector", "claims"):
        assert got["trace"]["lanes"][lane]["ran"] is w.vectors, got["trace"]["lanes"]
    cited = {it["citation"]["source"] for it in got["items"]} - {None}
    assert cited <= {names.source(i) for i in seen}, got
    claims = {it["citation"]["claim"] for it in got["items"]} - {None}
    assert claims <= {w.notes[i] for i in seen} | {w.hub_claims[i] for i in seen}, got
    _no_markers(got["items"], hidden, names, "recall items")
    _no_markers(got["trace"]["seeds"], hidden, names, "recall trace seeds")
    rendered = got["rendered"].split("\n", 1)[-1]  # the first line repeats the question
    _no_markers(rendered, hidden, names, "recall rendered")

    for i in seen:  # the specific question finds its visible source
        one = {**ask, "question": f"what is the {names.word(i)} paragraph?"}
        served = r.post("/recall/explain", {**one, "expected": {"source": names.source(i)}})
        assert served.json()["verdict"] == "served", served.text

    def source(i: int) -> httpx.Response:
        expected = {"context": ctx, "source": names.source(i), "paragraph": 0}
        return r.post("/recall/explain", {**ask, "expected": expected})

    def claim(cid: int) -> httpx.Response:
        return r.post("/recall/explain", {**ask, "expected": {"claim": cid}})

    absent = source(NEVER)
    assert absent.json()["verdict"] == "not_visible", absent.text
    missing = claim(max(*w.notes, *w.hub_claims) + 10**9)
    assert missing.json()["verdict"] == "not_visible", missing.text
    for i in hidden:
        _same(source(i), absent, [(names.source(i), names.source(NEVER))])
        _same(claim(w.notes[i]), missing, [])
        _same(claim(w.hub_claims[i]), missing, [])

    # the writer's trace is the writer's alone, whatever the reader may read
    trace = r.get(f"/recall/traces/{w.trace}", status=None)
    never = r.get(f"/recall/traces/{w.trace + 10**9}", status=None)
    assert trace.status_code == never.status_code == 404, (trace.text, never.text)
    assert trace.json() == never.json() | {"error": trace.json()["error"]}
    assert trace.json()["error"]["code"] == never.json()["error"]["code"] == "no_trace"


# --- the property -----------------------------------------------------------------------------


def _property(
    service: Tabane, http: httpx.Client, world: World, settle: Callable[[], object] | None = None
) -> None:
    writer_token, real, tokens = _setup_users(service, world)
    written = _write(As(http, writer_token), world, real, settle)
    for reader, token in zip(world.readers, tokens, strict=True):
        reads = reader.reads()
        seen = [i for i, s in enumerate(world.items) if visible(reads, s)]
        hidden = [i for i, s in enumerate(world.items) if not visible(reads, s)]
        r = As(http, token)
        _check_sources(r, written, seen, hidden)
        _check_lookup(r, written, seen, hidden)
        _check_graph(r, written, seen, hidden)
        _check_resolve(r, written, seen, hidden)
        _check_memory_and_recall(r, written, seen, hidden, reads)


@PROPERTY_SETTINGS
@given(world=worlds())
def test_every_read_route_shows_each_user_exactly_what_the_oracle_allows(
    svc: Tabane, http: httpx.Client, world: World
) -> None:
    _property(svc, http, world)


@VECTOR_SETTINGS
@given(world=worlds())
def test_the_vector_lanes_show_each_user_exactly_what_the_oracle_allows(
    vsvc: Tabane, vhttp: httpx.Client, world: World
) -> None:
    _property(vsvc, vhttp, world, vsvc.wait_for_jobs)


def test_a_readable_trace_names_no_candidate_its_reader_cannot_see(
    svc: Tabane, http: httpx.Client
) -> None:
    world = World(
        orgs=("org0",),
        readers=(Reader(grants=frozenset({WRITER}), key_read=None),),
        items=(frozenset({"org0"}), frozenset({PUBLIC})),
    )
    writer_token, real, (token,) = _setup_users(svc, world)
    w = _write(As(http, writer_token), world, real)
    r = As(http, token)
    question = f"what about {w.names.word(0)} and {w.names.word(1)}?"
    ask = {"question": question, "contexts": [w.context], "force": True, "trace": True}
    theirs = As(http, writer_token).post("/recall", ask).json()["trace"]
    mine = r.post("/recall", ask).json()["trace"]
    visible_keys = {c["key"] for c in mine["candidates"]}
    assert visible_keys  # the public item is found
    # the reader holds user:<writer>, yet the trace listed candidates the reader cannot see:
    # a trace is its asker's alone
    read = r.get(f"/recall/traces/{theirs['id']}", status=None)
    assert read.status_code == 404 and read.json()["error"]["code"] == "no_trace"
    assert r.get(f"/recall/traces/{mine['id']}").json()["trace"]["candidates"]
