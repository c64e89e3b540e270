"""resolve and resolve_label against the real store: the tiers, floors, glosses, warnings,
over-common bigrams, visibility and the semantic tier over gloss vectors."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tabane.errors import InvalidInput, NoContext
from tabane.graph.claims.parse import parse_claims
from tabane.graph.resolve import arrays as resolve_arrays
from tabane.graph.resolve import cue as rc
from tabane.graph.resolve import tiers as lex
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import Context, VocabEntry

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test


def write(svc: Tabane, user: Principal, context: str, *triples: tuple[str, str, str], **kw) -> None:
    svc.add_claims(
        user,
        context,
        parse_claims(
            [{"subject": s, "label": label, "object": o, "weight": 1.0} for s, label, o in triples]
        ),
        **kw,
    )


def names(result) -> list[tuple[str, float, str]]:
    return [(c.name, round(c.score, 3), c.kind) for c in result.candidates]


def test_exact_alias_and_case_twins_eclipse_everything_else(svc, user, context) -> None:
    write(svc, user, context, ("Frame", "has", "frame"), ("frame", "is", "Frames"))
    svc.add_alias(user, context, "Främe", "Frame")
    got = svc.resolve(user, context, "FRAME")
    assert names(got) == [("Frame", 1.0, "exact"), ("frame", 1.0, "exact")]
    assert got.eclipsed and got.semantic == [] and got.total == 2
    assert got.semantic_plan.ran is False and got.semantic_plan.reason == "lexical_strong"
    alias = svc.resolve(user, context, "främe")
    assert names(alias) == [("Frame", 1.0, "alias")]
    assert alias.candidates[0].via == "Främe"
    assert alias.candidates[0].tier == "lexical" and alias.candidates[0].rank == 1


def test_normalization_width_kana_and_identifier_forms(svc, user, context) -> None:
    write(svc, user, context, ("ミズハ", "作る", "fetchBlock"), ("みずは", "属する", "ひらがな"))
    got = svc.resolve(user, context, "ﾐｽﾞﾊ")
    assert names(got) == [("みずは", 1.0, "exact"), ("ミズハ", 1.0, "exact")]
    assert names(svc.resolve(user, context, "fetch_block")) == [("fetchBlock", 1.0, "exact")]
    assert names(svc.resolve(user, context, "Fetch-Block")) == [("fetchBlock", 1.0, "exact")]
    assert names(svc.resolve(user, context, "ＦＥＴＣＨ　ＢＬＯＣＫ"))[0][0] == "fetchBlock"


def test_typo_is_fuzzy_and_containment_look_alike_has_a_gloss(svc, user, context) -> None:
    write(
        svc,
        user,
        context,
        ("東京都", "所在地", "関東"),
        ("東京都", "人口", "1400万人"),
        ("日本", "首都", "東京都"),
        ("青嶺酒造", "製造", "清酒"),
    )
    got = svc.resolve(user, context, "青嶺酒蔵")
    (top,) = got.candidates
    assert (top.name, top.kind) == ("青嶺酒造", "fuzzy") and top.score == pytest.approx(2 / 3)
    look = svc.resolve(user, context, "京都")
    assert names(look)[0] == ("東京都", 0.667, "containment")
    assert look.candidates[0].gloss == "東京都 — 人口→1400万人; 所在地→関東; 首都←日本"
    assert look.semantic_plan.reason == "lexical_strong"
    # A stored key inside the cue is containment too.
    inside = svc.resolve(user, context, "東京都庁舎")
    assert names(inside)[0] == ("東京都", 0.6, "containment")


def test_ties_are_deterministic(svc, user, context) -> None:
    write(svc, user, context, ("abcx", "r", "abcy"), ("abcz", "r", "abcy"))
    got = svc.resolve(user, context, "abc")
    assert [c.name for c in got.candidates] == ["abcx", "abcy", "abcz"]
    assert [c.rank for c in got.candidates] == [1, 2, 3]


def test_floor_from_call_context_and_default(svc, user, make_context) -> None:
    plain = make_context()
    strict = make_context(dice_floor=0.9)
    for ctx in (plain, strict):
        write(svc, user, ctx, ("interval", "r", "other"))
    cue = "intervalx"  # containment 8/9: never floored
    assert names(svc.resolve(user, plain, cue))[0][2] == "containment"
    typo = "intarval"  # Dice over bigrams: in, nt, ta, ar, rv, va, al vs in, nt, te, er, rv, va, al
    default = svc.resolve(user, plain, typo)
    assert (default.dice_floor.value, default.dice_floor.source) == (0.3, "context")
    assert names(default) == [("interval", round(10 / 14, 3), "fuzzy")]
    from_ctx = svc.resolve(user, strict, typo)
    assert (from_ctx.dice_floor.value, from_ctx.dice_floor.source) == (0.9, "context")
    assert from_ctx.candidates == []
    call = svc.resolve(user, strict, typo, dice_floor=0.5)
    assert (call.dice_floor.value, call.dice_floor.source) == (0.5, "call")
    assert names(call)[0][0] == "interval"
    assert svc.resolve(user, plain, typo, dice_floor=0.8).candidates == []


def test_default_dice_floor_when_the_context_has_none(svc, user, context) -> None:
    from tabane.graph.resolve.resolver import Request, floors

    ctx = Context(name="x", dice_floor=None, semantic_floor=None)
    dice, sem = floors(ctx, Request("cue"), None)
    assert (dice.value, dice.source, sem.value, sem.source) == (0.3, "default", None, "none")
    dice, sem = floors(ctx, Request("cue"), 0.42)
    assert (sem.value, sem.source) == (0.42, "default")


def test_over_common_bigrams_are_excluded_from_both_sides(svc, user, context) -> None:
    """With 70 company names sharing 株式会社, those grams are stop-grams: a typo in the
    distinctive part still lands, and the shared boilerplate alone matches nothing."""
    firms = [f"株式会社{chr(0x4E00 + 7 * i)}{chr(0x4E01 + 7 * i)}商事" for i in range(70)]
    write(svc, user, context, *[(f, "業種", "商社") for f in firms], ("株式会社青嶺", "r", "x"))
    got = svc.resolve(user, context, "株式会社青峰")
    assert set(got.stop_grams) >= {"株式", "式会", "会社"}
    assert [c.name for c in got.candidates] == ["株式会社青嶺"]
    # Dice over informative grams only: {社青, 青峰} vs {社青, 青嶺}.
    assert got.candidates[0].score == pytest.approx(0.5)
    with svc.store.session(user) as session:
        ctx = session.scalar(select(Context).where(Context.name == context))
        cue = lex.analyse(session, ctx.id, "concept", "株式会社青峰")
        assert cue.threshold == lex.STOP_MIN and cue.df["株式"] == 71


def test_invisible_spellings_never_surface(svc, make_user, make_context) -> None:
    alice = make_user(extra_write=("team:rs",))
    bob = make_user(extra_read=("team:rs",))
    shared = make_context(alice, scopes=["team:rs"])
    write(svc, alice, shared, ("公開概念", "r", "公開対象"))
    write(svc, alice, shared, ("秘密概念", "r", "秘密対象"), scopes=[f"user:{alice.name}"])
    assert names(svc.resolve(alice, shared, "秘密概念")) == [("秘密概念", 1.0, "exact")]
    hidden = svc.resolve(bob, shared, "秘密概念")
    assert [c.name for c in hidden.candidates] == ["公開概念"]  # through 概念, never 秘密概念
    assert "秘密" not in str(svc.resolve(bob, shared, "概念"))
    assert names(svc.resolve(bob, shared, "公開概念")) == [("公開概念", 1.0, "exact")]
    with pytest.raises(NoContext):
        svc.resolve(make_user(), shared, "公開概念")


def test_distinct_pairs_warn_on_either_spelling(svc, user, context) -> None:
    write(svc, user, context, ("株式会社青嶺", "別物", "青嶺株式会社"), ("青嶺", "r", "x"))
    got = svc.resolve(user, context, "青嶺株式会")
    by_name = {c.name: c for c in got.candidates}
    assert by_name["青嶺株式会社"].warnings == ("distinct from 株式会社青嶺",)
    assert by_name["株式会社青嶺"].warnings == ("distinct from 青嶺株式会社",)
    assert by_name["青嶺"].warnings == ()


def test_resolve_label_and_bad_input(svc, user, context) -> None:
    write(svc, user, context, ("a", "引き起こす", "b"), ("c", "引き起こした", "d"))
    got = svc.resolve_label(user, context, "引き起こす")
    assert names(got) == [("引き起こす", 1.0, "exact")]
    assert svc.resolve(user, context, "引き起こす").candidates == []  # concepts are apart
    fuzzy = svc.resolve_label(user, context, "引起こす")
    # {引起, 起こ, こす} shares 2 of 4 grams with 引き起こす, 1 of 5 with 引き起こした (0.25).
    assert names(fuzzy) == [("引き起こす", round(4 / 7, 3), "fuzzy")]
    assert fuzzy.semantic_plan.reason == "no_embedder" or fuzzy.semantic_plan.ran is False
    for kw, path in (
        ({"cue": ""}, "cue"),
        ({"cue": "x", "limit": 0}, "limit"),
        ({"cue": "x", "dice_floor": 1.5}, "dice_floor"),
        ({"cue": "x", "semantic_floor": float("nan")}, "semantic_floor"),
        ({"cue": "ab\x00c"}, "cue"),  # read as "abc" before: now refused, as on HTTP
        ({"cue": "abc\udcff"}, "cue"),  # an undecodable command-line byte
        ({"cue": "a\tb"}, "cue"),
    ):
        cue = kw.pop("cue")
        with pytest.raises(InvalidInput) as err:
            svc.resolve(user, context, cue, **kw)
        assert path in [i.path for i in err.value.issues]


def test_usage_counts_reads_and_misses(svc, user, context) -> None:
    write(svc, user, context, ("りんご", "r", "果物"))
    before = svc.get_context(user, context).usage
    svc.resolve(user, context, "りんご")
    svc.resolve(user, context, "ぶどう")
    after = svc.get_context(user, context).usage
    assert (after.reads - before.reads, after.misses - before.misses) == (2, 1)


def test_lexical_candidates_match_a_full_scan(svc, user, context) -> None:
    """The indexed candidate statements find exactly what scoring every stored key finds."""
    words = ["fetchBlock", "fetchBlob", "blockFetcher", "fetch", "etch", "sketchBook", "blob"]
    write(svc, user, context, *[(w, "r", "zz") for w in words])
    with svc.store.session(user) as session:
        ctx = session.scalar(select(Context).where(Context.name == context))
        keys = session.execute(
            select(VocabEntry.name, VocabEntry.key).where(
                VocabEntry.context_id == ctx.id, VocabEntry.kind == "concept"
            )
        ).all()
        for cue_text in ["fetchBlok", "etch", "fetchblockfetcher", "sketch", "b", "zz"]:
            cue = lex.analyse(session, ctx.id, "concept", cue_text)
            got = {
                (s.name, round(s.score, 9))
                for s in lex.lexical(session, ctx.id, "concept", cue, 0.3, 400).scored
            }
            want = set()
            for name, key in keys:
                score, how = rc.score_key(cue, key)
                if how == "exact" or score <= 0 or (how == "fuzzy" and score < 0.3):
                    continue
                want.add((name, round(score, 9)))
            assert got == want, cue_text


def test_semantic_tier_over_gloss_vectors(vsvc: Tabane, make_user, make_context) -> None:
    user = make_user()
    context = make_context(user)
    write(
        vsvc,
        user,
        context,
        ("杜氏", "役割", "酒造りの長"),
        ("杜氏", "働く場所", "酒蔵"),
        ("新幹線", "種類", "高速鉄道"),
    )
    before = vsvc.resolve(user, context, "醸造の責任者")
    assert before.semantic_plan.ran is False
    assert before.semantic_plan.reason in ("gloss_vectors_pending", "no_gloss_vectors")
    assert vsvc.wait_for_jobs() == 0
    default = vsvc.resolve(user, context, "醸造責任者")  # the model's measured floor
    assert (default.semantic_plan.floor.value, default.semantic_plan.floor.source) == (
        0.15,
        "default",
    )
    assert all(c.score >= 0.15 for c in default.semantic)
    got = vsvc.resolve(user, context, "醸造責任者", semantic_floor=0.0)
    assert got.candidates == [] and got.semantic_plan.ran
    assert got.semantic_plan.floor.source == "call"
    order = [c.name for c in got.semantic]
    # The paraphrase lands on 杜氏's neighbourhood (its gloss, or its role's), far above 新幹線.
    assert "杜氏" in order[:2] and order[-1] == "新幹線", got.semantic
    toji = got.semantic[order.index("杜氏")]
    assert (toji.tier, toji.kind) == ("semantic", "semantic")
    assert toji.gloss == "杜氏 — 働く場所→酒蔵; 役割→酒造りの長"
    high = vsvc.resolve(user, context, "醸造責任者", semantic_floor=0.999)
    assert high.semantic_plan.ran and high.semantic == []
    # a retracted fact leaves the gloss, and its vector, once a worker embeds it again
    vsvc.retract_associations(user, context, [("杜氏", "働く場所", "酒蔵", None, None)])
    assert vsvc.wait_for_jobs() == 0
    again = vsvc.resolve(user, context, "醸造責任者", semantic_floor=0.0)
    toji = again.semantic[[c.name for c in again.semantic].index("杜氏")]
    assert toji.gloss == "杜氏 — 役割→酒造りの長"
    assert toji.score != got.semantic[order.index("杜氏")].score  # the vector was renewed


def test_total_is_a_lower_bound_when_only_the_top_was_ranked(
    svc, user, context, monkeypatch
) -> None:
    """Past the limit resolve may rank only what the shown candidates need: `total` then counts
    what it scored (at least the limit) and `total_exact` says so; the candidates are the ones
    scoring everything gives."""
    words = ["fetch", "block", "read", "write", "frame", "cache", "store", "query", "graph"]
    spellings = [f"{a}{b.capitalize()}{n}" for a in words for b in words if a != b for n in "12"]
    write(svc, user, context, *[(w, "r", "zz") for w in spellings])
    everything = svc.resolve(user, context, "fetchBlokc1", limit=100)
    assert everything.total_exact and everything.total > 5
    monkeypatch.setattr(lex, "FULL_POSTINGS", 0)
    monkeypatch.setattr(resolve_arrays, "BATCH", 2)  # keys scored two at a time
    top = svc.resolve(user, context, "fetchBlokc1", limit=3)
    assert not top.total_exact and 3 <= top.total <= everything.total
    assert names(top) == names(everything)[:3]


def test_a_retracted_source_re_embeds_the_glosses_that_quoted_its_claims(
    vsvc: Tabane, make_user, make_context
) -> None:
    from sqlalchemy import select

    from tabane.contexts import contexts
    from tabane.graph.claims.parse import ClaimInput
    from tabane.ingest.documents import DocumentInput, block
    from tabane.jobs import queue
    from tabane.storage.schema import Job

    user = make_user()
    context = make_context(user)
    vsvc.ingest(user, context, DocumentInput("brew", paragraphs=[block("杜氏は酒蔵で働く。")]))
    claim = ClaimInput("杜氏", "働く場所", "酒蔵", 1.0, source="brew", paragraph=0)
    vsvc.add_claims(user, context, [claim, ClaimInput("杜氏", "役割", "酒造りの長", 1.0)])
    assert vsvc.wait_for_jobs() == 0
    before = vsvc.resolve(user, context, "醸造責任者", semantic_floor=0.0).semantic
    vsvc.retract(user, context, "brew")
    with vsvc.store.session(user) as session:
        ctx_id = contexts.resolve(session, context).id
    with vsvc.store.admin() as session:
        queued = session.scalars(
            select(Job.kind).where(Job.context_id == ctx_id, Job.state == "queued")
        ).all()
    assert queue.EMBED_GLOSSES in queued
    assert vsvc.wait_for_jobs() == 0
    after = vsvc.resolve(user, context, "醸造責任者", semantic_floor=0.0).semantic
    toji = {c.name: c.score for c in after}["杜氏"]
    assert toji != {c.name: c.score for c in before}["杜氏"]  # its vector no longer has 酒蔵


def test_ties_order_by_match_kind_then_the_cue_s_own_spelling(svc, user, context) -> None:
    """Regression (issue 35b): at the same score the stored spelling the cue names verbatim comes
    first, then other exact keys (case twins, identifier forms), then aliases."""
    write(svc, user, context, ("fetchBlock", "r", "x"), ("fetch_block", "r", "x"))
    write(svc, user, context, ("Fetch_Block", "r", "x"), ("block", "r", "x"))
    svc.add_alias(user, context, "fetch-block!", "block")
    got = svc.resolve(user, context, "fetch_block")
    assert names(got)[0] == ("fetch_block", 1.0, "exact")
    assert [c.kind for c in got.candidates] == ["exact", "exact", "exact", "alias"]
    # a case-folded form of the cue beats an identifier form of it
    assert [c.name for c in got.candidates[1:3]] == ["Fetch_Block", "fetchBlock"]


def test_labels_have_a_semantic_tier_over_their_uses(vsvc: Tabane, make_user, make_context):
    """Issue 35: a label is embedded with its heaviest uses as its gloss, so a paraphrase of a
    label lands on it through the semantic tier, and resolve_label glosses its candidates."""
    user = make_user()
    context = make_context(user)
    write(
        vsvc,
        user,
        context,
        ("ストレス", "引き起こす", "不眠"),
        ("運動", "防ぐ", "不眠"),
        ("杜氏", "働く場所", "酒蔵"),
    )
    pending = vsvc.resolve_label(user, context, "原因になる")
    assert pending.semantic_plan.reason in ("gloss_vectors_pending", "no_gloss_vectors")
    assert vsvc.wait_for_jobs() == 0
    got = vsvc.resolve_label(user, context, "原因になる", semantic_floor=-1.0)
    assert got.semantic_plan.ran and got.semantic_plan.reason is None
    assert {c.name for c in got.semantic} == {"引き起こす", "防ぐ", "働く場所"}
    assert all(c.kind == "semantic" and c.tier == "semantic" for c in got.semantic)
    causes = next(c for c in got.semantic if c.name == "引き起こす")
    assert causes.gloss == "引き起こす — ストレス→不眠"
    lexical = vsvc.resolve_label(user, context, "働く")
    assert lexical.candidates[0].gloss == "働く場所 — 杜氏→酒蔵"
    why = vsvc.explain_resolve(
        user, context, "原因になる", "防ぐ", kind="label", semantic_floor=-1.0
    )
    assert (why.verdict, why.tier) == ("served", "semantic") and why.cosine is not None
