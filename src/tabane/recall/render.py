"""Render recall evidence to one prompt-ready string with a Jinja template.

The template runs in Jinja's immutable sandbox (no underscore attributes, no mutation of the
items), with strict undefined variables and no autoescaping: the output is a prompt, not HTML.
Each template text compiles once (cached). A template that fails to compile or render raises
`TemplateError` whose issue path names the template line (`template:3`), never a 500.

A template sees `question`, `asker`, `overview` (each may be None except the question), `items`,
the `Evidence` objects in order, `cut` (how many items found did not fit), `budget` (the token
budget), `gated` (why the relevance gate skipped the search, else None) and `newest_first` (the
question's word for the present when each speaker's statements were put newest first, else
None), and may use the `cite` filter: an item's citation in one line. Lane names and scores are
not in `Evidence`, so no template can show them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from tabane.errors import Issue, TemplateError
from tabane.recall.cite import cite
from tabane.recall.result import Evidence

TEMPLATE_NAME = "<recall template>"  # the filename Jinja gives the template's frames
DEFAULT_TEMPLATE = "default.md.j2"


def load_template(path: Path | None) -> str:
    """The template text at `path` (checked to compile), or the default template's when None.
    Errors name the file, not its directory: a recall's caller reads them too."""
    if path is None:
        return _default_text()
    name = Path(path).name
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or type(exc).__name__
        raise TemplateError(
            f"cannot read the recall template {name!r}: {why}",
            issues=[Issue("template", f"unreadable: {type(exc).__name__}")],
        ) from None
    try:
        _compile(text)
    except TemplateError as exc:
        raise _named(exc, name) from None
    return text


def render(
    question: str,
    items: Sequence[Evidence],
    *,
    overview: str | None = None,
    asker: str | None = None,
    template: str | None = None,
    cut: int = 0,
    budget: int | None = None,
    name: str | None = None,
    gated: str | None = None,
    newest_first: str | None = None,
    unsupported: str | None = None,
) -> str:
    """The evidence rendered by `template` (template text; None: the default), trailing newlines
    dropped. `cut` counts the evidence found that the token `budget` left out; `gated` is the
    gate's reason when it skipped the search; `newest_first` is the question's word for the
    present when each speaker's statements were put newest first; `unsupported` is the support
    check's line when nothing served says what the question asks of whom it asks it; `name`
    (the template's file) is named in an error."""
    compiled = _compile(_default_text() if template is None else template)
    try:
        out = compiled.render(
            question=question,
            asker=asker,
            overview=overview,
            items=tuple(items),
            cut=cut,
            budget=budget,
            gated=gated,
            newest_first=newest_first,
            unsupported=unsupported,
        )
    except Exception as exc:  # a template is code the caller wrote: any failure is bad input
        failed = _error("render", exc, _template_line(exc))
        raise (_named(failed, name) if name else failed) from None
    return out.rstrip("\n")


def _named(exc: TemplateError, name: str) -> TemplateError:
    """The error with the template's file named (a preset's template or the setting's)."""
    return TemplateError(
        exc.message.replace("the recall template", f"the recall template {name!r}", 1),
        issues=[Issue(i.path, f"{name}: {i.problem}") for i in exc.issues],
    )


@lru_cache(maxsize=1)
def _default_text() -> str:
    return (files("tabane.recall") / "templates" / DEFAULT_TEMPLATE).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _environment() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["cite"] = cite
    return env


@lru_cache(maxsize=32)
def _compile(text: str) -> jinja2.Template:
    env = _environment()
    try:
        code = env.compile(text, name=TEMPLATE_NAME, filename=TEMPLATE_NAME)
    except jinja2.TemplateSyntaxError as exc:
        raise _error("compile", exc, exc.lineno) from None
    return env.template_class.from_code(env, code, env.make_globals(None), None)


def _template_line(exc: BaseException) -> int | None:
    """The template line of the innermost template frame: Jinja rewrites a render error's
    traceback so that its frames carry the template's filename and line."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == TEMPLATE_NAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


# Jinja names a value by its Python class ("'tabane.recall.result.Evidence object' has no
# attribute 'x'"): the template knows it by what it is.
_SHOWN = {"Evidence": "item", "Citation": "item.citation", "ScopeRef": "scope", "Fact": "item.fact"}


def _error(stage: str, exc: Exception, line: int | None) -> TemplateError:
    problem = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    for cls, shown in _SHOWN.items():
        problem = problem.replace(f"'tabane.recall.result.{cls} object'", f"'{shown}'")
    where = f" at line {line}" if line is not None else ""
    path = f"template:{line}" if line is not None else "template"
    return TemplateError(
        f"the recall template failed to {stage}{where}: {problem}",
        issues=[Issue(path, problem)],
    )
