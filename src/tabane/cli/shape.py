"""What every command of the app gets by construction once it is assembled (`finish`): the
`--json` option, and help in plain click style — `--context TEXT`, `QUERY`, the example on a
line of its own — instead of Typer's `<list[str]>` placeholders and an example wrapped in two."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from functools import wraps
from typing import Annotated, Any, get_args, get_origin

import typer
from typer.core import TyperCommand

from tabane.cli.common import JSON_OUTPUT

JSON_HELP = "print the result as JSON (the format scripts read), not for a person"
# A parameter's type as Typer writes it in a help record (`<str>`, `<list[Path]>`), with the
# `...` it adds to a repeated argument.
_PLACEHOLDER = re.compile(r"\s*<[^<>]*>(\.\.\.)?")
_EXAMPLE = re.compile(r"(Examples?: [^\n]*)")


def finish(app: typer.Typer) -> None:
    """Give every command below `app` the `--json` option and the tidy help."""
    for info in app.registered_commands:
        if info.callback is not None:
            info.callback = with_json(info.callback)
        if info.cls in (None, TyperCommand):
            info.cls = Command
    for group in app.registered_groups:
        for described in (group, getattr(group.typer_instance, "info", None)):
            text = getattr(described, "help", None)
            if described is not None and isinstance(text, str):
                described.help = help_text(text)
        if group.typer_instance is not None:
            finish(group.typer_instance)


def with_json(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` with a `--json` option: while it runs, `JSON_OUTPUT` says which was asked for."""
    signature = inspect.signature(fn, eval_str=True)
    if any(_is_json(p.annotation) for p in signature.parameters.values()):
        return fn  # its own --json (`eval`: the file the full report is written to)

    @wraps(fn)
    def wrapper(*args: Any, json_output: bool = False, **kwargs: Any) -> Any:
        token = JSON_OUTPUT.set(json_output)
        try:
            return fn(*args, **kwargs)
        finally:
            JSON_OUTPUT.reset(token)

    option = Annotated[bool, typer.Option("--json", help=JSON_HELP)]
    extra = inspect.Parameter(
        "json_output", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=option
    )
    params = [*signature.parameters.values(), extra]
    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    return wrapper


def _is_json(annotation: Any) -> bool:
    """Whether a parameter is declared `--json` (in `Annotated`, Typer's `Option` takes its first
    name as `default`)."""
    for info in get_args(annotation)[1:]:
        names = (getattr(info, "default", None), *(getattr(info, "param_decls", None) or ()))
        if "--json" in names:
            return True
    return False


def help_text(text: str) -> str:
    """A docstring as help: its prose rewrapped, its `Example:` lines (each to the end of its
    line) a block click leaves unwrapped (`\\b`), so that a command line is never split."""
    if "\b" in text:  # done already
        return text
    blocks: list[str] = []
    examples: list[str] = []
    for i, part in enumerate(_EXAMPLE.split(text.strip())):
        if i % 2:
            examples.append(" ".join(part.split()))
            continue
        if part.strip():
            if examples:
                blocks.append("\b\n" + "\n".join(examples))
                examples = []
            blocks.append(part.strip())
    if examples:
        blocks.append("\b\n" + "\n".join(examples))
    return "\n\n".join(blocks)


def metavar(param: Any) -> str:
    """What a value of this parameter is called in help: an argument by its name, an option by
    its type (TEXT, INTEGER, NUMBER, PATH…), a choice by its values."""
    if param.param_type_name == "argument":
        return str(param.metavar or param.name or "").upper()
    desc = param.type_descriptor
    if desc.is_choice:
        return "[" + "|".join(str(c) for c in desc.choices or ()) + "]"
    if desc.is_path:
        return "PATH"
    kind = desc.annotation
    if get_origin(kind) is list:
        kind = get_args(kind)[0]
    return _TYPE_NAMES.get(kind, getattr(kind, "__name__", "value").upper())


_TYPE_NAMES: dict[object, str] = {str: "TEXT", int: "INTEGER", float: "NUMBER", bool: "BOOLEAN"}


class Command(TyperCommand):
    """A Typer command whose help reads as click's plain help, wrapped to the terminal."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = help_text(self.help or "")
        for param in self.params:
            flag = getattr(param, "is_flag", False)
            if param.param_type_name == "option" and param.metavar is None and not flag:
                param.metavar = metavar(param)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = metavar(param) + ("..." if param.nargs != 1 else "")
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        args, opts = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            name, text = record
            if param.param_type_name == "argument":
                dots = "..." if param.nargs != 1 else ""
                args.append((f"{metavar(param)}{dots}", text))
            else:
                opts.append((_PLACEHOLDER.sub(f" {param.metavar}", name, count=1), text))
        for title, rows in (("Arguments", args), ("Options", opts)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
