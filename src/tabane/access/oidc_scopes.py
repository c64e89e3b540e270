"""The claim → scope mapping of OIDC / JWT bearer tokens (TABANE_OIDC_SCOPES, a TOML file).

    [claims.scope."tabane:notes"]            # a value of the space-separated `scope` claim
    read = ["org:acme"]
    [claims.organizations."org-1"]           # Logto: an organization id in `organizations`
    read = ["org:acme", "org:acme-docs"]
    [claims.organization_roles."org-1:editor"]   # Logto: "<organization id>:<role>"
    write = ["org:acme"]                     # write implies read
    [claims."realm_access.roles".admin]      # a dotted name reaches into nested objects

A claim's value may be a string (split on whitespace, as `scope` is) or a list of strings. A token
maps to the union of the grants of every value it carries; values with no entry map to nothing.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabane.checks import check_scope
from tabane.errors import InvalidInput, InvalidName, Issue


@dataclass(frozen=True)
class ScopeGrant:
    """The tabane scopes one claim value grants (write ⊆ read)."""

    read: frozenset[str]
    write: frozenset[str]


@dataclass(frozen=True)
class ScopeMapping:
    """Claim name → claim value → the scopes that value grants."""

    claims: Mapping[str, Mapping[str, ScopeGrant]]

    def scopes(self, claims: Mapping[str, Any]) -> ScopeGrant:
        """The union of the grants of every mapped value the token's claims carry."""
        read: set[str] = set()
        write: set[str] = set()
        for claim, values in self.claims.items():
            for value in claim_values(claims, claim):
                grant = values.get(value)
                if grant is not None:
                    read |= grant.read
                    write |= grant.write
        return ScopeGrant(frozenset(read), frozenset(write))


def claim_values(claims: Mapping[str, Any], name: str) -> tuple[str, ...]:
    """The string values of claim `name` (dotted: nested), a string split on whitespace."""
    value: Any = claims.get(name)
    if value is None and "." in name:
        value = claims
        for part in name.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return ()


def load_mapping(path: Path) -> ScopeMapping:
    """Read and check a mapping file; InvalidInput names every problem (path-addressed)."""
    path = path.expanduser()
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise InvalidInput(
            f"OIDC scope mapping not found: {path}", issues=[Issue(str(path), "no such file")]
        ) from None
    except OSError as exc:
        raise InvalidInput(
            f"OIDC scope mapping cannot be read: {path}",
            issues=[Issue(str(path), exc.strerror or "")],
        ) from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInput(
            f"OIDC scope mapping is not valid TOML: {path}", issues=[Issue(str(path), str(exc))]
        ) from None
    issues: list[Issue] = []
    mapping = parse_mapping(data, issues)
    if issues:
        raise InvalidInput(f"invalid OIDC scope mapping {path}", issues=issues)
    return mapping


def parse_mapping(data: Mapping[str, Any], issues: list[Issue]) -> ScopeMapping:
    for key in sorted(set(data) - {"claims"}):
        issues.append(Issue(key, 'unknown key (mappings go in [claims.CLAIM."VALUE"] tables)'))
    tables = data.get("claims", {})
    if not isinstance(tables, dict):
        issues.append(Issue("claims", "not a table"))
        return ScopeMapping({})
    out: dict[str, dict[str, ScopeGrant]] = {}
    for claim, values in sorted(tables.items()):
        if not isinstance(values, dict):
            issues.append(Issue(f"claims.{claim}", "not a table of claim values"))
            continue
        for value, table in sorted(values.items()):
            grant = _grant(table, f"claims.{claim}.{value}", issues)
            if grant is not None:
                out.setdefault(claim, {})[value] = grant
    return ScopeMapping(out)


def _grant(table: object, where: str, issues: list[Issue]) -> ScopeGrant | None:
    if not isinstance(table, dict):
        issues.append(Issue(where, "not a table with `read` and/or `write`"))
        return None
    for key in sorted(set(table) - {"read", "write"}):
        issues.append(Issue(f"{where}.{key}", "unknown key (use `read` and `write`)"))
    sets: dict[str, frozenset[str]] = {}
    for key in ("read", "write"):
        names = table.get(key, [])
        if not isinstance(names, list):
            issues.append(Issue(f"{where}.{key}", "not a list of scope names"))
            names = []
        checked: set[str] = set()
        for i, name in enumerate(names):
            try:
                checked.add(check_scope(name, f"{where}.{key}[{i}]"))
            except InvalidName as exc:
                issues.extend(exc.issues)
        sets[key] = frozenset(checked)
    if not sets["read"] and not sets["write"]:
        issues.append(Issue(where, "grants nothing: give `read` or `write` scopes"))
        return None
    return ScopeGrant(read=sets["read"] | sets["write"], write=sets["write"])
