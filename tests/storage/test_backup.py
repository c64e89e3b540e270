"""Backup and restore of a whole store: a round trip keeps every row of every table (the tables
read from the catalog), a backup taken while a writer writes is one instant of the store, and
restore refuses a store with data (unless forced), a newer migration head and a file that is no
backup — each with its own code."""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from tabane.config import Settings
from tabane.errors import BackupTooNew, BackupUnreadable, StoreNotEmpty
from tabane.graph.claims.parse import parse_claims
from tabane.models.local import UseEmbedder
from tabane.service import Tabane
from tabane.storage import backup, embedded, migrate
from tabane.storage.backup import holdings
from tabane.storage.opening import open_store
from tabane.storage.store import Store

TABLES = """SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1"""
SEQUENCES = "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public'"


@pytest.fixture(scope="module")
def homes() -> Iterator[list[Path]]:
    made: list[Path] = []
    yield made
    for home in made:
        embedded.stop(home)
        shutil.rmtree(home, ignore_errors=True)


def fresh(homes: list[Path], embedder: UseEmbedder | None = None) -> Settings:
    """A new home's settings (its store made by the first open)."""
    home = Path(tempfile.mkdtemp(prefix="tabane-backup-"))
    homes.append(home)
    return Settings(
        home=home, local_user="op", worker="off", embedder="use" if embedder else "none"
    )


def target(homes: list[Path]) -> Store:
    """A new store opened as `tabane restore` opens it: migrated, no user made, no worker."""
    return open_store(fresh(homes))


def rows(owner: Engine) -> dict[str, list[str]]:
    """Every table's rows as text, sorted, and the sequences' positions."""
    with owner.connect() as conn:
        out = {
            table: sorted(conn.scalars(text(f'SELECT t::text FROM public."{table}" t')).all())
            for table in conn.scalars(text(TABLES))
        }
        out["(sequences)"] = sorted(f"{n}={v}" for n, v in conn.execute(text(SEQUENCES)))
    return out


def fill(svc: Tabane, folder: Path) -> None:
    """Some of everything: users, a shared scope with grants, a key, contexts in a group,
    sources with paragraphs and vectors, claims, a note, a session's turns."""
    for name in ("ann", "ben"):
        svc.add_user(name)
    svc.add_scope("org:lab", "the lab")
    svc.grant("ben", "org:lab", write=True)
    ann, ben = svc.principal("ann"), svc.principal("ben")
    svc.create_key("ann")
    svc.create_context(ann, "field")
    svc.create_context(ben, "lab", scopes=["org:lab"])
    svc.create_group(ben, "all", contexts=["lab"])
    for i in range(3):
        doc = folder / f"note{i}.md"
        doc.write_text(f"# Tides {i}\n\nThe tide turns at {i} bells.\n\nSpring tides run high.\n")
        svc.ingest_paths(ann, "field", [doc])
    svc.add_claims(ben, "lab", parse_claims([
        {"subject": "kelp", "label": "grows_in", "object": "cold water", "weight": 1.0},
        {"subject": "otter", "label": "eats", "object": "urchin", "weight": 0.5},
    ]))  # fmt: skip
    svc.remember(ann, "field", {"text": "The pier floods at spring tide."}, speaker="ann")
    svc.add_turn(ann, "walk", "Shall we go at low tide?", speaker="ann")
    svc.wait_for_jobs()  # the vectors of paragraphs, notes and turns


@pytest.mark.slow
def test_a_round_trip_keeps_every_row_of_every_table(
    homes: list[Path], embedder: UseEmbedder, tmp_path: Path
) -> None:
    source = Tabane.open(fresh(homes, embedder), embedder=embedder)
    fill(source, tmp_path)
    before = rows(source.store.owner)
    for table in ("users", "grants", "api_keys", "groups", "paragraphs", "paragraph_vectors",
                  "claims", "sessions", "session_turns", "bm25_terms"):  # fmt: skip
        assert before[table], table
    dump = tmp_path / "store.dump"
    made = backup.backup(source.store.owner, dump)
    assert made.revision == migrate.HEAD and made.bytes == dump.stat().st_size > 0

    into = target(homes)
    done = backup.restore(into.owner, dump, login_role=True)
    assert done.backup_revision == migrate.HEAD and done.revision == migrate.HEAD
    after = rows(into.owner)
    assert after.keys() == before.keys() and len(after) > 30
    assert [t for t in before if before[t] != after[t]] == []
    into.close()
    source.close()


