"""Recall presets: named recall configurations over one kernel (ARCHITECTURE.md §1, "preset").

A preset names the contexts and groups a recall reads, its token budget, its template, whether the
relevance gate answers trivial turns, and whether the corpus map rides along. Presets come from a
TOML file (the `TABANE_PRESETS` setting), loaded once at start-up:

    [presets.docs]
    description = "the shared docs plus my desk"
    contexts = ["docs", "desk"]
    groups = ["manuals"]
    budget = 1500            # tokens; absent: the TABANE_RECALL_BUDGET setting
    template = "docs.j2"     # relative to the presets file; absent: the default template
    gate = true
    overview = true
    overview_chars = 1500

Every field is checked and every problem is reported at once with its path
(`presets.docs.budget: not a positive integer`); unknown keys are refused, so a misspelt key never
silently does nothing. A preset named "default" always exists (no contexts: the request names
them) unless the file defines its own.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tabane.checks import check_name
from tabane.config import MAX_RECALL_BUDGET
from tabane.errors import InvalidInput, InvalidName, Issue, NoPreset, TemplateError
from tabane.recall.render import load_template

DEFAULT_PRESET = "default"
# The corpus map's default size: about 375 tokens at 4 characters per token, a fifth of the
# default 2000-token budget, so the overview never crowds out the evidence it introduces.
DEFAULT_OVERVIEW_CHARS = 1500
MAX_OVERVIEW_CHARS = 1_000_000


@dataclass(frozen=True)
class Preset:
    name: str
    contexts: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    budget: int | None = None  # tokens; None: the TABANE_RECALL_BUDGET setting
    template: Path | None = None  # None: the TABANE_RECALL_TEMPLATE setting, else the default
    gate: bool = True  # the relevance gate answers trivial turns with no evidence
    overview: bool = False  # the corpus map of the addressed contexts rides along
    overview_chars: int = DEFAULT_OVERVIEW_CHARS
    description: str = ""


@dataclass(frozen=True)
class PresetView:
    """A preset as a caller sees it: the contexts and groups it names that they can see (a name
    they cannot see is not shown), and its template's file name."""

    name: str
    description: str
    contexts: tuple[str, ...]
    groups: tuple[str, ...]
    budget: int | None
    template: str | None
    gate: bool
    overview: bool
    overview_chars: int


def view(preset: Preset, contexts: frozenset[str], groups: frozenset[str]) -> PresetView:
    """`preset` for a caller who can see `contexts` and `groups`."""
    return PresetView(
        preset.name,
        preset.description,
        tuple(c for c in preset.contexts if c in contexts),
        tuple(g for g in preset.groups if g in groups),
        preset.budget,
        preset.template.name if preset.template is not None else None,
        preset.gate,
        preset.overview,
        preset.overview_chars,
    )


def usable(preset: Preset, shown: PresetView) -> bool:
    """Whether a caller who sees `shown` of `preset` can recall with it: it names no context
    or group (the request names them), or at least one the caller can see. Listing and use
    agree on it; a preset that names only what the caller cannot see is refused like one that
    does not exist, so its refusal never names what it hides."""
    return not (preset.contexts or preset.groups) or bool(shown.contexts or shown.groups)


def no_visible(preset: Preset) -> NoPreset:
    return NoPreset(
        f"preset {preset.name!r} names no context or group you can see",
        issues=[Issue("preset", f"{preset.name}: names no context or group you can see")],
    )


DEFAULT = Preset(
    name=DEFAULT_PRESET,
    description="every lane over the contexts and groups the request names",
)

_FIELDS = frozenset(
    {
        "description",
        "contexts",
        "groups",
        "budget",
        "template",
        "gate",
        "overview",
        "overview_chars",
    }
)


def load_presets(path: Path | None) -> dict[str, Preset]:
    """The presets of a TOML file (with the built-in "default" unless the file defines one);
    only the built-in one when `path` is None. Raises InvalidInput naming every problem."""
    presets = {DEFAULT_PRESET: DEFAULT}
    if path is None:
        return presets
    path = path.expanduser()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InvalidInput(
            f"presets file not found: {path}", issues=[Issue(str(path), "no such file")]
        ) from None
    except OSError as exc:
        raise InvalidInput(
            f"presets file cannot be read: {path}", issues=[Issue(str(path), exc.strerror or "")]
        ) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInput(
            f"presets file is not valid TOML: {path}", issues=[Issue(str(path), str(exc))]
        ) from None
    issues: list[Issue] = []
    parsed = _parse(data, path.parent, issues)
    if issues:
        raise InvalidInput(f"invalid presets file {path}", issues=issues)
    presets.update(parsed)
    return presets


