"""`tabane associations add|retract` and `tabane aliases add|remove|list`, in process through
Typer's runner on the session's store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabane.principal import Principal
from tabane.service import Tabane

CLAIM = {"subject": "stress", "label": "causes", "object": "insomnia", "weight": 1.0}


def edges(svc: Tabane, user: Principal, context: str) -> list[tuple[str, str, float]]:
    from sqlalchemy import select

    from tabane.storage.schema import Association, Context

    with svc.store.session(user) as session:
        cid = session.scalar(select(Context.id).where(Context.name == context))
        rows = session.execute(
            select(Association.subject, Association.object, Association.weight)
            .where(Association.context_id == cid)
            .order_by(Association.subject, Association.object)
        ).all()
    return [(r.subject, r.object, float(r.weight)) for r in rows]


def test_add_from_json_jsonl_and_stdin(cli, svc, user, context, tmp_path: Path) -> None:
    listed = tmp_path / "claims.json"
    listed.write_text(json.dumps([CLAIM, CLAIM | {"object": "fatigue"}]))
    code, out, _ = cli("associations", "add", context, str(listed))
    assert code == 0
    assert len(out["claims"]) == 2 and out["associations"] == 2
    assert out["minted_concepts"] == ["fatigue", "insomnia", "stress"]
    assert out["minted_labels"] == ["causes"]

    lines = tmp_path / "claims.jsonl"
    lines.write_text(json.dumps(CLAIM) + "\n\n" + json.dumps(CLAIM | {"weight": -0.5}) + "\n")
    code, out, _ = cli("associations", "add", context, str(lines))
    assert code == 0 and out["minted_concepts"] == [] and len(out["claims"]) == 2

    body = json.dumps({"associations": [CLAIM | {"subject": "caffeine"}]})
    code, out, _ = cli("associations", "add", context, "-", stdin=body)
    assert code == 0 and out["minted_concepts"] == ["caffeine"]
    pretty = json.dumps(CLAIM | {"subject": "noise"}, indent=2)  # one claim, as an editor saves it
    code, out, _ = cli("associations", "add", context, "-", stdin=pretty)
    assert code == 0 and out["minted_concepts"] == ["noise"]
    assert edges(svc, user, context) == [
        ("caffeine", "insomnia", 1.0),
        ("noise", "insomnia", 1.0),
        ("stress", "fatigue", 1.0),
        ("stress", "insomnia", 1.5),
    ]


def test_bad_files_name_the_problem_and_write_nothing(cli, svc, user, context, tmp_path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(CLAIM) + "\n" + json.dumps(CLAIM | {"weight": "heavy"}) + "\n")
    code, _, err = cli("associations", "add", context, str(bad))
    assert code == 2
    assert "error [invalid_input]" in err and "associations[1].weight: not a number" in err

    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(CLAIM) + "\n{oops\n")
    code, _, err = cli("associations", "add", context, str(broken))
    assert code == 2 and f"{broken}:2: not JSON" in err
    torn = json.dumps([CLAIM, CLAIM], indent=2)[:-3]  # one document over lines, cut short
    code, _, err = cli("associations", "add", context, "-", stdin=torn)
    assert code == 2 and "stdin: not JSON: " in err and "(line 13, column 3)" in err

    huge = tmp_path / "huge.json"
    huge.write_text(json.dumps([CLAIM | {"weight": 1e400}]))  # Python writes Infinity
    code, _, err = cli("associations", "add", context, str(huge))
    assert code == 2 and "associations[0].weight: not finite" in err

    code, _, err = cli("associations", "add", context, str(tmp_path / "missing.json"))
    assert code == 2 and "file: not a readable file" in err
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe")
    code, _, err = cli("associations", "add", context, str(binary))
    assert code == 2 and "file: not UTF-8 text" in err
    code, _, err = cli("associations", "add", context, "-", stdin="  \n")
    assert code == 2 and "stdin: empty" in err
    code, _, err = cli("associations", "add", "nowhere", "-", stdin=json.dumps([CLAIM]))
    assert code == 2 and "error [no_context]" in err
    assert edges(svc, user, context) == []


@pytest.mark.slow
def test_retract_dry_run_then_for_real(cli, svc, user, context) -> None:
    cli("associations", "add", context, "-", stdin=json.dumps([CLAIM, CLAIM]))
    edge = ("-s", "stress", "-l", "causes", "-o", "insomnia")
    code, out, _ = cli("associations", "retract", context, *edge, "--dry-run")
    assert (code, out) == (0, {"claims": 2, "associations": 1, "dry_run": True})
    assert edges(svc, user, context) == [("stress", "insomnia", 2.0)]
    code, out, _ = cli("associations", "retract", context, *edge)
    assert (code, out) == (0, {"claims": 2, "associations": 1, "dry_run": False})
    assert edges(svc, user, context) == [("stress", "insomnia", 0.0)]
    code, out, _ = cli("query", "-c", context, "-s", "stress")  # the edge stays, at weight 0
    assert code == 0 and [(e["weight"], e["claims"]) for e in out["edges"]] == [(0.0, 0)]
    assert out["edges"][0]["attributions"][0]["close_reason"] == "retracted"
    code, out, _ = cli("query", "-c", context, "-s", "stress", "--live-only")
    assert code == 0 and out["edges"] == [] and out["total"] == 0
    code, _, err = cli("associations", "retract", context, "-s", "", "-l", "x", "-o", "y")
    assert code == 2 and "associations[0].subject: empty" in err


@pytest.mark.slow
def test_aliases_add_list_remove(cli, svc, user, context) -> None:
    cli("associations", "add", context, "-", stdin=json.dumps([CLAIM]))
    code, out, _ = cli("aliases", "add", context, "tension", "stress")
    assert code == 0 and out["created"] is True
    assert out["alias"] == {
        "alias": "tension",
        "target": "stress",
        "kind": "concept",
        "scopes": [f"user:{user.name}"],
    }
    code, out, _ = cli("aliases", "add", context, "tension", "stress")
    assert code == 0 and out["created"] is False
    code, out, _ = cli("aliases", "add", context, "leads to", "causes", "--kind", "label")
    assert code == 0 and out["created"] is True
    code, out, _ = cli("aliases", "list", context, "--kind", "label")
    assert [a["alias"] for a in out["aliases"]] == ["leads to"]
    code, _, err = cli("aliases", "add", context, "insomnia", "stress")
    assert code == 2 and "error [alias_conflict]" in err
    code, _, err = cli("aliases", "add", context, "x", "ghost")
    assert code == 2 and "error [no_concept]" in err

    code, out, _ = cli("aliases", "remove", context, "tension")
    assert (code, out) == (0, {"alias": "tension", "kind": "concept", "removed": 1})
    code, _, err = cli("aliases", "remove", context, "tension")
    assert code == 2 and "error [not_found]" in err
    code, out, _ = cli("aliases", "list", context)
    assert [a["alias"] for a in out["aliases"]] == ["leads to"]
