"""`tabane recall` (the rendered bundle, --trace, --json) and its explain twin (--explain,
--explain-claim), in process through Typer's runner, on the session's store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique

KETTLE = [
    "The kettle boils water in about three minutes when it is full.",
    "Descale the heating element with vinegar once a month to remove limescale.",
    "Never switch the kettle on when it is empty: the element overheats.",
]
QUESTION = "how do I remove limescale with vinegar?"


@pytest.fixture
def stored(svc: Tabane, user: Principal, context: str) -> str:
    doc = DocumentInput(source_id="kettle", paragraphs=[block(t) for t in KETTLE], title="Kettle")
    svc.ingest(user, context, doc)
    return context


@pytest.mark.slow
def test_recall_prints_the_rendered_bundle_and_a_trace_table(person, stored: str) -> None:
    code, out, _ = person("recall", QUESTION, "-c", stored)
    assert code == 0
    assert out.startswith(f"Question: {QUESTION}\n")
    assert '"Kettle" (kettle), paragraph 1' in out and "limescale" in out
    assert "lane bm25:" not in out  # no trace table: one line of what the plan did
    assert out.rstrip().splitlines()[-1].startswith(f"— plan maximal; contexts {stored}; lanes ")
    code, out, _ = person("presets", "--json")
    assert code == 0 and [p["name"] for p in json.loads(out)["presets"]] == ["default"]

    code, out, _ = person("recall", QUESTION, "-c", stored, "--trace", "--as", "Ravi")
    assert code == 0
    assert "Asked by: Ravi" in out
    table = out.split("\n\ntrace ", 1)[1]
    assert f"plan maximal; contexts {stored}" in table
    assert "lane vector: did not run (no_embedder)" in table
    assert f"floor in {stored}: none (default)" in table
    assert "caps: pool 50, bm25_pool 200, vector_pool 50, candidates 60, max_items 20," in table
    rows = [line.split() for line in table.splitlines()[1:] if line.lstrip()[:1].isdigit()]
    assert rows[0][:4] == ["1", rows[0][1], "paragraph", "served"] and "bm25#1" in rows[0]

    code, out, _ = person("recall", QUESTION, "-c", stored, "--json")
    assert code == 0
    result = json.loads(out)
    assert result["items"][0]["citation"]["source"] == "kettle"
    assert isinstance(result["trace"]["id"], int)


@pytest.mark.slow
def test_recall_explain_and_bad_input(person, svc: Tabane, user: Principal, stored: str) -> None:
    code, out, _ = person(
        "recall", QUESTION, "-c", stored, "--explain", "kettle", "--paragraph", "1"
    )
    assert code == 0
    assert json.loads(out)["verdict"] == "served"
    code, out, _ = person("recall", QUESTION, "-c", stored, "--explain", unique("nothing"))
    assert code == 0 and json.loads(out)["verdict"] == "not_visible"
    claim = svc.remember(user, stored, {"text": "I descale with vinegar every month."})
    code, out, _ = person("recall", QUESTION, "-c", stored, "--explain-claim", str(claim))
    assert code == 0 and json.loads(out)["verdict"] in (
        "served",
        "not_found",
        "below_candidates",
        "cut_by_rerank",
        "cut_by_max_items",
        "cut_by_budget",
    )

    for args, code_, path in [
        (("recall", " ", "-c", stored), "invalid_input", "question"),
        # an issue names the option typed, not the request's field
        (("recall", QUESTION, "-c", stored, "--budget", "0"), "invalid_input", "--budget"),
        (("recall", QUESTION, "-c", stored, "--floor", "nan"), "invalid_input", "--floor"),
        (("recall", QUESTION, "-c", stored, "--explain", "kettle", "--paragraph", "-1"),
         "invalid_input", "--paragraph"),
        (("recall", QUESTION, "-c", stored, "--preset", unique("p")), "no_preset", None),
        (("recall", QUESTION, "-c", unique("c")), "no_context", "--context"),
        (("recall", QUESTION, "-c", stored, "--session", unique("s")), "no_session", None),
        (("recall", QUESTION, "-c", stored, "--paragraph", "1"), "invalid_input", "--explain"),
        (("recall", "descale \udcff kettle", "-c", stored), "invalid_input", "question"),
        (("recall", QUESTION, "-c", stored, "--explain-claim", str(2**70)), "invalid_input",
         "--explain-claim"),
        (("recall", QUESTION, "-c", stored, "--preset", ""), "invalid_input", "--preset"),
        (("recall", QUESTION, "-c", stored, "-c", unique("c"), "--explain", "kettle"),
         "invalid_input", "--explain-context"),
    ]:  # fmt: skip
        code, out, err = person(*args)
        assert code == 2 and out == "", args
        assert err.startswith(f"error [{code_}]"), (args, err)
        if path:
            assert f"  {path}: " in err, (args, err)


def test_import_tabane_offers_recall(svc: Tabane, user: Principal, stored: str) -> None:
    import tabane
    from tabane.recall.plan import RecallRequest

    assert tabane.RecallRequest is RecallRequest and isinstance(svc, tabane.Tabane)
    result = svc.recall(user, tabane.RecallRequest(QUESTION, contexts=(stored,)))
    assert result.recall_id is not None and "limescale" in result.rendered
    with pytest.raises(AttributeError):
        _ = tabane.nothing_here  # type: ignore[attr-defined]


@pytest.mark.slow
def test_stored_control_characters_cannot_drive_the_terminal(
    person, svc: Tabane, user: Principal, context: str
) -> None:
    text = "Descale with vinegar \x1b]0;owned\x07 and \x1b[2J rinse.\tTwice."
    svc.ingest(user, context, DocumentInput(source_id="esc", paragraphs=[block(text)]))
    code, out, _ = person("recall", "descale vinegar rinse", "-c", context, "--trace")
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert "vinegar \\x1b]0;owned\\x07 and \\x1b[2J rinse.\tTwice." in out  # shown, not run
    code, raw, _ = person("recall", "descale vinegar rinse", "-c", context, "--json")
    assert "\\u001b" in raw  # JSON keeps the text exactly, escaped by the format itself


@pytest.mark.slow
def test_verify_reads_the_answer_from_stdin_and_prints_each_verdict(
    cli, person, stored: str, tmp_path: Path
) -> None:
    code, out, _ = cli("recall", QUESTION, "-c", stored)
    assert code == 0
    recall_id = out["trace"]["id"]
    answer = '"with vinegar once a month" ("Kettle" (kettle), paragraph 1); (nosuch), paragraph 0'
    code, out, _ = cli("verify", str(recall_id), "-", stdin=answer)
    assert code == 0, out
    assert [c["verdict"] for c in out["citations"]] == ["surfaced", "unknown"]
    assert [q["verdict"] for q in out["quotes"]] == ["quote"]
    file = tmp_path / "answer.md"
    file.write_text(answer, encoding="utf-8")
    code, shown, _ = person("verify", str(recall_id), str(file))
    assert code == 0 and f"recall {recall_id}" in shown
    assert "surfaced" in shown and "unknown" in shown and "quote" in shown
    code, _, err = cli("verify", str(recall_id), "-", stdin="   ")
    assert code != 0 and "invalid_input" in err