def preset_named(presets: Mapping[str, Preset], name: str) -> Preset:
    """The preset called `name`, or NoPreset listing the ones there are."""
    preset = presets.get(name)
    if preset is None:
        known = ", ".join(sorted(presets)) or "none"
        raise NoPreset(
            f"no preset named {name!r}", issues=[Issue("preset", f"unknown; known: {known}")]
        )
    return preset


def _parse(data: Mapping[str, object], base: Path, issues: list[Issue]) -> dict[str, Preset]:
    for key in sorted(set(data) - {"presets"}):
        issues.append(Issue(key, "unknown key (presets go in [presets.NAME] tables)"))
    tables = data.get("presets", {})
    if not isinstance(tables, dict):
        issues.append(Issue("presets", "not a table"))
        return {}
    out: dict[str, Preset] = {}
    for name, table in tables.items():
        where = f"presets.{name}"
        try:
            check_name(name, where, "preset name")
        except InvalidName as exc:
            issues.extend(exc.issues)
            continue
        if not isinstance(table, dict):
            issues.append(Issue(where, "not a table"))
            continue
        preset = _preset(name, table, base, where, issues)
        if preset is not None:
            out[name] = preset
    return out


def _preset(
    name: str, table: Mapping[str, object], base: Path, where: str, issues: list[Issue]
) -> Preset | None:
    before = len(issues)
    for key in sorted(set(table) - _FIELDS):
        issues.append(Issue(f"{where}.{key}", "unknown key"))
    description = table.get("description", "")
    if not isinstance(description, str):
        issues.append(Issue(f"{where}.description", "not a string"))
        description = ""
    preset = Preset(
        name=name,
        contexts=_names(table, "contexts", where, issues),
        groups=_names(table, "groups", where, issues),
        budget=_positive(table, "budget", MAX_RECALL_BUDGET, where, issues),
        template=_template(table, base, where, issues),
        gate=_flag(table, "gate", DEFAULT.gate, where, issues),
        overview=_flag(table, "overview", DEFAULT.overview, where, issues),
        overview_chars=_positive(table, "overview_chars", MAX_OVERVIEW_CHARS, where, issues)
        or DEFAULT_OVERVIEW_CHARS,
        description=description,
    )
    return preset if len(issues) == before else None


def _names(
    table: Mapping[str, object], key: str, where: str, issues: list[Issue]
) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list):
        issues.append(Issue(f"{where}.{key}", "not a list of names"))
        return ()
    out: list[str] = []
    for i, item in enumerate(value):
        try:
            name = check_name(item, f"{where}.{key}[{i}]", key[:-1] + " name")
        except InvalidName as exc:
            issues.extend(exc.issues)
            continue
        if name in out:
            issues.append(Issue(f"{where}.{key}[{i}]", f"duplicate of {name!r}"))
        else:
            out.append(name)
    return tuple(out)


def _positive(
    table: Mapping[str, object], key: str, most: int, where: str, issues: list[Issue]
) -> int | None:
    if key not in table:
        return None
    value = table[key]
    # TOML booleans are Python bools, which are ints: refuse them by name.
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        issues.append(Issue(f"{where}.{key}", "not a positive integer"))
        return None
    if value > most:
        issues.append(Issue(f"{where}.{key}", f"{value} is more than {most}"))
        return None
    return value


def _flag(
    table: Mapping[str, object], key: str, default: bool, where: str, issues: list[Issue]
) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        issues.append(Issue(f"{where}.{key}", "not true or false"))
        return default
    return value


def _template(
    table: Mapping[str, object], base: Path, where: str, issues: list[Issue]
) -> Path | None:
    if "template" not in table:
        return None
    value = table["template"]
    if not isinstance(value, str) or not value.strip():
        issues.append(Issue(f"{where}.template", "not a file path"))
        return None
    path = Path(value).expanduser()
    path = path if path.is_absolute() else base / path
    if not path.is_file():
        issues.append(Issue(f"{where}.template", f"no such file: {path}"))
        return None
    try:
        load_template(path)  # compiled now: a broken one is the file's problem, not a recall's
    except TemplateError as exc:
        issues.extend(Issue(f"{where}.template", f"{i.path}: {i.problem}") for i in exc.issues)
        return None
    return path
