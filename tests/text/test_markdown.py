"""Markdown splitting: fences, headings, front matter, sections and line locators."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabane.text.documents import Block, Locator
from tabane.text.markdown import parse_markdown


def texts(blocks: tuple[Block, ...]) -> list[str]:
    return [b.text for b in blocks]


def test_paragraphs_split_at_blank_lines_and_keep_line_breaks() -> None:
    doc = parse_markdown("first line\nsecond line\n\n\nthird\n")
    assert texts(doc.blocks) == ["first line\nsecond line", "third"]
    assert doc.format == "markdown"
    assert doc.title is None


def test_backtick_fence_keeps_hash_lines_and_blank_lines_in_one_block() -> None:
    source = "Intro.\n\n```python\n# not a heading\nx = 1\n\n\ny = 2\n```\n\nAfter.\n"
    doc = parse_markdown(source)
    assert texts(doc.blocks) == [
        "Intro.",
        "```python\n# not a heading\nx = 1\n\n\ny = 2\n```",
        "After.",
    ]
    assert all(b.section == () for b in doc.blocks)  # the '#' line did not open a section


def test_tilde_fence_and_longer_fences_close_only_on_a_matching_fence() -> None:
    source = "~~~~\n```\n# inside\n~~~\nstill inside\n~~~~\n\n````md\n```\n\n```\n````\nend\n"
    doc = parse_markdown(source)
    assert texts(doc.blocks) == [
        "~~~~\n```\n# inside\n~~~\nstill inside\n~~~~",
        "````md\n```\n\n```\n````",
        "end",
    ]


def test_unterminated_fence_runs_to_the_end() -> None:
    doc = parse_markdown("# Title\n\nText.\n\n```\n# comment\n\n## also not a heading\nlast\n\n")
    assert texts(doc.blocks) == ["Text.", "```\n# comment\n\n## also not a heading\nlast"]
    assert doc.blocks[1].section == ("Title",)
    assert doc.blocks[1].locator == Locator("line_range", 5, 9)


def test_fence_interrupts_a_paragraph_and_text_after_the_close_starts_a_block() -> None:
    doc = parse_markdown("Run this:\n```\nmake\n```\nThen check.\n")
    assert texts(doc.blocks) == ["Run this:", "```\nmake\n```", "Then check."]


def test_inline_triple_backticks_are_not_a_fence() -> None:
    doc = parse_markdown("```code``` in text\n\n# Heading\n\nbody\n")
    assert texts(doc.blocks) == ["```code``` in text", "body"]
    assert doc.blocks[1].section == ("Heading",)


def test_atx_headings_build_section_paths_with_level_pops() -> None:
    source = "\n".join(
        [
            "# A",
            "a",
            "## B",
            "b",
            "### C",
            "c",
            "## D ##",
            "d",
            "#### E",
            "e",
            "# F",
            "f",
        ]
    )
    doc = parse_markdown(source)
    assert [(b.text, b.section) for b in doc.blocks] == [
        ("a", ("A",)),
        ("b", ("A", "B")),
        ("c", ("A", "B", "C")),
        ("d", ("A", "D")),
        ("e", ("A", "D", "E")),
        ("f", ("F",)),
    ]
    assert doc.title == "A"


def test_atx_heading_details() -> None:
    source = (
        "#hashtag is text\n\n## C# tips ###\n\none\n\n### The `ingest` [command](x.md)\n\ntwo\n"
    )
    doc = parse_markdown(source)
    assert [(b.text, b.section) for b in doc.blocks] == [
        ("#hashtag is text", ()),
        ("one", ("C# tips",)),
        ("two", ("C# tips", "The ingest command")),
    ]


def test_setext_headings() -> None:
    source = "Title\n=====\n\nintro\n\nPart one\n---\n\nbody\n"
    doc = parse_markdown(source)
    assert doc.title == "Title"
    assert [(b.text, b.section) for b in doc.blocks] == [
        ("intro", ("Title",)),
        ("body", ("Title", "Part one")),
    ]


def test_dashes_after_a_blank_line_are_a_thematic_break_not_a_heading() -> None:
    source = "para one\n\n---\n\npara two\n\n***\n- - -\n\nthree\n"
    doc = parse_markdown(source)
    assert [(b.text, b.section) for b in doc.blocks] == [
        ("para one", ()),
        ("para two", ()),
        ("three", ()),
    ]


def test_dashes_under_a_list_item_are_a_break_and_equals_is_text() -> None:
    doc = parse_markdown("- item\n---\n\n- other\n===\n")
    assert [(b.text, b.section) for b in doc.blocks] == [("- item", ()), ("- other\n===", ())]


def test_multi_line_paragraph_becomes_one_setext_heading() -> None:
    doc = parse_markdown("Long\nheading\n---\ntext\n")
    assert [(b.text, b.section) for b in doc.blocks] == [("text", ("Long heading",))]


def test_front_matter_is_parsed_and_removed() -> None:
    source = (
        "---\n"
        'title: "Kettle guide"\n'
        "date: 2024-05-01\n"
        "tags: [tea, water]\n"
        "draft: true\n"
        "---\n"
        "# Heading one\n"
        "\n"
        "Body text.\n"
    )
    doc = parse_markdown(source)
    assert doc.title == "Kettle guide"  # front matter beats the first H1
    assert doc.date == "2024-05-01"
    assert doc.tags == ("tea", "water")
    assert [(b.text, b.section) for b in doc.blocks] == [("Body text.", ("Heading one",))]
    assert doc.blocks[0].locator == Locator("line_range", 9, 9)  # lines count from the file's top


def test_front_matter_block_list_tags_comma_tags_and_datetime() -> None:
    listed = parse_markdown("---\ntags:\n  - one\n  - 'two'\ndate: 2024-05-01T10:30:00Z\n...\nx\n")
    assert listed.tags == ("one", "two")
    assert listed.date == "2024-05-01T10:30:00+00:00"
    assert texts(listed.blocks) == ["x"]
    comma = parse_markdown("---\ntags: a, b ,a\ndate: sometime soon\ntitle: T # comment\n---\n")
    assert comma.tags == ("a", "b")
    assert comma.date is None  # not a date: dropped, never passed on as garbage
    assert comma.title == "T"
    assert comma.blocks == ()


def test_unterminated_front_matter_is_not_front_matter() -> None:
    doc = parse_markdown("---\ntitle: nope\n\nbody\n")
    assert doc.title is None
    assert texts(doc.blocks) == ["title: nope", "body"]


def test_title_is_the_first_h1_only() -> None:
    assert parse_markdown("## Sub\n\n# Main\n\n# Second\n").title == "Main"
    assert parse_markdown("## Only a sub heading\n\ntext\n").title is None


def test_line_range_locators_with_crlf() -> None:
    doc = parse_markdown("# T\r\n\r\none\r\ntwo\r\n\r\n\r\nthree\r\n")
    assert [(b.text, b.locator) for b in doc.blocks] == [
        ("one\ntwo", Locator("line_range", 3, 4)),
        ("three", Locator("line_range", 7, 7)),
    ]


def test_japanese_markdown() -> None:
    source = (
        "# 記憶のしくみ\n\n"
        "文脈とは、意味のまとまりのひとつです。\n同じ文脈の中では、ひとつの綴りはひとつのものを指します。\n\n"
        "## スコープ\n\n"
        "保存される行にはすべてスコープの集合が付きます。\n"
    )
    doc = parse_markdown(source)
    assert doc.title == "記憶のしくみ"
    assert [(b.text, b.section) for b in doc.blocks] == [
        (
            "文脈とは、意味のまとまりのひとつです。\n同じ文脈の中では、ひとつの綴りはひとつのものを指します。",
            ("記憶のしくみ",),
        ),
        ("保存される行にはすべてスコープの集合が付きます。", ("記憶のしくみ", "スコープ")),
    ]


def test_empty_and_whitespace_only() -> None:
    assert parse_markdown("").blocks == ()
    assert parse_markdown(" \n\t\n  \n").blocks == ()
    assert parse_markdown("# Only a heading\n").blocks == ()


# --- property: random documents of paragraphs, headings and fences -----------------------------

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789日本語の文脈", min_size=1, max_size=8)
_LINE = st.lists(_WORD, min_size=1, max_size=6).map(" ".join)
_PARAGRAPH = st.lists(_LINE, min_size=1, max_size=3).map(lambda lines: ("p", "\n".join(lines)))
_HEADING = st.tuples(st.integers(1, 6), _LINE).map(lambda h: ("h", "#" * h[0] + " " + h[1]))
_CODE_LINE = st.one_of(
    _LINE,
    st.just(""),
    st.sampled_from(["# comment", "## not a heading", "---", "===", "***", "  indented", "- item"]),
    _LINE.map(lambda line: "#" + line),
)


@st.composite
def _fence(draw: st.DrawFn, *, closed: bool = True) -> tuple[str, str]:
    char = draw(st.sampled_from("`~"))
    marker = char * draw(st.integers(3, 5))
    info = draw(st.sampled_from(["", "python", "sh", "text {.x}"]))
    body = draw(st.lists(_CODE_LINE, max_size=6))
    lines = [marker + info, *body] + ([marker] if closed else [])
    return ("f", "\n".join(lines))


_ELEMENT = st.one_of(_PARAGRAPH, _HEADING, _fence())


@st.composite
def _document(draw: st.DrawFn) -> tuple[str, list[tuple[str, str]]]:
    elements = draw(st.lists(_ELEMENT, max_size=10))
    if draw(st.booleans()):
        elements.append(draw(_fence(closed=False)))
    separators = draw(st.lists(st.sampled_from(["\n", "\n\n", "\n\n\n"]), min_size=len(elements)))
    source = "".join(text + sep for (_, text), sep in zip(elements, separators, strict=False))
    return source, elements


@pytest.mark.slow
@settings(max_examples=300, deadline=None, derandomize=True)
@given(_document())
def test_property_blocks_are_stripped_and_fences_stay_whole(
    document: tuple[str, list[tuple[str, str]]],
) -> None:
    source, elements = document
    doc = parse_markdown(source)
    lines = source.split("\n")
    for block in doc.blocks:
        assert block.text
        assert block.text == block.text.strip()
        # the locator points at exactly the source lines the block came from
        assert block.locator is not None and block.locator.end is not None
        span = lines[block.locator.start - 1 : block.locator.end]
        assert "\n".join(line.rstrip() for line in span).strip() == block.text
    fences = Counter(text.strip() for kind, text in elements if kind == "f")
    found = Counter(b.text for b in doc.blocks if b.text in fences)
    assert found == fences  # each fence is exactly one block, whole and contiguous
