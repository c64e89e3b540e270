"""resolve's fast path against brute force: the write-time statistics (vocabulary sizes and
bigram document frequencies per scope set) equal live counts of what each caller can see, the
indexed candidate statements (stop-grams from the statistics, the Dice bound from the
postings' `size`, the Dice filter in SQL) find exactly the spellings that scoring every visible
key finds, and top mode ranks the first `top` exactly as scoring everything does."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from sqlalchemy import func, select

from tabane.graph import gram_merge, vocabulary_stats
from tabane.graph.claims.parse import parse_claims
from tabane.graph.resolve import arrays as resolve_arrays
from tabane.graph.resolve import cue as rc
from tabane.graph.resolve import sql as rsql
from tabane.graph.resolve import tiers as lex
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import (
    Context,
    VocabEntry,
    VocabGram,
    VocabGramPack,
    VocabGramStats,
    VocabSize,
)
from tabane.text.spelling import char_grams, spelling_key

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test

WORDS = [
    "fetch",
    "block",
    "read",
    "write",
    "frame",
    "buffer",
    "index",
    "cache",
    "store",
    "query",
    "graph",
    "token",
    "score",
]
# Past MAX_SUBSTRING_CUE characters: the candidate statement without the "inside" part.
LONG_CUE = "fetchBlockReadWriteFrameBufferIndexCacheStoreQueryGraphTokenScore" * 2
KANA = "あいうかきくさしすたちつなにぬはひふまみむやゆよらりるアイウカキクサシス株式会社"


def spellings(rng: random.Random, n: int) -> list[str]:
    out: set[str] = set()
    while len(out) < n:
        if rng.random() < 0.5:
            parts = rng.sample(WORDS, rng.choice((1, 2, 3)))
            out.add(parts[0] + "".join(p.capitalize() for p in parts[1:]) + str(rng.randrange(9)))
        else:
            out.add("".join(rng.choice(KANA) for _ in range(rng.randint(1, 6))))
    return sorted(out)


def typo(rng: random.Random, name: str) -> str:
    i = rng.randrange(len(name))
    how = rng.choice(("replace", "drop", "insert", "swap"))
    ch = rng.choice(KANA if ord(name[i]) > 0x7F else "abcdefghijklmnopqrstuvwxyz")
    if how == "replace":
        return name[:i] + ch + name[i + 1 :]
    if how == "drop" and len(name) > 1:
        return name[:i] + name[i + 1 :]
    if how == "swap" and i + 1 < len(name):
        return name[:i] + name[i + 1] + name[i] + name[i + 2 :]
    return name[:i] + ch + name[i:]


def write(svc: Tabane, user: Principal, context: str, names: list[str], **kw: object) -> None:
    pairs = [(names[i], names[(i + 1) % len(names)]) for i in range(0, len(names), 2)]
    claims = [{"subject": s, "label": "r", "object": o, "weight": 1.0} for s, o in pairs]
    svc.add_claims(user, context, parse_claims(claims), **kw)  # type: ignore[arg-type]


def live_counts(session, ctx_id: int, kind: str) -> tuple[int, Counter[str]]:
    """N and every bigram's df, counted from the rows the session can see."""
    n = session.scalar(
        select(func.count())
        .select_from(VocabEntry)
        .where(VocabEntry.context_id == ctx_id, VocabEntry.kind == kind)
    )
    rows = session.execute(
        select(VocabGram.gram, func.count())
        .where(VocabGram.context_id == ctx_id, VocabGram.kind == kind)
        .group_by(VocabGram.gram)
    )
    return int(n or 0), Counter({g: int(c) for g, c in rows})


def assert_stats_match(session, ctx_id: int) -> None:
    for kind in ("concept", "label"):
        n, df = live_counts(session, ctx_id, kind)
        freq = vocabulary_stats.frequencies(session, ctx_id, kind, set(df) | {"zz", "無し"})
        assert freq.entries == n, kind
        assert {g: c for g, c in freq.df.items() if c} == dict(df), kind


