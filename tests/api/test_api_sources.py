"""Sources over HTTP: ingest (text and paragraphs), list, lookup, cite, retract."""

from __future__ import annotations

import json

MARKDOWN = "# Guide\n\nIntro text.\n\n## Install\n\nRun the installer.\n\nThen restart.\n"

SOURCE_KEYS = {
    "source_id",
    "title",
    "format",
    "date",
    "tags",
    "area",
    "state",
    "stored_at",
    "content_hash",
    "byte_size",
    "paragraphs",
    "scopes",
    "retracted_at",
}


def error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    err = response.json()["error"]
    assert err["code"] == code and err["written"] == "nothing"
    return err


def paths(err: dict) -> list[str]:
    return [i["path"] for i in err["issues"]]


def stats(client, context: str) -> dict:
    """The source counts of the context's stats (its graph counts are tested elsewhere)."""
    got = client.get(f"/contexts/{context}").json()["stats"]
    return {k: got[k] for k in ("sources", "paragraphs", "sections")}


def ingest(client, context: str, **body):
    return client.post(f"/contexts/{context}/sources", json=body)


def test_markdown_text_lookup_and_citation(client, context) -> None:
    response = ingest(
        client, context, source_id="docs/guide.md", text=MARKDOWN, tags=["howto"], date="2024-05-01"
    )
    assert response.status_code == 201
    assert response.json() == {
        "source_id": "docs/guide.md",
        "outcome": "created",
        "paragraphs": 3,
        "sections": 2,
        "reindexed": False,
        "updated": [],
        "warnings": [],
        "claims_closed": 0,
        "kept": 0,
    }

    edited = MARKDOWN.replace("Then restart.", "Then reboot.")
    again = ingest(client, context, source_id="tmp/guide.md", text=MARKDOWN)
    again = ingest(client, context, source_id="tmp/guide.md", text=edited).json()
    assert (again["outcome"], again["paragraphs"], again["kept"]) == ("replaced", 3, 2)
    client.post(f"/contexts/{context}/sources/retract", json={"source_id": "tmp/guide.md"})

    found = client.post(f"/contexts/{context}/sources/lookup", json={"source_id": "docs/guide.md"})
    body = found.json()
    assert set(body) == {"source", "paragraphs"}
    source = body["source"]
    assert set(source) == SOURCE_KEYS
    assert (source["title"], source["format"], source["tags"], source["paragraphs"]) == (
        "Guide",
        "markdown",
        ["howto"],
        3,
    )
    assert source["date"].startswith("2024-05-01T00:00:00")
    assert [p["index"] for p in body["paragraphs"]] == [0, 1, 2]
    assert body["paragraphs"][1] == {
        "index": 1,
        "text": "Run the installer.",
        "section": ["Guide", "Install"],
        "locator": {"kind": "line_range", "start": 7, "end": 7, "value": None},
        "questions": [],
    }
    window = client.post(
        f"/contexts/{context}/sources/lookup",
        json={"source_id": "docs/guide.md", "offset": 1, "limit": 1},
    ).json()
    assert [p["index"] for p in window["paragraphs"]] == [1]

    cited = client.post(
        f"/contexts/{context}/citations", json={"source_id": "docs/guide.md", "paragraph": 2}
    ).json()
    assert cited == {
        "source_id": "docs/guide.md",
        "paragraph": 2,
        "text": "Then restart.",
        "title": "Guide",
        "section": ["Guide", "Install"],
        "locator": {"kind": "line_range", "start": 9, "end": 9, "value": None},
    }
    by_query = client.get(
        f"/contexts/{context}/citations", params={"source_id": "docs/guide.md", "paragraph": 2}
    )
    assert by_query.json() == cited


