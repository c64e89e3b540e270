"""Arguments and results of the recall tools (`recall`, `explain_recall`, `recall_trace`,
`overview_members`). Ranges (an empty question, a budget of 0, a floor outside [-1, 1]) are
checked by the service, so every surface reports them alike. The evaluation-only `plan` is not
an argument: a tool always recalls under the maximal plan."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from tabane.derive.raptor_read import RaptorMemberView
from tabane.derive.shared import MAX_ORDINAL
from tabane.mcp.arguments import Args, ContextArg
from tabane.recall.explain import Expected
from tabane.recall.plan import RecallRequest
from tabane.recall.result import Evidence


class RecallArgs(Args):
    question: Annotated[
        str, Field(description="The question as the user asked it (at most 4000 characters).")
    ]
    contexts: Annotated[
        list[str],
        Field(default_factory=list, description="Contexts to read; default: the preset's."),
    ]
    groups: Annotated[
        list[str],
        Field(
            default_factory=list,
            description="Groups to read (nested ones too); default: the preset's.",
        ),
    ]
    budget: Annotated[
        int | None,
        Field(
            description="Token budget of the evidence; default: the preset's, else the server's."
        ),
    ] = None
    session: Annotated[
        str | None, Field(description="One of your sessions: its recent turns are working memory.")
    ] = None
    speaker: Annotated[
        str | None,
        Field(
            description="Who asks, as the conversation names them: named in the bundle, not "
            "embedded; it never widens what you may see."
        ),
    ] = None
    preset: Annotated[
        str | None, Field(description="A named recall configuration of the server.")
    ] = None
    force: Annotated[
        bool, Field(description="Answer even a turn the relevance gate calls trivial ('hi').")
    ] = False
    semantic_floor: Annotated[
        float | None, Field(description="Cosine floor of the vector lanes, in [-1, 1].")
    ] = None

    def request(self) -> RecallRequest:
        return RecallRequest(
            question=self.question,
            contexts=tuple(self.contexts),
            groups=tuple(self.groups),
            budget=self.budget,
            session=self.session,
            speaker=self.speaker,
            preset=self.preset,
            force=self.force,
            semantic_floor=self.semantic_floor,
        )


class AskArgs(RecallArgs):
    items: Annotated[
        bool,
        Field(description="Also return the evidence as structured items (text, citation, scopes)."),
    ] = False


class ExpectedItem(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    context: Annotated[
        str | None, Field(description="The source's context; default: the only context read.")
    ] = None
    source: Annotated[str | None, Field(description="The source_id (give this or `claim`).")] = None
    paragraph: Annotated[
        int | None, Field(description="One paragraph; omit for any of the source's.")
    ] = None
    claim: Annotated[int | None, Field(description="A claim id (give this or `source`).")] = None


class TraceArgs(Args):
    # no range: an id that cannot exist is unknown (`no_trace`), as over HTTP
    recall_id: Annotated[int, Field(description="The `recall_id` a `recall` returned.")]


class OverviewArgs(Args):
    context: ContextArg
    level: Annotated[
        int, Field(ge=1, le=MAX_ORDINAL, description="L of an item cited `overview L.O`.")
    ]
    ordinal: Annotated[
        int, Field(ge=0, le=MAX_ORDINAL, description="O of an item cited `overview L.O`.")
    ]


@dataclass(frozen=True)
class OverviewMembers:
    members: list[RaptorMemberView]


class ExplainRecallArgs(RecallArgs):
    expected: Annotated[
        ExpectedItem, Field(description="The paragraph or claim you expected in the evidence.")
    ]

    def expected_item(self) -> Expected:
        e = self.expected  # a source's missing context: the service's default (the one read)
        return Expected(e.context, e.source, e.paragraph, e.claim)


@dataclass(frozen=True)
class RecallAnswer:
    recall_id: int | None  # the stored trace's id; None when you may not write (nothing stored)
    rendered: str  # the evidence, rendered to one prompt-ready string
    items: list[Evidence] | None = None  # with `items: true`