def brute_force(session, ctx_id: int, cue: rc.Cue, floor: float) -> set[tuple[str, float, str]]:
    rows = session.execute(
        select(VocabEntry.name, VocabEntry.key).where(
            VocabEntry.context_id == ctx_id, VocabEntry.kind == "concept"
        )
    ).all()
    want = set()
    for name, key in rows:
        score, how = rc.score_key(cue, key)
        if how == "exact" or score <= 0 or (how == "fuzzy" and score < floor):
            continue
        want.add((name, round(score, 9), how))
    return want


def check_cues(svc: Tabane, user: Principal, context: str, cues: list[str]) -> int:
    """Compare the fast candidates with brute force for every cue and three floors; returns the
    number of candidates compared (so the test knows it compared something)."""
    compared = 0
    with svc.store.session(user) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == context))
        assert ctx_id is not None
        assert_stats_match(session, ctx_id)
        for text in cues:
            cue = lex.analyse(session, ctx_id, "concept", text)
            for floor in (0.0, 0.3, 0.6):
                got = {
                    (s.name, round(s.score, 9), s.kind)
                    for s in lex.lexical(session, ctx_id, "concept", cue, floor, 10_000).scored
                }
                assert got == brute_force(session, ctx_id, cue, floor), (text, floor)
                compared += len(got)
    return compared


@pytest.fixture
def corpus(svc: Tabane, make_user, make_context):
    """Three hundred spellings over three scope sets (one private to alice, one shared, one
    public-ish team scope bob may only read), plus some aliases; a few with over-common
    bigrams (株式会社) so stop-grams are in play."""
    rng = random.Random(20261130)
    alice = make_user(extra_write=("team:fast",))
    bob = make_user(extra_read=("team:fast",))
    context = make_context(alice, scopes=["team:fast"])
    names = spellings(rng, 300) + [f"株式会社{c}{d}" for c in KANA[:12] for d in KANA[12:20]]
    rng.shuffle(names)
    third = len(names) // 3
    write(svc, alice, context, names[:third])
    write(svc, alice, context, names[third : 2 * third], scopes=[f"user:{alice.name}"])
    write(svc, alice, context, names[2 * third :], scopes=["team:fast"])
    write(svc, alice, context, names[:20], scopes=[f"user:{alice.name}"])  # a second scope set
    for i, target in enumerate(names[2 * third : 2 * third + 15]):
        svc.add_alias(alice, context, f"{target}別名{i}", target, scopes=["team:fast"])
    return rng, alice, bob, context, names


def test_statistics_equal_live_counts_per_caller(svc: Tabane, corpus) -> None:
    _, alice, bob, context, _ = corpus
    for who in (alice, bob):
        with svc.store.session(who) as session:
            ctx_id = session.scalar(select(Context.id).where(Context.name == context))
            assert_stats_match(session, ctx_id)
    # bob sees strictly less than alice: the statistics never count what he cannot see.
    with svc.store.session(bob) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == context))
        bobs = vocabulary_stats.frequencies(session, ctx_id, "concept", ()).entries
    with svc.store.session(alice) as session:
        alices = vocabulary_stats.frequencies(session, ctx_id, "concept", ()).entries
    assert 0 < bobs < alices


def test_statistics_follow_alias_removal(svc: Tabane, corpus) -> None:
    _, alice, bob, context, names = corpus
    third = len(names) // 3
    for i, target in enumerate(names[2 * third : 2 * third + 5]):
        assert svc.remove_alias(alice, context, f"{target}別名{i}") == 1
    for who in (alice, bob):
        with svc.store.session(who) as session:
            ctx_id = session.scalar(select(Context.id).where(Context.name == context))
            assert_stats_match(session, ctx_id)
    with svc.store.session(alice) as session:  # removed rows leave zero counts, never negative
        assert session.scalar(select(func.min(VocabGramStats.df))) >= 0
        assert session.scalar(select(func.min(VocabSize.entries))) >= 0


