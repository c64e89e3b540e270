"""Build the configured embedder, reranker and summarizer from settings (at start-up only)."""

from __future__ import annotations

from tabane.config import Settings
from tabane.errors import InvalidInput, Issue
from tabane.models.embedder import Embedder
from tabane.models.reranker import Reranker
from tabane.models.summarizer import Summarizer


def build_embedder(settings: Settings) -> Embedder | None:
    if settings.embedder == "none":
        return None
    if settings.embedder == "openai":
        from tabane.models.openai_embedder import OpenAIEmbedder

        if not settings.embed_url or not settings.embed_model:
            raise InvalidInput(
                "TABANE_EMBEDDER=openai needs TABANE_EMBED_URL and TABANE_EMBED_MODEL",
                issues=[Issue("TABANE_EMBED_URL", "unset")],
            )
        return OpenAIEmbedder(
            settings.embed_url,
            settings.embed_model,
            api_key=settings.embed_api_key,
            dim=settings.embed_dim,
            max_rps=settings.embed_max_rps,
        )
    from tabane.models.local import UseEmbedder

    return UseEmbedder()


def build_reranker(settings: Settings) -> Reranker | None:
    """None for `none` (the default); an `HttpReranker` for `http`."""
    if settings.reranker == "none":
        return None
    from tabane.models.http_reranker import HttpReranker

    if not settings.rerank_url:
        raise InvalidInput(
            "TABANE_RERANKER=http needs TABANE_RERANK_URL",
            issues=[Issue("TABANE_RERANK_URL", "unset")],
        )
    if settings.rerank_format == "cohere" and not settings.rerank_model:
        raise InvalidInput(
            "TABANE_RERANK_FORMAT=cohere needs TABANE_RERANK_MODEL",
            issues=[Issue("TABANE_RERANK_MODEL", "unset")],
        )
    return HttpReranker(
        settings.rerank_url,
        format=settings.rerank_format,
        model=settings.rerank_model,
        api_key=settings.rerank_api_key,
    )


def check_summarizer(settings: Settings) -> None:
    """What `build_summarizer` would refuse, checked at start-up (it builds lazily)."""
    if settings.summarizer == "openai" and not (
        settings.summarize_url and settings.summarize_model
    ):
        raise InvalidInput(
            "TABANE_SUMMARIZER=openai needs TABANE_SUMMARIZE_URL and TABANE_SUMMARIZE_MODEL",
            issues=[
                Issue(key, "unset")
                for key, value in [
                    ("TABANE_SUMMARIZE_URL", settings.summarize_url),
                    ("TABANE_SUMMARIZE_MODEL", settings.summarize_model),
                ]
                if not value
            ],
        )


def build_summarizer(settings: Settings) -> Summarizer:
    """The offline `ExtractiveSummarizer` (the default), or an `OpenAISummarizer` for `openai`."""
    check_summarizer(settings)
    if settings.summarizer == "openai":
        from tabane.models.openai_summarizer import OpenAISummarizer

        assert settings.summarize_url is not None and settings.summarize_model is not None
        return OpenAISummarizer(
            settings.summarize_url,
            settings.summarize_model,
            api_key=settings.summarize_api_key,
            max_rps=settings.summarize_max_rps or None,  # 0: not paced
        )
    from tabane.models.extractive import ExtractiveSummarizer

    return ExtractiveSummarizer()


# Default cosine floor of the vector lane per model, when neither the call, the context nor
# TABANE_SEMANTIC_FLOOR sets one. Measured by bench/semantic_floor.py on the dev sets.
DEFAULT_FLOORS: dict[str, float] = {}


# Default cosine floor of resolve's semantic tier (cue against gloss) per model, when neither the
# call, the context nor TABANE_SEMANTIC_FLOOR sets one. Measured by bench/resolve_floor.py with
# `tabane eval graph --semantic-floor F` (docs/journal/eval.md, issue 35): the
# highest floor of the 0.05 grid that keeps coverage and resolution@5 of no floor on graph.json
# was 0.20; on graph2.json (confirmation) 0.20 lost a needed triple, 0.15 kept everything and
# cut semantic noise@5 from 50 to 43 — so 0.15. Glosses and paraphrase cues of this model are
# far apart (a right answer can score 0.04): a floor here only trims clear noise.
GLOSS_FLOORS: dict[str, float] = {"use-multilingual-v3": 0.15}


def gloss_floor(settings: Settings, embedder: Embedder | None) -> float | None:
    """resolve's default semantic floor: TABANE_SEMANTIC_FLOOR, else the model's measured one."""
    if settings.semantic_floor is not None:
        return settings.semantic_floor
    return GLOSS_FLOORS.get(embedder.name) if embedder is not None else None


def default_floor(settings: Settings, embedder: Embedder | None) -> float | None:
    if settings.semantic_floor is not None:
        return settings.semantic_floor
    return DEFAULT_FLOORS.get(embedder.name) if embedder is not None else None
