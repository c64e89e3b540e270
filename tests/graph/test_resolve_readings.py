"""resolve's reading route: a kana reading, a Hepburn romanisation (long vowels or not, an
honorific after it) or the initials of a multi-word name reach the stored spelling, and explain
names the route."""

from __future__ import annotations

import importlib

import pytest
from sqlalchemy import delete, select, text, update

from tabane.graph import readings
from tabane.graph.claims.parse import parse_claims
from tabane.jobs.worker import Worker
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import Context, Job, VocabReading
from tabane.text.reading import analyzer

needs_analyzer = pytest.mark.skipif(analyzer() is None, reason="the ja extra reads kanji")


def write(svc: Tabane, user: Principal, context: str, *triples: tuple[str, str, str]) -> None:
    claims = [{"subject": s, "label": lb, "object": o, "weight": 1.0} for s, lb, o in triples]
    svc.add_claims(user, context, parse_claims(claims))


def kinds(svc: Tabane, user: Principal, context: str, cue: str) -> list[tuple[str, str]]:
    return [(c.name, c.kind) for c in svc.resolve(user, context, cue).candidates]


def test_a_kana_cue_reaches_a_katakana_spelling_by_romaji(svc, user, context) -> None:
    write(svc, user, context, ("フジノユキ", "役職", "工房長"))
    assert kinds(svc, user, context, "Fujino Yuki") == [("フジノユキ", "romanisation")]
    assert kinds(svc, user, context, "Yuki Fujino") == [("フジノユキ", "romanisation")]


@needs_analyzer
def test_a_reading_reaches_a_kanji_name(svc, user, context) -> None:
    write(svc, user, context, ("山田太郎", "役職", "工場長"), ("山本花子", "役職", "部長"))
    got = svc.resolve(user, context, "やまだたろう").candidates
    assert (got[0].name, got[0].kind, got[0].score) == ("山田太郎", "reading", 1.0)


@needs_analyzer
def test_a_family_name_with_an_honorific_reaches_the_full_name(svc, user, context) -> None:
    write(svc, user, context, ("大西修平", "役職", "工場長"), ("西村", "r", "x"))
    for cue in ("Ōnishi-san", "Onishi-san", "Ohnishi san", "おおにしさん"):
        got = svc.resolve(user, context, cue).candidates
        assert got and got[0].name == "大西修平", cue
        assert got[0].kind in ("reading", "romanisation") and 0 < got[0].score < 1, cue


def test_an_acronym_reaches_its_multi_word_name(svc, user, context) -> None:
    write(svc, user, context, ("BlobStoreWriter", "writes", "blobs"), ("BlockSorter", "r", "x"))
    assert kinds(svc, user, context, "BSW")[0] == ("BlobStoreWriter", "acronym")
    assert ("BlobStoreWriter", "acronym") not in kinds(svc, user, context, "bsw")


def test_an_exact_spelling_still_eclipses_readings(svc, user, context) -> None:
    write(svc, user, context, ("ふじの", "r", "x"), ("フジノユキ", "r", "y"))
    got = svc.resolve(user, context, "ふじの")
    assert got.eclipsed and [c.name for c in got.candidates] == ["ふじの"]


def test_explain_names_the_route(svc, user, context) -> None:
    write(svc, user, context, ("フジノユキ", "役職", "工房長"), ("BlobStoreWriter", "w", "b"))
    got = svc.explain_resolve(user, context, "Fujino Yuki", "フジノユキ")
    assert (got.verdict, got.match) == ("served", "romanisation") and "romanisation" in got.detail
    got = svc.explain_resolve(user, context, "BSW", "BlobStoreWriter")
    assert (got.verdict, got.match) == ("served", "acronym") and "initials" in got.detail


def test_an_alias_gets_its_reading_too(svc, user, context) -> None:
    write(svc, user, context, ("Studio Kumo", "r", "x"))
    svc.add_alias(user, context, "スタジオクモ", "Studio Kumo")
    assert kinds(svc, user, context, "sutajio kumo") == [("Studio Kumo", "romanisation")]


def test_backfill_writes_the_missing_keys_once(svc, user, context) -> None:
    write(svc, user, context, ("フジノユキ", "r", "x"), ("BlobStoreWriter", "w", "b"))
    with svc.store.session(user) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == context))
        assert ctx_id is not None
        session.execute(delete(VocabReading).where(VocabReading.context_id == ctx_id))
        assert readings.backfill(session, ctx_id, batch=1) == 2  # a reading, an acronym
        assert readings.backfill(session, ctx_id) == 0
    assert kinds(svc, user, context, "BSW")[0] == ("BlobStoreWriter", "acronym")


def test_the_upgrade_queues_jobs_that_write_the_keys_of_stored_spellings(
    svc, user, context
) -> None:
    migration = importlib.import_module(
        "tabane.storage.migrations.versions.0039_vocabulary_readings"
    )
    with svc.store.admin() as session:  # earlier tests' queued work must not be claimed here
        session.execute(
            update(Job).where(Job.state.in_(("queued", "running"))).values(state="done")
        )
    write(svc, user, context, ("BlobStoreWriter", "w", "b"))
    with svc.store.admin() as session:  # a store from before: no keys, and the upgrade's jobs
        ctx_id = session.scalar(select(Context.id).where(Context.name == context))
        session.execute(delete(VocabReading).where(VocabReading.context_id == ctx_id))
        session.execute(text(migration.BACKFILL + " WHERE context_id = :c"), {"c": ctx_id})
    assert ("BlobStoreWriter", "acronym") not in kinds(svc, user, context, "BSW")
    assert Worker(svc.store, None).drain() >= 1
    assert kinds(svc, user, context, "BSW")[0] == ("BlobStoreWriter", "acronym")


@needs_analyzer
def test_a_reading_the_cue_only_begins_yields_to_a_spelling_match(svc, user, context) -> None:
    write(svc, user, context, ("山田太郎", "役職", "工場長"))
    got = svc.resolve(user, context, "山田").candidates
    assert [(c.name, c.kind) for c in got] == [("山田太郎", "containment")]