@pytest.mark.parametrize("full_postings", [10**9, 0])
def test_fast_candidates_equal_brute_force_on_typos(
    svc: Tabane, corpus, monkeypatch, full_postings: int
) -> None:
    """Both ways of reading the fuzzy candidates: every row scored in Python (few postings),
    and rows filtered by Dice in SQL first (`dice_terms`, many postings)."""
    monkeypatch.setattr(lex, "FULL_POSTINGS", full_postings)
    rng, alice, bob, context, names = corpus
    cues = [typo(rng, name) for name in rng.sample(names, 200)]
    cues += ["株式会社", "株式会社あい", "fetchBlok", "b", "zz", "会", "QUERYGRAPH", LONG_CUE]
    assert check_cues(svc, alice, context, cues) > 1000
    assert check_cues(svc, bob, context, rng.sample(cues, 60)) > 100


def test_postings_carry_their_key_size(svc: Tabane, corpus) -> None:
    """The Dice bound reads `size` from the postings: it must be each key's bigram count."""
    _, alice, _, context, _ = corpus
    with svc.store.session(alice) as session:
        rows = session.execute(
            select(VocabEntry.key, VocabGram.size)
            .join(VocabGram, VocabGram.entry_id == VocabEntry.id)
            .where(
                VocabEntry.context_id
                == select(Context.id).where(Context.name == context).scalar_subquery()
            )
        ).all()
    assert rows and all(size == len(char_grams(key)) for key, size in rows)


def test_sql_dice_terms_equal_dice_informative(svc: Tabane, corpus) -> None:
    """`fuzzy_rows` filters with Dice computed in SQL (`dice_terms`); `score_key` stays the one
    definition, so the two must agree on every stored key."""
    rng, alice, _, context, names = corpus
    cues = [typo(rng, name) for name in rng.sample(names, 40)] + ["株式会社あい", "fetchBlok"]
    compared = 0
    with svc.store.session(alice) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == context))
        for text in cues:
            cue = lex.analyse(session, ctx_id, "concept", text)
            s, b = rsql.dice_terms()
            rows = session.execute(
                select(VocabEntry.key, s, b).where(
                    VocabEntry.context_id == ctx_id, VocabEntry.kind == "concept"
                ),
                rsql.cue_params(ctx_id, "concept", cue),
            ).all()
            a = len(cue.informative)
            for key, shared, own in rows:
                want = rc.dice_informative(cue, key)
                got = 2 * shared / (a + own) if a and own else 0.0
                assert got == want, (text, key)
                compared += bool(want)
    assert compared > 500


def _pack(svc: Tabane, who: Principal, context: str, scopes: list[str]) -> bool:
    with svc.store.session(who) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == context))
        return gram_merge.merge(session, ctx_id, scopes, force=True)


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("pool", [10_000, 2])
def test_top_mode_ranks_the_top_exactly(
    svc: Tabane, corpus, monkeypatch, pool: int, packed: bool
) -> None:
    """resolve's top mode (count the spellings sharing the cue's grams in numpy, score them in
    Dice-bound order until the top is proven) ranks the first `top` canonical spellings exactly
    as scoring everything does — with the postings only in rows, or packed (graph/gram_merge.py)
    with more written since and spellings removed since, and also when the containing keys
    overflow the pool (top mode then falls back to the full fuzzy statement)."""
    rng, alice, _, context, names = corpus
    if packed:
        for scopes in (["team:fast"], [f"user:{alice.name}"]):
            assert _pack(svc, alice, context, scopes)
        write(svc, alice, context, spellings(random.Random(5), 40), scopes=["team:fast"])
        third = len(names) // 3
        for i, target in enumerate(names[2 * third : 2 * third + 5]):  # stale ids in the packs
            assert svc.remove_alias(alice, context, f"{target}別名{i}") == 1
    monkeypatch.setattr(lex, "FULL_POSTINGS", 0)  # top mode for every cue, small as it is
    monkeypatch.setattr(resolve_arrays, "BATCH", 3)  # several rounds of keys per cue
    cues = [typo(rng, name) for name in rng.sample(names, 80)] + ["fetchBlok", "QUERYGRAPH"]
    cues += ["fetch", "株式会社", LONG_CUE]  # cues contained in many stored keys
    partial = 0
    with svc.store.session(alice) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == context))
        for text in cues:
            cue = lex.analyse(session, ctx_id, "concept", text)
            for floor in (0.0, 0.3):
                full = lex.lexical(session, ctx_id, "concept", cue, floor, pool)
                everything = rc.best_per_canonical(full.scored, cue.text)
                for top in (1, 3, 10):
                    got = lex.lexical(session, ctx_id, "concept", cue, floor, pool, top)
                    ranked = rc.best_per_canonical(got.scored, cue.text)
                    assert ranked[:top] == everything[:top], (text, floor, top)
                    assert set(got.scored) <= set(full.scored), (text, floor, top)
                    if got.complete:
                        assert set(got.scored) == set(full.scored), (text, floor)
                    partial += not got.complete
    assert partial > 100  # the bounded path ran, not only its fallback