def test_paragraphs_with_section_locator_and_questions(client, context) -> None:
    response = ingest(
        client,
        context,
        source_id="slides.pdf",
        title="Quarterly review",
        paragraphs=[
            {
                "text": "Revenue grew.",
                "section": ["Results"],
                "locator": {"kind": "page", "start": 3},
                "questions": ["How did revenue change?"],
            },
            {
                "text": "  Costs fell.  ",
                "section": ["Results", "Costs"],
                "locator": {"kind": "line_range", "start": 10, "end": 12},
            },
            {"text": "No section here."},
        ],
    )
    assert response.status_code == 201
    assert response.json() == {
        "source_id": "slides.pdf",
        "outcome": "created",
        "paragraphs": 3,
        "sections": 2,
        "reindexed": False,
        "updated": [],
        "warnings": [],
        "claims_closed": 0,
        "kept": 0,
    }
    lookup = f"/contexts/{context}/sources/lookup"
    body = client.post(lookup, json={"source_id": "slides.pdf"}).json()
    assert body["source"]["format"] == "paragraphs"
    first, second, third = body["paragraphs"]
    assert first["questions"] == ["How did revenue change?"]
    assert first["locator"] == {"kind": "page", "start": 3, "end": None, "value": None}
    assert (second["text"], second["section"]) == ("Costs fell.", ["Results", "Costs"])
    assert (third["section"], third["locator"], third["questions"]) == ([], None, [])

    cited = client.get(
        f"/contexts/{context}/citations", params={"source_id": "slides.pdf", "paragraph": 1}
    ).json()
    assert (cited["title"], cited["section"], cited["locator"]) == (
        "Quarterly review",
        ["Results", "Costs"],
        {"kind": "line_range", "start": 10, "end": 12, "value": None},
    )


def test_reingest_is_idempotent_and_replaces_changes(client, context) -> None:
    first = ingest(client, context, source_id="n.md", text=MARKDOWN).json()
    again = ingest(client, context, source_id="n.md", text=MARKDOWN)
    assert again.status_code == 201
    assert again.json() == {**first, "outcome": "unchanged", "sections": 0}
    changed = ingest(client, context, source_id="n.md", text=MARKDOWN + "\nA new ending.\n").json()
    assert (changed["outcome"], changed["paragraphs"]) == ("replaced", 4)
    assert stats(client, context) == {"sources": 1, "paragraphs": 4, "sections": 2}


def test_retract_dry_run_then_for_real(client, context) -> None:
    ingest(client, context, source_id="r.md", text=MARKDOWN)
    before = stats(client, context)
    url = f"/contexts/{context}/sources/retract"
    dry = client.post(url, json={"source_id": "r.md", "dry_run": True})
    assert dry.json() == {
        "source_id": "r.md",
        "dry_run": True,
        "sources": 1,
        "paragraphs": 3,
        "sections": 2,
        "claims": 0,
        "associations": 0,
    }
    assert stats(client, context) == before
    assert client.post(f"/contexts/{context}/sources/lookup", json={"source_id": "r.md"}).is_success

    done = client.post(url, json={"source_id": "r.md"}).json()
    assert done == {**dry.json(), "dry_run": False}
    assert stats(client, context) == {"sources": 0, "paragraphs": 0, "sections": 0}
    err = error(
        client.post(f"/contexts/{context}/sources/lookup", json={"source_id": "r.md"}),
        404,
        "no_source",
    )
    assert paths(err) == ["body.source_id"]
    error(client.post(url, json={"source_id": "r.md"}), 404, "no_source")
    tomb = client.get(f"/contexts/{context}/sources", params={"include_retracted": True}).json()
    assert [s["source_id"] for s in tomb["sources"]] == ["r.md"]
    assert tomb["sources"][0]["retracted_at"] is not None
    assert client.get(f"/contexts/{context}/sources").json() == {"sources": [], "next_after": None}


def test_list_pages_by_keyset(client, context) -> None:
    for sid in ("c.txt", "a.txt", "b.txt"):
        ingest(client, context, source_id=sid, text=f"text of {sid}")
    url = f"/contexts/{context}/sources"
    page = client.get(url, params={"limit": 2}).json()
    assert set(page) == {"sources", "next_after"}
    assert set(page["sources"][0]) == SOURCE_KEYS
    assert [s["source_id"] for s in page["sources"]] == ["a.txt", "b.txt"]
    assert page["next_after"] == "b.txt"
    rest = client.get(url, params={"limit": 2, "after": "b.txt"}).json()
    assert ([s["source_id"] for s in rest["sources"]], rest["next_after"]) == (["c.txt"], None)
    err = error(client.get(url, params={"limit": 0}), 422, "invalid_input")
    assert paths(err) == ["query.limit"]


