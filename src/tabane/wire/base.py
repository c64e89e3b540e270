"""The wire's base: the strict request model shared by every entrance (HTTP bodies and MCP tool
arguments alike), the response base, the one error body and the annotated field types that
several resources share.

Request models are strict (a JSON number is not a string, `true` is not 1), refuse unknown fields
(a typo, or an attempt to pass a user or scope as authority, is an error naming the field) and
refuse NaN and Infinity. Semantic checks (names, ranges, states, dates) stay in the service, so
every surface reports them with the same codes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import operator
from collections.abc import Callable, Collection, Mapping
from types import UnionType
from typing import (
    Annotated,
    Any,
    ClassVar,
    Literal,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
)
from pydantic.config import JsonDict

from tabane.checks import MAX_NAME, MAX_SCOPE, issue_path, storable_text
from tabane.errors import InvalidInput, Issue
from tabane.ingest.documents import MAX_SOURCE_ID


class Request(BaseModel):
    """Base of every request: an HTTP body and a tool's arguments alike."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    # fields holding a document's own text: the readers' one decoding rule judges them, as it
    # judges a file's bytes (`unreadable_document`), instead of the field check
    document_fields: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="before")
    @classmethod
    def _storable_text(cls, value: Any, info: ValidationInfo) -> Any:
        """No NUL and no lone surrogate in any text of any field (nested ones included):
        PostgreSQL could not store or compare it, so it never reaches the service."""
        if info.field_name in cls.document_fields:
            return value
        return storable_text(value)


class Response(BaseModel):
    model_config = ConfigDict(from_attributes=True)


R = TypeVar("R", bound=Response)


def served(
    source: type,
    describe: Mapping[str, str] | None = None,
    *,
    defaults: bool | Collection[str] = False,
) -> Callable[[type[R]], type[R]]:
    """HTTP's answer model of a service dataclass, without a field-by-field copy: the decorated
    class gives its name and docstring (the OpenAPI schema's), `describe` the fields' OpenAPI
    descriptions, and its body only the fields whose HTTP type differs (a nested answer model);
    every other field is the dataclass's own, in its order, with its type (a tuple as a list).
    An answer carries every field, so the schema requires them all but those whose dataclass
    default `defaults` keeps (True: every default). MCP serialises the dataclass itself: both
    write the same fields, HTTP its datetimes with `Z` (pydantic's JSON) where MCP writes
    `+00:00`."""
    notes = dict(describe or {})

    def build(cls: type[R]) -> type[R]:
        hints = get_type_hints(source)
        own = cls.model_fields
        if stray := (set(own) | set(notes)) - set(hints):
            raise TypeError(f"{cls.__name__}: {sorted(stray)} not fields of {source.__name__}")
        fields: dict[str, Any] = {}
        for f in dataclasses.fields(source):
            kind = own[f.name].annotation if f.name in own else _listed(hints[f.name])
            note = (own[f.name].description if f.name in own else None) or notes.get(f.name)
            kept = defaults is True or (defaults is not False and f.name in defaults)
            fields[f.name] = (kind, _field(f, note) if kept else Field(description=note))
        model: Any = create_model(
            cls.__name__,
            __base__=cls.__bases__,
            __doc__=cls.__doc__,
            __module__=cls.__module__,
            **fields,
        )
        model.__qualname__ = cls.__qualname__
        return cast(type[R], model)

    return build


def _field(f: dataclasses.Field[Any], description: str | None) -> Any:
    """A dataclass field's default on the wire (a tuple's as a list made per answer)."""
    if isinstance(f.default, tuple):
        return Field(default_factory=functools.partial(list, f.default), description=description)
    if f.default is not dataclasses.MISSING:
        return Field(f.default, description=description)
    if f.default_factory is not dataclasses.MISSING:
        return Field(default_factory=f.default_factory, description=description)
    return Field(description=description)


def _listed(kind: Any) -> Any:
    """A dataclass field's type as the wire declares it: `tuple[X, ...]` as `list[X]`, inside
    lists and optionals too."""
    origin, args = get_origin(kind), get_args(kind)
    if origin is list or (origin is tuple and len(args) == 2 and args[1] is Ellipsis):
        return list[_listed(args[0])]  # type: ignore[misc]
    if origin in (Union, UnionType):
        return functools.reduce(operator.or_, [_listed(a) for a in args])
    return kind


# -- errors -------------------------------------------------------------------------------------


@served(Issue, {"path": "where the problem is, e.g. `body.name` or `dice_floor`"})
class IssueOut(Response):
    pass