@pytest.mark.slow
def test_a_backup_taken_while_a_writer_writes_is_one_instant(
    homes: list[Path], tmp_path: Path
) -> None:
    source = Tabane.open(fresh(homes))
    ann = source.local_user()
    source.create_context(ann, "busy")
    stop = threading.Event()

    def write() -> None:  # each document: 5 paragraphs in one transaction
        i = 0
        while not stop.is_set():
            doc = tmp_path / f"d{i}.md"
            doc.write_text("\n\n".join(f"Entry {i} line {k} of the log." for k in range(5)))
            source.ingest_paths(ann, "busy", [doc])
            i += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        dumps = [tmp_path / f"busy{n}.dump" for n in range(3)]
        for dump in dumps:
            backup.backup(source.store.owner, dump)
    finally:
        stop.set()
        writer.join()
    into = target(homes)
    counts = set()
    for dump in dumps:
        backup.restore(into.owner, dump, force=True, login_role=True)
        with into.owner.connect() as conn:
            per_source = conn.execute(text(
                "SELECT s.id, count(p.*) FROM sources s LEFT JOIN paragraphs p "
                "ON p.source_pk = s.id GROUP BY s.id"
            )).all()  # fmt: skip
        assert {n for _, n in per_source} <= {5}, "a source without all its paragraphs"
        counts.add(len(per_source))
    assert len(counts) > 1 or max(counts) > 0  # the writer wrote while the backups ran
    into.close()
    source.close()


def test_restore_refuses_data_a_newer_head_and_a_file_that_is_no_backup(
    homes: list[Path], tmp_path: Path
) -> None:
    source = Tabane.open(fresh(homes))
    source.create_context(source.local_user(), "kept")
    dump = tmp_path / "kept.dump"
    backup.backup(source.store.owner, dump)
    into = target(homes)
    backup.restore(into.owner, dump, login_role=True)
    assert holdings(into.owner)["contexts"] == 1
    with pytest.raises(StoreNotEmpty) as refused:
        backup.restore(into.owner, dump, login_role=True)
    assert "table.contexts" in [i.path for i in refused.value.issues]
    backup.restore(into.owner, dump, force=True, login_role=True)  # told: replaced

    with source.store.owner.begin() as conn:  # as a later tabane's migration would leave it
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    newer = tmp_path / "newer.dump"
    backup.backup(source.store.owner, newer)
    with pytest.raises(BackupTooNew) as too_new:
        backup.restore(into.owner, newer, force=True, login_role=True)
    assert "9999" in too_new.value.message
    assert holdings(into.owner)["contexts"] == 1  # refused before anything was dropped

    junk = tmp_path / "junk.dump"
    junk.write_bytes(b"PGDMP but not really")
    with pytest.raises(BackupUnreadable):
        backup.restore(into.owner, junk, force=True, login_role=True)
    into.close()
    source.close()


@pytest.mark.slow
def test_a_process_that_had_the_store_open_reads_the_restored_one(
    homes: list[Path], tmp_path: Path
) -> None:
    """A server or the CLI's resident keeps its pooled connections (and psycopg's prepared
    statements, made after five runs) across a restore: they must read the new tables."""
    from tabane.search.plan import SearchRequest

    source, open_ = Tabane.open(fresh(homes)), Tabane.open(fresh(homes))
    for svc, text_ in ((source, "Otters eat urchins in the kelp."), (open_, "Gulls nest.")):
        svc.create_context(svc.local_user(), "c")
        doc = tmp_path / "d.md"
        doc.write_text(text_)
        svc.ingest_paths(svc.local_user(), "c", [doc])
    ask = SearchRequest(query="otters urchins", contexts=("c",))
    for _ in range(7):
        assert open_.search(open_.local_user(), ask).hits == []
    dump = tmp_path / "src.dump"
    backup.backup(source.store.owner, dump)
    into = open_store(open_.settings)
    backup.restore(into.owner, dump, force=True, login_role=True)
    into.close()
    [hit] = open_.search(open_.local_user(), ask).hits
    assert "Otters" in hit.text
    source.close()
    open_.close()


@pytest.mark.slow
def test_shared_rate_limit_state_is_not_backed_up(homes: list[Path], tmp_path: Path) -> None:
    """The shared limits' buckets (schema `tabane_limits`, made on first use by a server that
    shares its limits) are a few seconds of state, not the store's: a backup leaves them out, so a
    forced restore into a store whose server made them too does not collide with them."""
    from tabane.storage import shared_limits

    source = Tabane.open(fresh(homes))
    source.create_context(source.local_user(), "kept")
    shared_limits.ensure_table(source.store.owner)
    dump = tmp_path / "kept.dump"
    backup.backup(source.store.owner, dump)
    into = target(homes)
    shared_limits.ensure_table(into.owner)
    backup.restore(into.owner, dump, force=True, login_role=True)
    assert holdings(into.owner)["contexts"] == 1
    backup.restore(into.owner, dump, force=True, login_role=True)  # and again: still no collision
    with into.owner.connect() as conn:
        assert conn.scalar(text("SELECT to_regclass('tabane_limits.buckets')")) is not None
    into.close()
    source.close()
