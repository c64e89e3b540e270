"""The sample corpus that ships with tabane reads cleanly, in every format it represents."""

from __future__ import annotations

import re

from tabane.samples import sample_files
from tabane.text.documents import Locator, ParsedDocument, read_document


def parsed() -> dict[str, ParsedDocument]:
    return {name: read_document(data, name=name) for name, data in sample_files()}


def test_sample_files_are_sorted_small_documents() -> None:
    files = sample_files()
    names = [name for name, _ in files]
    assert names == sorted(names)
    assert names == [
        "contexts-and-scopes.md",
        "faq.txt",
        "getting-started.md",
        "ingest.html",
        "kioku.ja.md",
    ]
    for name, data in files:
        assert 1024 <= len(data) <= 4096, name
        data.decode("utf-8")


def test_every_sample_parses_into_blocks_of_its_format() -> None:
    docs = parsed()
    assert {name: doc.format for name, doc in docs.items()} == {
        "contexts-and-scopes.md": "markdown",
        "faq.txt": "text",
        "getting-started.md": "markdown",
        "ingest.html": "html",
        "kioku.ja.md": "markdown",
    }
    for name, doc in docs.items():
        assert len(doc.blocks) >= 5, name


def test_markdown_sample_with_front_matter_and_a_fence() -> None:
    doc = parsed()["getting-started.md"]
    assert doc.title == "Getting started with tabane"
    assert doc.date == "2025-01-15"
    assert doc.tags == ("guide", "ingest", "recall")
    assert not any(b.text.startswith(("---", "title:")) for b in doc.blocks)
    fence = next(b for b in doc.blocks if b.text.startswith("```"))
    assert fence.text.endswith("```")
    assert "\n# load the bundled sample documents" in fence.text
    assert "\n\n" in fence.text  # the blank line stayed inside the one block
    assert fence.section == ("Getting started", "Start a store", "Load the samples")
    after = doc.blocks[doc.blocks.index(fence) + 1]
    assert after.section == fence.section  # the '#' line in the fence opened no section
    assert fence.locator is not None and fence.locator.kind == "line_range"


def test_setext_sample_sections() -> None:
    doc = parsed()["contexts-and-scopes.md"]
    assert doc.title == "Contexts, groups and scopes"
    sections = {b.section for b in doc.blocks}
    assert ("Contexts, groups and scopes", "Contexts", "Choosing contexts") in sections
    assert ("Contexts, groups and scopes", "Scopes") in sections
    table = next(b for b in doc.blocks if b.text.startswith("~~~"))
    assert table.text.count("\n") == 6  # the blank line before the closing fence stayed inside


def test_html_sample_drops_site_chrome() -> None:
    doc = parsed()["ingest.html"]
    assert doc.title == "How ingest works — tabane documentation"
    assert doc.date == "2025-02-03"
    text = "\n".join(b.text for b in doc.blocks)
    for chrome in ("Community", "On this site", "Copyright 2025", "Privacy", "analytics"):
        assert chrome not in text
    assert doc.blocks[0].section == ("How ingest works",)
    code = next(b for b in doc.blocks if b.text.startswith("# ingest a folder"))
    assert code.section == ("How ingest works", "When a document changes")
    assert "\n\n# a file that disappeared" in code.text


def test_japanese_sample() -> None:
    doc = parsed()["kioku.ja.md"]
    assert doc.title == "記憶のしくみ"
    assert doc.tags == ("概要", "日本語")
    assert ("記憶のしくみ", "文書と段落", "見出しと引用") in {b.section for b in doc.blocks}
    japanese = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
    assert all(japanese.search(b.text) for b in doc.blocks)
    assert doc.blocks[0].locator == Locator("line_range", 8, 9)


def test_plain_text_sample() -> None:
    doc = parsed()["faq.txt"]
    assert doc.title is None
    assert all(b.section == () for b in doc.blocks)
    assert doc.blocks[1].text.startswith("Does tabane need a database server?\nNo.")