class ErrorDetail(BaseModel):
    code: str = Field(description="stable snake_case code to branch on, e.g. `no_context`")
    message: str
    issues: list[IssueOut]
    written: str = Field(description="what was written before the error: `nothing` unless said")


class ErrorBody(BaseModel):
    """The one error body of every route."""

    error: ErrorDetail


# -- health -------------------------------------------------------------------------------------


class HealthOut(BaseModel):
    status: Literal["ok"]
    version: str
    database: Literal["embedded", "external"]
    revision: str | None


def out(model: type[R], value: object) -> R:
    """A service value (a frozen dataclass) as its wire model."""
    return model.model_validate(value, from_attributes=True)


# Documented on every route: the error body with the statuses it comes with.
ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    status: {"model": ErrorBody, "description": description}
    for status, description in {
        400: "malformed JSON (`invalid_json`)",
        401: "no valid credential, where the server asks for one (`unauthorized`)",
        403: "the caller may not write these scopes (`forbidden`)",
        404: "unknown or invisible context, group, source or paragraph",
        409: "name taken, group cycle, group too deep, alias conflict or source id taken",
        413: "request body over the limit (`body_too_large`)",
        422: "invalid input; `issues` name each field",
        429: "too many requests from this caller (`rate_limited`; see `Retry-After`)",
        500: "unexpected error (`internal`); the server log has the details",
        503: "the store is unavailable, or busy with a conflicting write (`store_busy`: retry)",
    }.items()
}


class NoArgs(Request):
    """A tool that takes no arguments."""


M = TypeVar("M", bound=BaseModel)


def invalid_input(message: str, exc: ValidationError) -> InvalidInput:
    """A request that does not fit its model, one issue per problem at the field's path
    (`paragraphs[0].text`, `contexts[1]`): how a tool's arguments and a command's options are
    refused (HTTP names the same problems under `body.`)."""
    issues = [
        Issue(issue_path(e["loc"], (e.get("ctx") or {}).get("at", "")) or "arguments", e["msg"])
        for e in exc.errors()
    ]
    return InvalidInput(message, issues=issues)


def built(model: type[M], **fields: Any) -> M:
    """A request built from a command's options: the fields given (None: left to the model's
    default; a tuple as the JSON list it stands for), checked as an HTTP body is."""
    given = {k: list(v) if isinstance(v, tuple) else v for k, v in fields.items() if v is not None}
    try:
        return model.model_validate(given)
    except ValidationError as exc:
        raise invalid_input("invalid options", exc) from None


def parse_json_strings(model: type[BaseModel], data: Any) -> Any:
    """A tool call's arguments with each list or object that came as a JSON string (some MCP
    clients send them so) parsed, where the field takes no string; the model then validates
    them as strictly as an HTTP body."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for name, field in model.model_fields.items():
        value = out.get(name)
        if isinstance(value, str) and value[:1] in "[{" and not _accepts_str(field.annotation):
            with contextlib.suppress(ValueError):
                out[name] = json.loads(value)
    return out


def _accepts_str(annotation: Any) -> bool:
    if annotation is str:
        return True
    origin = get_origin(annotation)
    if origin is Literal:
        return any(isinstance(a, str) for a in get_args(annotation))
    if origin in (list, dict):
        return False
    return any(_accepts_str(a) for a in get_args(annotation))


# Bounds the service checks itself (each with its own error code), stated in the schema only:
# tests/meta/test_wire_bounds.py holds every request model to them.
NAME_BOUNDS: JsonDict = {"minLength": 1, "maxLength": MAX_NAME}
SCOPES_BOUNDS: JsonDict = {"items": {"minLength": 1, "maxLength": MAX_SCOPE}}
Name = Annotated[
    str,
    Field(
        description="A context or group name: letters, digits, '.', '_', '-'.",
        json_schema_extra=NAME_BOUNDS,
    ),
]
ContextArg = Annotated[str, Field(description="The context to act in (see `list_contexts`).")]
SourceId = Annotated[
    str,
    Field(
        description="The caller-chosen id of the document: its path or URI, stable over time.",
        json_schema_extra={"minLength": 1, "maxLength": MAX_SOURCE_ID},
    ),
]
Description = Annotated[
    str, Field(description="What this holds, written so a later reader can choose by it.")
]
Scopes = Annotated[
    list[str] | None,
    Field(
        description="Visibility of the NEW row (e.g. ['org:acme']); omit for your default. "
        "Only scopes you may write are accepted.",
        json_schema_extra=SCOPES_BOUNDS,
    ),
]
