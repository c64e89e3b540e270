"""One error hierarchy for tabane, each error with a stable snake_case code.

    TabaneError                      code          HTTP
    ├── BadRequest                   bad_request   400  (HTTP: a request the server cannot parse)
    │   └── InvalidJson              invalid_json  400  (HTTP: the body is not valid JSON)
    ├── Unauthorized                 unauthorized  401  (HTTP: no or bad credentials)
    ├── MethodNotAllowed             method_not_allowed 405
    ├── InvalidInput                 invalid_input 422  (a field is malformed; `issues` say where)
    │   ├── InvalidName              invalid_name  422
    │   ├── BodyTooLarge             body_too_large 413
    │   ├── LimitExceeded            limit_exceeded 422 (a count over a limit the issue names)
    │   ├── DocumentError            unreadable_document 422 (undecodable, binary or empty file)
    │   │   └── ReaderFailed         reader_failed 422 (a reader broke on the file: a tabane bug)
    │   ├── TemplateError            template_error 422 (a recall template fails to compile/render)
    │   └── BackupUnreadable         backup_unreadable 422 (not a backup `tabane restore` can read)
    ├── NotFound                     not_found     404
    │   ├── NoContext                no_context    404
    │   ├── NoGroup                  no_group      404
    │   ├── NoSource                 no_source     404
    │   ├── NoParagraph              paragraph_out_of_range 404
    │   ├── NoUser                   no_user       404
    │   ├── NoConcept                no_concept    404
    │   ├── NoClaim                  no_claim      404
    │   ├── NoSession                no_session    404
    │   ├── NoTrace                  no_trace      404  (no recall trace with that id, or not yours)
    │   ├── NoScope                  no_scope      404
    │   └── NoPreset                 no_preset     404  (no recall preset by that name)
    ├── Conflict                     conflict      409
    │   ├── NameTaken                name_taken    409
    │   ├── GroupCycle               group_cycle   409
    │   ├── GroupTooDeep             group_too_deep 409
    │   ├── AliasConflict            alias_conflict 409 (an alias would join two concepts)
    │   ├── SourceTaken              source_taken  409 (a source you cannot see holds the id)
    │   ├── StoreNotEmpty            store_not_empty 409 (restore into a store with data, unforced)
    │   └── BackupTooNew             backup_too_new 409 (a backup from a newer migration head)
    ├── Forbidden                    forbidden     403  (the caller may not write these scopes)
    ├── RateLimited                  rate_limited  429  (too many requests; `Retry-After` says when)
    ├── StoreUnavailable             store_unavailable 503
    │   ├── StoreBusy                store_busy    503  (a conflicting write or lock: retry)
    │   │   └── Overloaded           overloaded    503  (at capacity now; `Retry-After` says when)
    │   └── DiskLow                  disk_low      507  (the store's disk is nearly full: no writes)
    ├── EmbedderUnavailable          embedder_unavailable 503 (the embedding service is failing)
    ├── RerankerUnavailable          reranker_unavailable 503 (the rerank service is failing)
    └── SummarizerUnavailable        summarizer_unavailable 503 (the summary service is failing)

Every error carries `issues`: `(path, problem)` pairs naming what was wrong and where, and
`written`, which says what was written before the error (nothing, unless it says otherwise).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Issue:
    """One problem found in the input: where it is (a dotted path) and what is wrong."""

    path: str
    problem: str


MAX_MESSAGE = 2000  # characters of an error's message; a longer one is cut


class TabaneError(Exception):
    code = "internal"
    status = 500

    def __init__(
        self,
        message: str,
        *,
        issues: Iterable[Issue] = (),
        written: str = "nothing",
    ) -> None:
        if len(message) > MAX_MESSAGE:  # a huge name echoed back would amplify the request
            message = message[: MAX_MESSAGE - 1] + "…"
        super().__init__(message)
        self.message = message
        self.issues = tuple(issues)
        self.written = written

    def to_body(self) -> dict[str, object]:
        return {
            "error": {
                "code": self.code,
                "message": self.message,
                "issues": [{"path": i.path, "problem": i.problem} for i in self.issues],
                "written": self.written,
            }
        }


class BadRequest(TabaneError):
    code = "bad_request"
    status = 400


class InvalidJson(BadRequest):
    code = "invalid_json"


class Unauthorized(TabaneError):
    code = "unauthorized"
    status = 401


class MethodNotAllowed(TabaneError):
    code = "method_not_allowed"
    status = 405


class InvalidInput(TabaneError):
    code = "invalid_input"
    status = 422


class InvalidName(InvalidInput):
    code = "invalid_name"


class SchemaViolation(InvalidInput):
    """A write a context's strict schema forbids (graph/schema.py); each issue names the claim
    and its label or end."""

    code = "schema_violation"


class BodyTooLarge(InvalidInput):
    code = "body_too_large"
    status = 413


class LimitExceeded(InvalidInput):
    """A count or size over one of tabane's limits (paragraphs of a document, files of a walk,
    tags); checked before the work, the issue names the limit."""

    code = "limit_exceeded"


class DocumentError(InvalidInput):
    code = "unreadable_document"


class ReaderFailed(DocumentError):
    """A reader broke on a file it should have read (or refused with `unreadable_document`): a
    bug in tabane, reported per file with the format and the failure, never a traceback."""

    code = "reader_failed"


class EmptyDocument(InvalidInput):
    code = "empty_document"


class TemplateError(InvalidInput):
    code = "template_error"


class BackupUnreadable(InvalidInput):
    """A file `tabane restore` cannot read as a backup of a store."""

    code = "backup_unreadable"


class NotFound(TabaneError):
    code = "not_found"
    status = 404


class NoContext(NotFound):
    code = "no_context"


class NoGroup(NotFound):
    code = "no_group"


class NoSource(NotFound):
    code = "no_source"


class NoParagraph(NotFound):
    code = "paragraph_out_of_range"


class NoUser(NotFound):
    code = "no_user"


class NoConcept(NotFound):
    code = "no_concept"


class NoClaim(NotFound):
    code = "no_claim"


class NoSession(NotFound):
    code = "no_session"


class NoTrace(NotFound):
    code = "no_trace"


class NoScope(NotFound):
    code = "no_scope"


class NoPreset(NotFound):
    code = "no_preset"


class NoNode(NotFound):
    code = "no_node"


class Conflict(TabaneError):
    code = "conflict"
    status = 409


class NameTaken(Conflict):
    code = "name_taken"


class GroupCycle(Conflict):
    code = "group_cycle"


class GroupTooDeep(Conflict):
    code = "group_too_deep"


class AliasConflict(Conflict):
    code = "alias_conflict"


class SchemaConflict(Conflict):
    """A schema replacement that names a version other than the stored one (another writer
    replaced it since it was read)."""

    code = "schema_version_conflict"


class SourceTaken(Conflict):
    code = "source_taken"


class StoreNotEmpty(Conflict):
    """`tabane restore` into a store that holds data, without --force."""

    code = "store_not_empty"


class BackupTooNew(Conflict):
    """A backup taken at a newer migration head than this tabane knows."""

    code = "backup_too_new"


class Forbidden(TabaneError):
    code = "forbidden"
    status = 403


class WaitSaid(TabaneError):
    """A refusal that says when to come back: `retry_after` whole seconds (at least 1), sent
    as HTTP's `Retry-After`."""

    def __init__(
        self,
        message: str,
        *,
        retry_after: int = 1,
        issues: Iterable[Issue] = (),
        written: str = "nothing",
    ) -> None:
        super().__init__(message, issues=issues, written=written)
        self.retry_after = max(1, retry_after)