def test_paragraph_out_of_range_and_unknown_source(client, context) -> None:
    ingest(client, context, source_id="p.md", text=MARKDOWN)
    url = f"/contexts/{context}/citations"
    err = error(
        client.post(url, json={"source_id": "p.md", "paragraph": 3}), 404, "paragraph_out_of_range"
    )
    assert paths(err) == ["body.paragraph"]
    error(
        client.get(url, params={"source_id": "p.md", "paragraph": 99}),
        404,
        "paragraph_out_of_range",
    )
    error(client.post(url, json={"source_id": "nope.md", "paragraph": 0}), 404, "no_source")
    # an index no paragraph can have is bad input, at its field, on either route
    for index in (-1, 2**70):
        err = error(client.post(url, json={"source_id": "p.md", "paragraph": index}), 422,
                    "invalid_input")  # fmt: skip
        assert paths(err) == ["body.paragraph"]
        err = error(client.get(url, params={"source_id": "p.md", "paragraph": index}), 422,
                    "invalid_input")  # fmt: skip
        assert paths(err) == ["query.paragraph"]
    listing = f"/contexts/{context}/sources"
    err = error(client.get(listing, params={"after": "a\x00b"}), 422, "invalid_input")
    assert paths(err) == ["query.after"]
    nowhere = "/contexts/no-such-ctx/citations"
    error(client.post(nowhere, json={"source_id": "p.md", "paragraph": 0}), 404, "no_context")
    error(ingest(client, "no-such-ctx", source_id="x", text="x"), 404, "no_context")


def with_locator(locator: dict) -> dict:
    return {"source_id": "x", "paragraphs": [{"text": "a", "locator": locator}]}


def test_ingest_input_errors_write_nothing(client, context) -> None:
    cases = [
        (
            {"source_id": "x", "text": "a", "paragraphs": [{"text": "a"}]},
            "invalid_input",
            "body.text",
        ),
        ({"source_id": "x"}, "invalid_input", "body.text"),
        (
            {"source_id": "x", "paragraphs": [{"text": "  "}]},
            "invalid_input",
            "body.paragraphs[0].text",
        ),
        (
            with_locator({"kind": "page", "start": 0}),
            "invalid_input",
            "body.paragraphs[0].locator.start",
        ),
        (
            with_locator({"kind": "scroll", "start": 1}),
            "invalid_input",
            "body.paragraphs[0].locator.kind",
        ),
        (with_locator({"start": 5, "end": 4}), "invalid_input", "body.paragraphs[0].locator.end"),
        ({"source_id": "", "text": "a"}, "invalid_input", "body.source_id"),
        ({"source_id": "x", "text": ""}, "empty_document", "body.text"),
        ({"source_id": "x", "text": " \n\n "}, "empty_document", "body.text"),
        ({"source_id": "x", "paragraphs": []}, "empty_document", "body.paragraphs"),
        ({"source_id": "x", "text": "a", "state": "lost"}, "invalid_input", "body.state"),
        ({"source_id": "x", "text": "a", "date": "yesterday"}, "invalid_input", "body.date"),
        ({"source_id": "x", "text": "a", "format": "docx"}, "unreadable_document", "body.format"),
        (
            {"source_id": "x", "text": "%PDF-1.4 cut", "format": "pdf"},
            "unreadable_document",
            "body.text",
        ),
        ({"source_id": "x", "text": "a", "owner": "root"}, "invalid_input", "body.owner"),
        # the bytes rule of a file ingest (text/decoding.py), not a field check of its own
        ({"source_id": "x", "text": "words\x00more"}, "unreadable_document", "body.text"),
    ]
    for body, code, path in cases:
        err = error(client.post(f"/contexts/{context}/sources", json=body), 422, code)
        assert paths(err) == [path], body
    lone_surrogate = '{"source_id": "x", "text": "words\\ud800more"}'  # JSON allows the escape
    err = error(
        client.post(
            f"/contexts/{context}/sources",
            content=lone_surrogate,
            headers={"content-type": "application/json"},
        ),
        422,
        "unreadable_document",
    )
    assert paths(err) == ["body.text"]
    assert stats(client, context) == {"sources": 0, "paragraphs": 0, "sections": 0}


