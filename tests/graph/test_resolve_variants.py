"""resolve's variant-kanji route: a name written with a variant form of a kanji (髙 for 高, 﨑
for 崎, 邊 for 辺), which NFKC does not unify, reaches the stored spelling as a `variant`."""

from __future__ import annotations

from tabane.graph.claims.parse import parse_claims
from tabane.principal import Principal
from tabane.service import Tabane


def write(svc: Tabane, user: Principal, context: str, *triples: tuple[str, str, str]) -> None:
    claims = [{"subject": s, "label": lb, "object": o, "weight": 1.0} for s, lb, o in triples]
    svc.add_claims(user, context, parse_claims(claims))


def test_a_cue_in_the_common_form_reaches_the_variant_spelling(svc, user, context) -> None:
    # two different people: the look-alike differs in one ordinary character
    write(svc, user, context, ("髙﨑実", "役職", "工場長"), ("高崎稔", "役職", "営業部長"))
    got = svc.resolve(user, context, "高崎実")
    first = got.candidates[0]
    assert (first.name, first.kind, first.score, first.rank) == ("髙﨑実", "variant", 1.0, 1)
    assert not got.eclipsed  # the look-alike is still scored, below it
    assert [c.name for c in got.candidates[1:]] == ["高崎稔"]
    assert got.candidates[1].kind == "fuzzy"


def test_a_cue_in_the_variant_form_reaches_the_common_spelling(svc, user, context) -> None:
    write(svc, user, context, ("渡辺商店", "所在地", "浜松"))
    for cue in ("渡邊商店", "渡邉商店"):
        got = svc.resolve(user, context, cue)
        assert [(c.name, c.kind) for c in got.candidates] == [("渡辺商店", "variant")], cue


def test_an_exact_spelling_still_eclipses_its_variants(svc, user, context) -> None:
    write(svc, user, context, ("高田", "r", "x"), ("髙田", "r", "y"))
    got = svc.resolve(user, context, "高田")
    assert [(c.name, c.kind) for c in got.candidates] == [("高田", "exact")] and got.eclipsed


def test_explain_names_the_variant_route(svc, user, context) -> None:
    write(svc, user, context, ("髙﨑実", "役職", "工場長"))
    got = svc.explain_resolve(user, context, "高崎実", "髙﨑実")
    assert (got.verdict, got.rank, got.match, got.tier) == ("served", 1, "variant", "lexical")
    assert "variant" in got.detail and "髙﨑実" in got.detail
