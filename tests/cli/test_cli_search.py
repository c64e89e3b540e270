"""`tabane search` (and --explain), `tabane jobs`, `tabane worker --once`, and `tabane ingest`
waiting for its embeddings — in process through Typer's runner, on the session's store."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.storage.schema import Job

from helpers import past_the_debounce, queue_rebuilds, unique

pytestmark = pytest.mark.slow  # CLI processes, each a fresh interpreter

TEXTS = [
    "The kettle boils water quickly.",
    "Descale the kettle element monthly.",
    "A kettle note.",
    "Gardening is not about kettles at all.",
]


@pytest.fixture
def stored(svc: Tabane, user: Principal, context: str) -> str:
    svc.ingest(
        user, context, DocumentInput(source_id="kettle", paragraphs=[block(t) for t in TEXTS])
    )
    return context


def test_search_prints_hits_and_plan(cli, svc, user, stored, make_context) -> None:
    code, out, _ = cli("search", "kettle boils water", "--context", stored)
    assert code == 0
    assert set(out) == {"hits", "plan", "next_after"}
    top = out["hits"][0]
    assert (top["context"], top["source_id"], top["paragraph"], top["rank"]) == (
        stored,
        "kettle",
        0,
        1,
    )
    assert out["plan"]["contexts"][0]["lanes"]["vector"]["reason"] == "no_embedder"

    other = make_context()
    svc.ingest(user, other, DocumentInput(source_id="o", paragraphs=[block("A kettle.")]))
    svc.create_group(user, f"g{other}", contexts=[other])
    code, out, _ = cli("search", "kettle", "-c", stored, "-g", f"g{other}", "--limit", "2")
    assert code == 0
    assert [h["context"] for h in out["hits"]] == [stored, other]
    assert out["next_after"]

    code, out, _ = cli("search", "kettle", "-c", stored, "--tag", "work", "--since", "2020-01-01")
    assert code == 0 and out["hits"] == []
    assert out["plan"]["contexts"][0]["filter"]["eligible_sources"] == 0


def test_search_refuses_bad_input(cli, stored) -> None:
    code, _, err = cli("search", "kettle", "-c", f"nosuch{stored}")
    assert code == 2 and "error [no_context]" in err
    code, _, err = cli("search", "kettle", "-c", stored, "--limit", "0")
    assert code == 2 and "error [invalid_input]" in err and "limit" in err
    code, _, err = cli("search", "kettle", "-c", stored, "--floor", "nan")
    assert code == 2 and "semantic_floor" in err
    code, _, err = cli("search", "kettle", "-c", stored, "--since", "someday")
    assert code == 2 and "--since" in err
    code, _, err = cli("search", "kettle")
    assert code == 2 and "contexts" in err
    code, _, err = cli("search", "kettle", "-c", stored, "-c", stored + "x", "--explain", "kettle")
    assert code == 2 and "--explain-context" in err
    code, _, err = cli("search", "kettle", "-c", stored, "--explain", "kettle", "--paragraph", "-1")
    assert code == 2 and "error [invalid_input]" in err and "  --paragraph: 0 or more" in err
    code, _, err = cli("search", "kettle", "-c", stored, "--paragraph", "1")  # ignored before
    assert code == 2 and "  --explain: missing" in err


def test_search_explain(cli, svc, user, stored) -> None:
    code, out, _ = cli("search", "kettle boils water", "-c", stored, "--explain", "kettle")
    assert code == 0 and (out["verdict"], out["rank"], out["paragraph"]) == ("served", 1, 0)
    assert {t["term"] for t in out["terms"]} == {"kettl", "boil", "water"}  # stems

    last = svc.search(user, SearchRequest("kettle", contexts=(stored,))).hits[-1].paragraph
    code, out, _ = cli(
        "search", "kettle", "-c", stored, "--limit", "1", "--explain", "kettle",
        "--paragraph", str(last),
    )  # fmt: skip
    assert code == 0 and out["verdict"] == "below_cutoff"
    assert out["limit_to_reach"] == out["rank"] > 1

    code, out, _ = cli(
        "search", "boils water", "-c", stored, "--explain", "kettle", "--paragraph", "3",
        "--explain-context", stored,
    )  # fmt: skip
    assert code == 0 and out["verdict"] == "no_term_overlap"
    code, out, _ = cli("search", "kettle", "-c", stored, "--explain", "never-stored")
    assert code == 0 and out["verdict"] == "not_stored"


def test_worker_once_runs_the_queued_jobs_and_jobs_lists_them(
    cli, vsvc: Tabane, user, context
) -> None:
    before = max((j.id for j in vsvc.jobs(limit=1)), default=0)
    vsvc.ingest(
        user, context, DocumentInput(source_id="g", paragraphs=[block("Tomatoes need sun.")])
    )
    code, out, _ = cli("jobs")
    assert code == 0
    mine = [j for j in out["jobs"] if j["id"] > before and j["kind"] == "embed_source"]
    assert mine and mine[0]["state"] == "queued"
    # the BM25 merge's look, queued after the embedding (newest first)
    assert [j["kind"] for j in out["jobs"] if j["id"] > before] == ["merge_bm25", "embed_source"]
    assert set(mine[0]) >= {"id", "kind", "state", "attempts", "done", "total", "last_error"}

    code, out, err = cli("worker", "--once", TABANE_EMBEDDER="use")
    assert code == 0 and out["ran"] >= 1
    assert "use-multilingual-v3" in err and f"job {mine[0]['id']} embed_source: done" in err

    code, out, _ = cli("jobs", "--limit", "1000")  # the worker's start queued other tests' too
    done = next(j for j in out["jobs"] if j["id"] == mine[0]["id"])
    assert (done["state"], done["done"], done["total"], done["attempts"]) == ("done", 1, 1, 1)
    result = vsvc.search(user, SearchRequest("plants and sunlight", contexts=(context,)))
    assert result.plan.contexts[0].lanes["vector"].ran

    code, out, err = cli("worker", "--once")  # derived rebuilds only: they need no embedder
    assert code == 0 and "no embedder" in err and "job kinds derive_communities" in err
    assert "merge_bm25" in err  # the merge needs no model either
    assert "embed_source" not in err


def test_ingest_waits_for_its_embeddings(cli, vsvc: Tabane, user, context, tmp_path) -> None:
    (tmp_path / "a.md").write_text("# Garden\n\nTomatoes need full sun.\n")
    (tmp_path / "b.md").write_text("# Desk\n\nThe invoice is due monthly.\n")

    other = unique("ctx")  # a derived build due elsewhere: the ingest does not wait for it
    vsvc.create_context(user, other)
    queue_rebuilds(vsvc, user, other)
    past_the_debounce(vsvc, user, other)
    code, out, _ = cli("ingest", str(tmp_path / "a.md"), "-c", context, TABANE_EMBEDDER="use")
    assert code == 0 and out["counts"]["created"] == 1
    plan = vsvc.search(user, SearchRequest("sunlight", contexts=(context,))).plan.contexts[0]
    assert plan.lanes["vector"].ran and plan.pending_embeddings == 0
    with vsvc.store.admin() as session:
        kinds = session.scalars(
            select(Job.kind).where(Job.state == "queued", Job.kind.like("derive_%"))
        ).all()
    assert "derive_communities" in kinds  # still queued, for a worker

    code, out, _ = cli(
        "ingest", str(tmp_path / "b.md"), "-c", context, "--no-wait", TABANE_EMBEDDER="use"
    )
    assert code == 0
    plan = vsvc.search(user, SearchRequest("invoice", contexts=(context,))).plan.contexts[0]
    assert plan.pending_embeddings == 1
    assert vsvc.wait_for_jobs(timeout=120) == 0


def test_ingest_and_sync_list_each_files_warnings(cli, context, tmp_path) -> None:
    (tmp_path / "a.md").write_text("---\ndate: 31/12/2024\n---\n# Garden\n\nFull sun.\n")
    (tmp_path / "b.md").write_text("---\ndate: 2024-12-31\n---\n# Desk\n\nInvoices.\n")
    code, out, _ = cli("ingest", str(tmp_path / "a.md"), str(tmp_path / "b.md"), "-c", context)
    assert code == 0 and out["counts"] == {"created": 2}
    [warning] = out["warnings"]
    assert (warning["path"], warning["field"]) == (str(tmp_path / "a.md"), "front_matter.date")
    assert warning["problem"].startswith("'31/12/2024' is not an ISO 8601 date")
    code, out, _ = cli("sync", str(tmp_path), "-c", context)  # other ids: read, and said again
    assert code == 0 and [w["field"] for w in out["warnings"]] == ["front_matter.date"]


def test_worker_runs_until_sigterm(tabane_home: Path, user: Principal) -> None:
    env = {
        **os.environ,
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": user.name,
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "thread",  # irrelevant: the command is the worker
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabane.cli.main", "worker", "--poll", "0.2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()  # the start-up line: the loop is running
        assert "worker:" in first, first
        proc.send_signal(signal.SIGTERM)
        _, rest = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert "stopping" in rest and "worker: stopped" in rest


def test_jobs_worker_and_derive_name_their_bad_options(cli, context) -> None:
    for args, option in [
        (("jobs", "--limit", "-1"), "--limit"),
        (("jobs", "--limit", "0"), "--limit"),
        (("worker", "--poll", "0"), "--poll"),  # it would ask for work without pause
        (("worker", "--poll", "-1"), "--poll"),
        (("derive", "--context", context, "--what", "bogus"), "--what"),
        (("derive", "--context", unique("nowhere")), "--context"),
    ]:
        code, _, err = cli(*args)
        assert code == 2 and "Traceback" not in err and f"\n  {option}: " in err, (args, err)
