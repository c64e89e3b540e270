"""Presets resolve to the caller's visible contexts (issue 34): `GET /presets` and
`POST /recall {"preset": …}` agree — a preset reads the contexts and groups it names that the
caller can see, and one that names nothing they can see is neither listed nor used, and its
refusal names no hidden context. Over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from tabane.ingest.documents import DocumentInput, block
from tabane.service import Tabane

from helpers import serve_people

QUESTION = "how do I descale the kettle?"


@pytest.fixture
def setup(
    svc: Tabane, make_user, make_context, tmp_path: Path
) -> Iterator[tuple[dict[str, httpx.Client], str, str]]:
    owner, guest = make_user(), make_user()
    mine = make_context(owner)  # only the owner sees it
    shared = make_context(owner, scopes=["public"])
    for ctx, scopes in ((mine, None), (shared, ["public"])):
        text = f"Descale the kettle with vinegar ({ctx})."
        svc.ingest(owner, ctx, DocumentInput("kettle", paragraphs=[block(text)], scopes=scopes))
    presets = tmp_path / "presets.toml"
    presets.write_text(
        f'[presets.both]\ncontexts = ["{mine}", "{shared}"]\n'
        f'[presets.private]\ncontexts = ["{mine}"]\n'
    )
    served = Tabane.build(svc.store, replace(svc.settings, presets=presets), None)
    with serve_people(served, {"owner": owner, "guest": guest}) as clients:
        yield clients, mine, shared


def test_listing_and_use_agree(setup) -> None:
    clients, mine, shared = setup
    owner, guest = clients["owner"], clients["guest"]
    listed = {p["name"]: p["contexts"] for p in owner.get("/presets").json()["presets"]}
    assert listed == {"default": [], "both": [mine, shared], "private": [mine]}
    listed = {p["name"]: p["contexts"] for p in guest.get("/presets").json()["presets"]}
    assert listed == {"default": [], "both": [shared]}  # nothing of "private" is visible
    got = guest.post("/recall", json={"question": QUESTION, "preset": "both", "trace": True})
    assert got.status_code == 200, got.text
    assert got.json()["trace"]["contexts"] == [shared]
    assert all(it["citation"]["context"] == shared for it in got.json()["items"])
    mine_too = owner.post("/recall", json={"question": QUESTION, "preset": "both", "trace": True})
    assert mine_too.json()["trace"]["contexts"] == [mine, shared]


@pytest.mark.slow
def test_a_preset_with_nothing_visible_is_refused_without_naming_it(setup) -> None:
    clients, mine, _ = setup
    got = clients["guest"].post("/recall", json={"question": QUESTION, "preset": "private"})
    assert got.status_code == 404, got.text
    err = got.json()["error"]
    assert err["code"] == "no_preset"
    assert mine not in got.text  # the hidden context is not named
    assert [i["path"] for i in err["issues"]] == ["body.preset"]