def test_reader_cannot_ingest_or_retract(svc, make_user, client_for, new_name) -> None:
    owner = make_user(extra_write=("team:z",))
    reader = make_user(extra_read=("team:z",))
    name = new_name("ctx")
    as_owner, as_reader = client_for(owner), client_for(reader)
    as_owner.post("/contexts", json={"name": name, "scopes": ["team:z"]})
    as_owner.post(f"/contexts/{name}/sources", json={"source_id": "kept.md", "text": MARKDOWN})
    before = svc.get_context(owner, name).stats

    error(
        as_reader.post(f"/contexts/{name}/sources", json={"source_id": "new.md", "text": "x"}),
        403,
        "forbidden",
    )
    error(
        as_reader.post(f"/contexts/{name}/sources", json={"source_id": "kept.md", "text": "x"}),
        403,
        "forbidden",
    )
    error(
        as_reader.post(f"/contexts/{name}/sources/retract", json={"source_id": "kept.md"}),
        403,
        "forbidden",
    )
    assert svc.get_context(owner, name).stats == before
    # reading is allowed
    cite = f"/contexts/{name}/citations"
    cited = as_reader.post(cite, json={"source_id": "kept.md", "paragraph": 0})
    assert cited.json()["text"] == "Intro text."


def test_a_date_the_text_declares_but_is_no_date_comes_back_as_a_warning(client, context) -> None:
    text = "---\ndate: someday\n---\n# Kettle\n\nDescale it monthly.\n"
    response = ingest(client, context, source_id="k.md", text=text)
    assert response.status_code == 201
    [warning] = response.json()["warnings"]
    assert warning["path"] == "front_matter.date" and warning["problem"].startswith("'someday'")
    source = client.post(f"/contexts/{context}/sources/lookup", json={"source_id": "k.md"})
    assert source.json()["source"]["date"] is None
    again = ingest(client, context, source_id="k.md", text=text, date="2024-05-01")
    assert (again.json()["warnings"], again.json()["updated"]) == ([], ["date"])


OPEN = {"kind": "sheet", "value": "Q3!A1:C4"}  # Taguru's open locator (decision 0023)


def test_open_locators_are_stored_served_and_archived_unchanged(client, context) -> None:
    paragraphs = [
        {"text": "Revenue by region.", "locator": OPEN},
        {"text": "At minute twelve.", "locator": {"kind": "timestamp", "value": "00:12:30"}},
        {"text": "On page two.", "locator": {"kind": "page", "start": 2}},
    ]
    assert ingest(client, context, source_id="q3.xlsx", paragraphs=paragraphs).status_code == 201

    def served(where: str) -> list[dict]:
        body = client.post(f"{where}/sources/lookup", json={"source_id": "q3.xlsx"}).json()
        return [p["locator"] for p in body["paragraphs"]]

    unset = {"start": None, "end": None, "value": None}
    want = [{**unset, **OPEN}, {**unset, "kind": "timestamp", "value": "00:12:30"}]
    want.append({**unset, "kind": "page", "start": 2})
    assert served(f"/contexts/{context}") == want
    cited = client.get(
        f"/contexts/{context}/citations", params={"source_id": "q3.xlsx", "paragraph": 0}
    ).json()
    assert cited["locator"] == want[0]

    archive = client.get(f"/contexts/{context}/export").text
    lines = [json.loads(line) for line in archive.splitlines()]
    stored = [
        p["locator"] for line in lines if "source" in line for p in line["source"]["paragraphs"]
    ]
    assert stored == [
        OPEN,
        {"kind": "timestamp", "value": "00:12:30"},
        {"kind": "page", "start": 2},
    ]
    copy = f"{context}-copy"
    imported = client.post("/contexts/import", params={"context": copy}, content=archive.encode())
    assert imported.status_code == 201, imported.text
    assert served(f"/contexts/{copy}") == want


def test_a_bad_open_locator_names_its_field(client, context) -> None:
    cases = [
        ({"kind": "sheet", "value": "A1", "start": 1}, "body.paragraphs[0].locator.value"),
        ({"kind": "timestamp"}, "body.paragraphs[0].locator.value"),
        ({"kind": "x" * 65, "value": "A1"}, "body.paragraphs[0].locator.kind"),
        ({"kind": "sheet", "value": ""}, "body.paragraphs[0].locator.value"),
    ]
    for locator, path in cases:
        err = error(
            client.post(f"/contexts/{context}/sources", json=with_locator(locator)),
            422,
            "invalid_input",
        )
        assert paths(err) == [path], locator