def test_packs_hold_every_posting_once(svc: Tabane, corpus) -> None:
    """After a merge the packs of a scope set hold exactly its postings, each once, and every
    posting is flagged; postings written after it stay unflagged until the next."""
    _, alice, _, context, _ = corpus
    assert _pack(svc, alice, context, ["team:fast"])
    write(svc, alice, context, ["packedLater1", "packedLater2"], scopes=["team:fast"])
    with svc.store.session(alice) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == context))
        rows = session.execute(
            select(VocabGram.entry_id, VocabGram.gram, VocabGram.size, VocabGram.merged).where(
                VocabGram.context_id == ctx_id, VocabGram.scopes == ["team:fast"]
            )
        ).all()
        packs = session.execute(
            select(VocabGramPack.kind, VocabGramPack.gram, VocabGramPack.records).where(
                VocabGramPack.context_id == ctx_id, VocabGramPack.scopes == ["team:fast"]
            )
        ).all()
    packed = sorted(
        (int(rec["id"]), gram, int(rec["size"]))
        for _, gram, blob in packs
        for rec in np.frombuffer(bytes(blob), dtype=gram_merge.RECORD)
    )
    assert packed == sorted((r.entry_id, r.gram, r.size) for r in rows if r.merged)
    fresh = {r.entry_id for r in rows if not r.merged}
    assert len(fresh) == 2 and not fresh & {i for i, _, _ in packed}
    with svc.store.session(alice) as session:
        assert gram_merge.backlog(session, ctx_id, ["team:fast"]).fresh == len(
            [r for r in rows if not r.merged]
        )


def test_look_up_is_the_exact_keys_and_the_statistics(svc: Tabane, corpus) -> None:
    """`look_up` reads a cue's exact spellings and its statistics in one statement: the same
    exact rows as a scan of every visible key, the same cue as `frequencies` gives."""
    rng, alice, bob, context, names = corpus
    third = len(names) // 3
    aliases = [f"{t}別名{i}" for i, t in enumerate(names[2 * third : 2 * third + 15])]
    cues = rng.sample(names, 40) + aliases + [n.upper() for n in rng.sample(names, 10)]
    cues += [typo(rng, name) for name in rng.sample(names, 20)] + ["b", "株式会社", LONG_CUE]
    compared = 0
    for who in (alice, bob):
        with svc.store.session(who) as session:
            ctx_id = session.scalar(select(Context.id).where(Context.name == context))
            rows = session.execute(
                select(VocabEntry.name, VocabEntry.alias_of, VocabEntry.key).where(
                    VocabEntry.context_id == ctx_id, VocabEntry.kind == "concept"
                )
            ).all()
            for text in cues:
                looked = lex.look_up(session, ctx_id, "concept", text)
                key = spelling_key(text)
                freq = vocabulary_stats.frequencies(session, ctx_id, "concept", char_grams(key))
                assert looked.cue == lex.cue_of(text, key, freq), text
                want = sorted(
                    (r.name, r.alias_of or r.name, "alias" if r.alias_of else "exact")
                    for r in rows
                    if r.key == key
                )
                assert [(s.name, s.canonical, s.kind) for s in looked.exact] == want, text
                compared += len(want)
    assert compared > 60
