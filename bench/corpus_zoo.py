"""The corpus zoo: every document of many Debian documentation packages, read by tabane's readers.

Per corpus: files, failures by error code, paragraphs, the share of paragraphs with a section path
and with an anchor locator, the text coverage of HTML pages against the reference extraction
(tabane.evaluation.coverage; min and median over files) and read speed (paragraphs/s, reading and
parsing only: the database's share of an ingest is measured by ingest_throughput.py). Install the
packages first (`apt-get install -y --no-install-recommends <package>…`, Debian 12); a corpus whose
root is missing is listed as such.

    .venv/bin/python bench/corpus_zoo.py [--only NAME …] [--worst 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from _env import describe, header

from tabane.errors import TabaneError
from tabane.evaluation.coverage import coverage, reference_text, stored_texts
from tabane.text.documents import read_document


@dataclass(frozen=True)
class Zoo:
    name: str
    generator: str
    root: str
    pattern: str  # a glob below the root
    sectioned: bool = True  # whose pages have headings (the section-path target applies)


ZOO = (
    Zoo("debian-handbook", "Publican", "/usr/share/doc/debian-handbook/html/en-US", "*.html"),
    Zoo("maint-guide", "DocBook XSL", "/usr/share/doc/maint-guide/html", "*.en.html"),
    Zoo("maint-guide-ja", "DocBook XSL (ja)", "/usr/share/doc/maint-guide-ja/html", "*.ja.html"),
    Zoo("developers-reference", "Sphinx", "/usr/share/developers-reference", "*.html"),
    Zoo("developers-reference-ja", "Sphinx (ja)", "/usr/share/developers-reference/ja", "*.html"),
    Zoo(
        "docbook-xsl-doc-html",
        "DocBook XSL",
        "/usr/share/doc/docbook-xsl-doc-html/doc",
        "**/*.html",
    ),
    Zoo("bash-doc", "Texinfo, man2html", "/usr/share/doc/bash", "*.html"),
    Zoo("sqlite3-doc", "hand-written", "/usr/share/doc/sqlite3", "**/*.html"),
    Zoo("libgtk-3-doc", "gtk-doc", "/usr/share/gtk-doc/html/gtk3", "*.html"),
    Zoo("nodejs-doc", "Node.js doctool", "/usr/share/doc/nodejs/api", "*.html"),
    Zoo("exim4-doc-html", "xfpt", "/usr/share/doc/exim4-doc-html/spec_html", "*.html"),
    Zoo("perl-doc", "pod2man (roff)", "/usr/share/man/man1", "perl*.1.gz"),
    Zoo("manpages-fr", "man(7) roff (fr)", "/usr/share/man/fr", "man*/*.gz"),
    Zoo("python3.11-doc", "Sphinx", "/usr/share/doc/python3.11/html", "**/*.html"),
    Zoo("git-doc", "AsciiDoc", "/usr/share/doc/git-doc", "**/*.html"),
    Zoo("manpages-ja", "man(7) roff (ja)", "/usr/share/man/ja", "man*/*.gz"),
)


@dataclass
class Tally:
    files: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    empty: int = 0
    paragraphs: int = 0
    sectioned: int = 0
    anchored: int = 0
    seconds: float = 0.0
    coverage: list[tuple[float, str]] = field(default_factory=list)


def files_of(zoo: Zoo) -> list[Path]:
    root = Path(zoo.root)
    return sorted(p for p in root.glob(zoo.pattern) if p.is_file() and not p.is_symlink())


def measure(zoo: Zoo, files: list[Path]) -> Tally:
    tally = Tally()
    for path in files:
        data = path.read_bytes()
        tally.files += 1
        started = time.perf_counter()
        try:
            doc = read_document(data, name=str(path.relative_to(zoo.root)))
        except TabaneError as exc:
            tally.failures[exc.code] += 1
            continue
        finally:
            tally.seconds += time.perf_counter() - started
        tally.empty += not doc.blocks
        tally.paragraphs += len(doc.blocks)
        tally.sectioned += sum(1 for b in doc.blocks if b.section)
        tally.anchored += sum(1 for b in doc.blocks if b.locator and b.locator.kind == "anchor")
        if doc.format == "html":
            share = coverage(stored_texts(doc), reference_text(data, str(path)))
            tally.coverage.append((share, path.name))
    return tally


def row(zoo: Zoo, t: Tally) -> dict[str, object]:
    shares = sorted(c for c, _ in t.coverage)
    per = max(t.paragraphs, 1)
    return {
        "corpus": zoo.name,
        "generator": zoo.generator,
        "files": t.files,
        "failures": dict(t.failures),
        "empty": t.empty,
        "paragraphs": t.paragraphs,
        "section": round(t.sectioned / per, 3),
        "anchor": round(t.anchored / per, 3),
        "coverage_min": round(shares[0], 3) if shares else None,
        "coverage_median": round(statistics.median(shares), 3) if shares else None,
        "paragraphs_per_s": round(t.paragraphs / t.seconds) if t.seconds else None,
        "worst": [f"{name} {share:.3f}" for share, name in sorted(t.coverage)[:3]],
    }


def markdown(rows: list[dict[str, object]]) -> str:
    head = (
        "| corpus | generator | files | failures | empty | paragraphs | with section | "
        "with anchor | coverage min / median | paragraphs/s |\n"
        "|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for r in rows:
        failures = ", ".join(f"{k} {v}" for k, v in r["failures"].items()) or "0"  # type: ignore[attr-defined]
        cov = "–" if r["coverage_min"] is None else f"{r['coverage_min']} / {r['coverage_median']}"
        lines.append(
            f"| {r['corpus']} | {r['generator']} | {r['files']} | {failures} | {r['empty']} | "
            f"{r['paragraphs']} | {r['section']:.1%} | {r['anchor']:.1%} | {cov} | "
            f"{r['paragraphs_per_s']} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = []
    for zoo in ZOO:
        if args.only and zoo.name not in args.only:
            continue
        files = files_of(zoo) if Path(zoo.root).is_dir() else []
        if not files:
            print(f"{zoo.name}: not installed ({zoo.root})", file=sys.stderr)
            continue
        r = row(zoo, measure(zoo, files))
        print(json.dumps(r, ensure_ascii=False), file=sys.stderr)
        rows.append(r)
    print(markdown(rows))
    print(f"\n{header(describe())}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "env": describe()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