class RateLimited(WaitSaid):
    """Over a per-key or per-user limit."""

    code = "rate_limited"
    status = 429


class StoreUnavailable(TabaneError):
    code = "store_unavailable"
    status = 503


class StoreBusy(StoreUnavailable):
    code = "store_busy"


class StoreTooOld(StoreUnavailable):
    """The store's schema predates the baseline migration's starting point: nothing changed."""

    code = "store_too_old"


class Overloaded(StoreBusy, WaitSaid):
    """The server is at its capacity now (database connections, heavy operations at once, a
    request's deadline); refused, nothing done."""

    code = "overloaded"


class DiskLow(StoreUnavailable):
    """The disk of the store's data directory is below its low watermark: writes are refused
    before PostgreSQL meets a full disk; reads go on."""

    code = "disk_low"
    status = 507


class EmbedderUnavailable(TabaneError):
    code = "embedder_unavailable"
    status = 503


class RerankerUnavailable(TabaneError):
    code = "reranker_unavailable"
    status = 503


class SummarizerUnavailable(TabaneError):
    code = "summarizer_unavailable"
    status = 503


def all_error_classes() -> list[type[TabaneError]]:
    """Every error class, depth first; the docs test checks each code is documented."""
    out: list[type[TabaneError]] = []
    stack: list[type[TabaneError]] = [TabaneError]
    while stack:
        cls = stack.pop()
        out.append(cls)
        stack.extend(reversed(cls.__subclasses__()))
    return out
