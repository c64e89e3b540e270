"""man pages: a small roff(7)/man(7) converter to sectioned paragraphs.

`.SH`/`.SS` give the section path, `.PP .LP .P .sp .br .HP`, blank lines, `.TP` and `.IP` start a
new paragraph. Filled text is reflowed (roff breaks its source lines anywhere: a break is a space,
none between CJK characters); a `.TP` tag and its body are one block, the tag on a line of its own
(as is a term above its `.RS` body);
the items of a list (`.IP` bullets, tag-only `.TP` entries, as in "ALL bug reports should
include:") are one block, with the paragraph ending in a colon that leads into them.
`.nf`/`.fi` keep their lines and blank lines in one block, `.TS`…`.TE` tables become one row per
line. Conditionals are evaluated the way nroff
would (`n` is true, `t` false, string comparisons compared), so translated pages that wrap their
option names in `.if !'po4a'hide' .BR …` keep them; macro definitions (`.de`) and ignored blocks
(`.ig`) are skipped. Other requests print nothing. Locators are line ranges of the roff source.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tabane.text.blocks import Block, Locator, ParsedDocument
from tabane.text.decoding import split_lines
from tabane.text.mdoc import MACROS, render_mdoc
from tabane.text.plain import NumberedLine
from tabane.text.reflow import fill
from tabane.text.roff import STRINGS, arguments, render

_BREAKS = frozenset({"PP", "LP", "P", "sp", "br", "HP", "Sp", "Pp", "YS"})
_FONT_SPACED = frozenset({"B", "I", "SM", "SB"})
_FONT_ALTERNATING = frozenset({"BR", "BI", "IR", "RB", "RI", "IB"})
_NOFILL_ON = frozenset({"nf", "EX", "Vb"})
_NOFILL_OFF = frozenset({"fi", "EE", "Ve"})
_SKIP_TO_DOTS = frozenset({"de", "de1", "am", "am1", "ig"})
_REQUEST = re.compile(r"([^\s\\]+)[ \t]*(.*)$")
# The end of a macro definition: `..` (spaces may follow the control character: `.  .`, as
# Asciidoctor indents an `.am` inside a conditional), or `.\}..` closing a conditional too.
_END_OF_MACRO = re.compile(r"^[.'][ \t]*(?:\\\})?\.[ \t]*$")
_TBL_TAB = re.compile(r"\btab\s*\((.)\)")
_BULLETS = ("• ", "· ", "- ", "* ")
_LEAD_IN = (":", "：")


def parse_man(text: str) -> ParsedDocument:
    converter = _Converter()
    converter.run(_logical_lines(split_lines(text)))
    return ParsedDocument(format="man", title=converter.title, blocks=tuple(converter.blocks))


def _logical_lines(lines: list[str]) -> Iterator[NumberedLine]:
    """Source lines with escaped newlines (an odd run of trailing backslashes) joined."""
    pending: NumberedLine | None = None
    for number, line in enumerate(lines, start=1):
        if pending is not None:
            number, line = pending[0], pending[1] + line
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1 and '\\"' not in line:  # a comment ends its line, backslash and all
            pending = (number, line[:-1])
            continue
        pending = None
        yield number, line
    if pending is not None:
        yield pending


class _Converter:
    def __init__(self) -> None:
        self.title: str | None = None
        self.blocks: list[Block] = []
        self._section: tuple[str, ...] = ()
        self._current: list[NumberedLine] = []
        self._hard: list[bool] = []  # per line of _current: the output line breaks after it
        self._item: str | None = None  # "bullet" or "tag" while the block is a list item
        self._tag = False  # the next text is a .TP tag
        self._listing = False  # the last block is a list that the next item joins
        self._strings = dict(STRINGS)
        self._nofill = False
        self._heading: str | None = None  # "SH"/"SS" waiting for its text on the next line
        self._prefix = ""  # an .IP tag printed before the next text
        self._join = False  # the last text ended with \c
        self._ie: list[bool] = []  # results of .ie conditions waiting for their .el
        self._table: str | None = None  # "options", "format" or "data" inside .TS … .TE
        self._tab = "\t"
        self._name = ""  # mdoc: the first .Nm argument, which a bare .Nm repeats

    def run(self, lines: Iterator[NumberedLine]) -> None:
        for number, line in lines:
            self._line(number, line, lines)
        self._flush()

    def _line(self, number: int, line: str, lines: Iterator[NumberedLine]) -> None:
        if self._table is not None and self._table_line(number, line):
            return
        if line[:1] in (".", "'"):
            self._request(number, line[1:].lstrip(" \t"), lines)
        elif not line.strip() and not self._nofill:
            self._flush()
        else:
            self._emit(number, line)

    def _request(self, number: int, body: str, lines: Iterator[NumberedLine]) -> None:
        match = _REQUEST.match(body)
        if match is None:
            return  # ".", comments (.\") and lines like ".\}"
        name, rest = match.group(1), match.group(2)
        if name in ("if", "ie", "el"):
            self._conditional(name, number, rest, lines)
        elif name in _SKIP_TO_DOTS:
            for _, skipped in lines:
                if _END_OF_MACRO.match(skipped.strip()):
                    break
        elif name in ("TH", "Dt"):
            args = [self._render(arg) for arg in arguments(rest)]
            if args:
                self.title = f"{args[0]}({args[1]})" if len(args) > 1 and args[1] else args[0]
        elif name in ("SH", "SS", "Sh", "Ss"):
            self._flush()
            text = " ".join(self._render(arg) for arg in arguments(rest)).strip()
            self._heading = name.upper()
            if text:
                self._set_heading(text)
        elif name in _BREAKS:
            self._flush()
        elif name in ("RS", "RE"):  # indentation breaks the line: a term above its indented body
            self._hard[-1:] = [True] * len(self._hard[-1:])
        elif name == "TP":
            self._flush()
            self._item, self._tag = "tag", True
        elif name in ("IP", "Ip"):
            self._flush()
            args = arguments(rest)
            tag = self._render(args[0]).strip() if args else ""
            if 0 < len(tag) <= 3:
                self._prefix = tag + " "  # a bullet or a number goes in front of the text
                self._item = "bullet"
            elif tag:
                self._item, self._tag = "tag", True
                self._emit(number, args[0])
        elif name in _FONT_SPACED or name in _FONT_ALTERNATING:
            args = arguments(rest)
            if args:
                self._emit(number, ("" if name in _FONT_ALTERNATING else " ").join(args))
        elif name == "SY":
            self._flush()
            self._emit(number, " ".join(arguments(rest)))
        elif name == "OP":
            self._emit(number, "[" + " ".join(arguments(rest)) + "]")
        elif name in _NOFILL_ON or name in _NOFILL_OFF:
            self._flush()
            self._nofill = name in _NOFILL_ON
        elif name in ("ds", "ds1", "as", "as1"):
            self._define(name, rest)
        elif name == "TS":
            self._flush()
            self._table = "options"
        else:
            self._mdoc(name, number, arguments(rest))

    def _mdoc(self, name: str, number: int, args: list[str]) -> None:
        if name == "Nm" and args and not self._name:
            self._name = args[0]
        if name in MACROS:
            self._emit(number, render_mdoc([name, *args], self._name))
        elif name in ("It", "Dl"):
            self._flush()
            self._item, self._tag = ("tag", True) if name == "It" and args else (None, False)
            self._emit(number, render_mdoc(args, self._name))
        elif name in ("Bd", "Ed", "Bl", "El"):
            self._flush()
            self._nofill = name == "Bd" and bool({"-literal", "-unfilled"} & set(args))

    def _conditional(
        self, name: str, number: int, rest: str, lines: Iterator[NumberedLine]
    ) -> None:
        if name == "el":
            taken = not self._ie.pop() if self._ie else False
        else:
            taken, rest = self._condition(rest)
            if name == "ie":
                self._ie.append(taken)
        rest = rest.lstrip(" \t")
        if rest.startswith("\\{"):
            rest = rest[2:]
            if not taken:
                depth = 1 + rest.count("\\{") - rest.count("\\}")
                while depth > 0:
                    skipped = next(lines, None)
                    if skipped is None:
                        break
                    depth += skipped[1].count("\\{") - skipped[1].count("\\}")
                return
        if taken and rest.strip():
            self._line(number, rest, lines)

    def _condition(self, text: str) -> tuple[bool, str]:
        """Evaluate a condition as nroff (groff on a terminal) would; return what follows it."""
        text = text.lstrip(" \t")
        negate = False
        while text.startswith("!"):
            negate, text = not negate, text[1:]
        if not text:
            return False, ""
        first = text[0]
        if first in "ntoev" and (len(text) == 1 or not text[1].isalnum()):
            return (first == "n") != negate, text[1:]
        if first in "drc" and text[1:2] in (" ", "\t"):
            parts = text[1:].split(None, 1)
            known = first == "d" and bool(parts) and parts[0] in self._strings
            return known != negate, parts[1] if len(parts) > 1 else ""
        if not first.isalnum() and first not in "\\(+-":
            middle = text.find(first, 1)
            end = text.find(first, middle + 1) if middle > 0 else -1
            if end < 0:
                return False, ""
            same = self._render(text[1:middle]) == self._render(text[middle + 1 : end])
            return same != negate, text[end + 1 :]
        parts = text.split(None, 1)
        expression = parts[0]
        # \n(.g is 1 under groff, which reads man pages today; other registers are unknown: false
        value = (
            "\\n(.g" in expression or "\\n[.g]" in expression or expression.lstrip("+").isdigit()
        )
        value = value and expression.lstrip("+") != "0"
        return value != negate, parts[1] if len(parts) > 1 else ""

    def _define(self, name: str, rest: str) -> None:
        parts = rest.split(None, 1)
        if not parts:
            return
        value = parts[1] if len(parts) > 1 else ""
        value = value[1:] if value.startswith('"') else value
        if name.startswith("as"):
            value = self._strings.get(parts[0], "") + value
        self._strings[parts[0]] = value

    def _table_line(self, number: int, line: str) -> bool:
        """Handle one line inside .TS … .TE; False when it is a request to process normally."""
        stripped = line.strip()
        if self._table == "options":
            self._table = "format"
            if stripped.endswith(";"):
                found = _TBL_TAB.search(stripped)
                self._tab = found.group(1) if found else "\t"
                return True
        if self._table == "format":
            if stripped.endswith("."):
                self._table = "data"
            return True
        if stripped.startswith((".TE", "'TE")):
            self._flush()
            self._table, self._tab = None, "\t"
        elif stripped.startswith(".T&"):
            self._table = "format"
        elif stripped.startswith((".", "'")):
            return False  # other requests inside a table act as usual
        elif stripped not in ("_", "=", ""):  # not a rule or a blank line
            row = line.replace("T{", "").replace("T}", "")
            cells = [self._render(cell).strip() for cell in row.split(self._tab)]
            self._add(number, " | ".join(cell for cell in cells if cell), hard=True)
        return True

    def _emit(self, number: int, raw: str) -> None:
        text, joined = render(raw, self._strings)
        if not self._nofill:
            text = text.lstrip()
        if not joined:
            text = text.rstrip()
        if self._heading is not None:
            if text:
                self._set_heading(text)
            return
        self._add(number, self._prefix + text, hard=self._tag)
        self._tag = self._tag and joined  # a tag continued with \c
        self._prefix = ""
        self._join = joined

    def _add(self, number: int, text: str, *, hard: bool = False) -> None:
        if self._join and self._current:
            first, previous = self._current[-1]
            self._current[-1] = (first, previous + text)
        elif text or self._nofill:
            self._current.append((number, text))
            self._hard.append(hard or self._nofill)
        self._join = False

    def _set_heading(self, text: str) -> None:
        if self._heading == "SS" and self._section:
            self._section = (self._section[0], text)
        else:
            self._section = (text,)
        self._heading = None

    def _flush(self) -> None:
        block = self._paragraph()
        if block is not None:
            self._place(block)
        self._current, self._hard = [], []
        self._prefix, self._item, self._tag = "", None, False
        self._join = False

    def _paragraph(self) -> Block | None:
        """The block of the lines gathered: filled lines reflowed up to a line that breaks (a
        no-fill line, a table row, a tag, the text before `.RS`), which ends a line of the
        block; located by its first and last line."""
        filled = [number for number, text in self._current if text.strip()]
        if not filled:
            return None
        lines: list[str] = []
        run: list[str] = []
        for (_, text), hard in zip(self._current, self._hard, strict=True):
            run.append(text)
            if hard:  # the line breaks after this text; a line alone is kept as it is
                lines.append(fill(run) if len(run) > 1 else text.rstrip())
                run = []
        if run:
            lines.append(fill(run))
        text = "\n".join(lines).strip()
        span = Locator("line_range", filled[0], filled[-1])
        return Block(text, self._section, span, "code" if self._nofill else "text")

    def _place(self, block: Block) -> None:
        """Append a block; a list item (a bullet, a tag without a body) joins the list before it,
        or the paragraph that leads into it with a colon: one block per list."""
        item = self._item == "bullet" or block.text.startswith(_BULLETS)
        item = item or (self._item == "tag" and len(self._current) == 1)
        last = self.blocks[-1] if self.blocks else None
        joins = item and last is not None and last.section == block.section and last.kind == "text"
        if joins and last and (self._listing or last.text.endswith(_LEAD_IN)):
            assert last.locator is not None and block.locator is not None
            span = Locator("line_range", last.locator.start, block.locator.end)
            self.blocks[-1] = Block(f"{last.text}\n{block.text}", block.section, span, last.kind)
            self._listing = True
            return
        self.blocks.append(block)
        self._listing = item

    def _render(self, text: str) -> str:
        return render(text, self._strings)[0]
