"""The service facade: one method per use case, each taking the acting user explicitly.

Surfaces (CLI, HTTP, MCP) are thin shells over this class and hold no logic of their own. It
holds one component per resource (service/<resource>.py: users, contexts, sources, search, …),
all over one `Core` (the store, settings, models and worker), and only delegates: each public
method is the component's own (same name, signature and docstring; `_to` below)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from tabane.config import Settings
from tabane.models.embedder import Embedder
from tabane.models.registry import build_embedder, build_reranker, check_summarizer
from tabane.recall.prepare import templates
from tabane.recall.presets import Preset, load_presets
from tabane.service.archive import ArchiveService
from tabane.service.base import Core, OnCore
from tabane.service.contexts import ContextsService
from tabane.service.derive import DeriveService
from tabane.service.graph_read import GraphReadService
from tabane.service.graph_write import GraphWriteService
from tabane.service.keys import KeysService
from tabane.service.memory import MemoryService
from tabane.service.recall import RecallService
from tabane.service.resolve import ResolveService
from tabane.service.schema import SchemaService
from tabane.service.search import SearchService
from tabane.service.sources import SourcesService
from tabane.service.users import UsersService
from tabane.storage.opening import open_store
from tabane.storage.store import Store

_UNSET: object = object()
P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")


def _to(
    part: Callable[[Tabane], S], method: Callable[Concatenate[S, P], R]
) -> Callable[Concatenate[Tabane, P], R]:
    """`method` of the component `part` picks, as a method of the facade (its signature and
    docstring are the component's)."""

    @functools.wraps(method)
    def delegate(self: Tabane, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return method(part(self), *args, **kwargs)

    return delegate


class Tabane(OnCore):
    """An open store and the components of the service over it; every method delegates."""

    def __init__(
        self,
        core: Core,
        *,
        users: UsersService,
        keys: KeysService,
        contexts: ContextsService,
        sources: SourcesService,
        search: SearchService,
        resolve: ResolveService,
        graph_write: GraphWriteService,
        graph_read: GraphReadService,
        memory: MemoryService,
        recall: RecallService,
        derive: DeriveService,
        archive: ArchiveService,
        schema: SchemaService,
    ) -> None:
        self.core = core
        self._users, self._keys, self._contexts = users, keys, contexts
        self._sources, self._search, self._resolve = sources, search, resolve
        self._graph_write, self._graph_read, self._memory = graph_write, graph_read, memory
        self._recall, self._derive, self._archive = recall, derive, archive
        self._schema = schema
        if core.settings.worker == "thread":
            core.worker.start()

    @classmethod
    def build(
        cls,
        store: Store,
        settings: Settings,
        embedder: Embedder | object | None = _UNSET,
        *,
        presets: dict[str, Preset] | None = None,
        texts: dict[Path | None, str] | None = None,
    ) -> Tabane:
        """The facade over `store`: each component over one `Core` (the embedder the settings
        name unless one is given; None: none). Recall reads its presets and templates at its
        first use unless given (`open` reads them at start-up)."""
        model = build_embedder(settings) if embedder is _UNSET else embedder
        core = Core(store, settings, model, build_reranker(settings))  # type: ignore[arg-type]
        return cls(
            core,
            users=UsersService(core),
            keys=KeysService(core),
            contexts=ContextsService(core),
            sources=SourcesService(core),
            search=SearchService(core),
            resolve=ResolveService(core),
            graph_write=GraphWriteService(core),
            graph_read=GraphReadService(core),
            memory=MemoryService(core),
            recall=RecallService(core, presets, texts),
            derive=DeriveService(core),
            archive=ArchiveService(core),
            schema=SchemaService(core),
        )

    @classmethod
    def open(
        cls, settings: Settings | None = None, *, embedder: Embedder | object | None = _UNSET
    ) -> Tabane:
        settings = settings or Settings.from_env()
        check_summarizer(settings)  # built at the first derive, checked now
        # The recall template and presets files are settings too: a broken one stops the start
        # (naming the file and each problem), not every recall after it.
        presets = load_presets(settings.presets)
        texts = templates(settings.recall_template, presets)
        return cls.build(open_store(settings), settings, embedder, presets=presets, texts=texts)

    def close(self) -> None:
        self.worker.stop()
        self.write_usage()
        closer = getattr(self.embedder, "close", None)
        if callable(closer):
            closer()
        self.store.close()

    def __enter__(self) -> Tabane:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- users (UsersService) -------------------------------------------------------

    revision = _to(lambda t: t._users, UsersService.revision)
    local_user = _to(lambda t: t._users, UsersService.local_user)
    ensure_user = _to(lambda t: t._users, UsersService.ensure_user)
    principal = _to(lambda t: t._users, UsersService.principal)
    add_user = _to(lambda t: t._users, UsersService.add_user)
    list_users = _to(lambda t: t._users, UsersService.list_users)
    add_scope = _to(lambda t: t._users, UsersService.add_scope)
    list_scopes = _to(lambda t: t._users, UsersService.list_scopes)
    remove_scope = _to(lambda t: t._users, UsersService.remove_scope)
    grant = _to(lambda t: t._users, UsersService.grant)
    revoke = _to(lambda t: t._users, UsersService.revoke)
    export_user = _to(lambda t: t._users, UsersService.export_user)
    erase_user = _to(lambda t: t._users, UsersService.erase_user)

    # -- keys (KeysService) ---------------------------------------------------------

    authenticate = _to(lambda t: t._keys, KeysService.authenticate)
    create_key = _to(lambda t: t._keys, KeysService.create_key)
    list_keys = _to(lambda t: t._keys, KeysService.list_keys)
    revoke_key = _to(lambda t: t._keys, KeysService.revoke_key)

    # -- contexts (ContextsService) -------------------------------------------------

    write_usage = _to(lambda t: t._contexts, ContextsService.write_usage)
    create_context = _to(lambda t: t._contexts, ContextsService.create_context)
    get_context = _to(lambda t: t._contexts, ContextsService.get_context)
    list_contexts = _to(lambda t: t._contexts, ContextsService.list_contexts)
    update_context = _to(lambda t: t._contexts, ContextsService.update_context)
    rename_context = _to(lambda t: t._contexts, ContextsService.rename_context)
    delete_context = _to(lambda t: t._contexts, ContextsService.delete_context)
    changes = _to(lambda t: t._contexts, ContextsService.changes)
    create_group = _to(lambda t: t._contexts, ContextsService.create_group)
    get_group = _to(lambda t: t._contexts, ContextsService.get_group)
    list_groups = _to(lambda t: t._contexts, ContextsService.list_groups)
    change_group = _to(lambda t: t._contexts, ContextsService.change_group)
    rename_group = _to(lambda t: t._contexts, ContextsService.rename_group)
    delete_group = _to(lambda t: t._contexts, ContextsService.delete_group)
    expand = _to(lambda t: t._contexts, ContextsService.expand)

    # -- sources (SourcesService) ---------------------------------------------------

    ingest = _to(lambda t: t._sources, SourcesService.ingest)
    ingest_paths = _to(lambda t: t._sources, SourcesService.ingest_paths)
    sync = _to(lambda t: t._sources, SourcesService.sync)
    watch = _to(lambda t: t._sources, SourcesService.watch)
    retract = _to(lambda t: t._sources, SourcesService.retract)
    list_sources = _to(lambda t: t._sources, SourcesService.list_sources)
    lookup = _to(lambda t: t._sources, SourcesService.lookup)
    cite = _to(lambda t: t._sources, SourcesService.cite)
    refresh_embeddings = _to(lambda t: t._sources, SourcesService.refresh_embeddings)
    embeddings = _to(lambda t: t._sources, SourcesService.embeddings)

    # -- search (SearchService) -----------------------------------------------------

    search = _to(lambda t: t._search, SearchService.search)
    explain_search = _to(lambda t: t._search, SearchService.explain_search)
    search_catalog = _to(lambda t: t._search, SearchService.search_catalog)
    explain_catalog = _to(lambda t: t._search, SearchService.explain_catalog)
    jobs = _to(lambda t: t._search, SearchService.jobs)
    wait_for_jobs = _to(lambda t: t._search, SearchService.wait_for_jobs)
    compact = _to(lambda t: t._search, SearchService.compact)
    compact_all = _to(lambda t: t._search, SearchService.compact_all)
    flush = _to(lambda t: t._search, SearchService.flush)
    flush_all = _to(lambda t: t._search, SearchService.flush_all)

    # -- resolve (ResolveService) ---------------------------------------------------

    resolve = _to(lambda t: t._resolve, ResolveService.resolve)
    resolve_label = _to(lambda t: t._resolve, ResolveService.resolve_label)
    explain_resolve = _to(lambda t: t._resolve, ResolveService.explain_resolve)
    calibrate_resolve = _to(lambda t: t._resolve, ResolveService.calibrate_resolve)
    audit_vocabulary = _to(lambda t: t._resolve, ResolveService.audit_vocabulary)

    # -- schema and audits (SchemaService) ------------------------------------------

    get_schema = _to(lambda t: t._schema, SchemaService.get_schema)
    put_schema = _to(lambda t: t._schema, SchemaService.put_schema)
    validate_schema = _to(lambda t: t._schema, SchemaService.validate_schema)
    audit_schema = _to(lambda t: t._schema, SchemaService.audit_schema)
    audit_consolidation = _to(lambda t: t._schema, SchemaService.audit_consolidation)
    audit_drift = _to(lambda t: t._schema, SchemaService.audit_drift)
    audit_unsourced = _to(lambda t: t._schema, SchemaService.audit_unsourced)

    # -- graph write (GraphWriteService) --------------------------------------------

    add_claims = _to(lambda t: t._graph_write, GraphWriteService.add_claims)
    retract_associations = _to(lambda t: t._graph_write, GraphWriteService.retract_associations)
    promote = _to(lambda t: t._graph_write, GraphWriteService.promote)
    add_alias = _to(lambda t: t._graph_write, GraphWriteService.add_alias)
    list_aliases = _to(lambda t: t._graph_write, GraphWriteService.list_aliases)
    remove_alias = _to(lambda t: t._graph_write, GraphWriteService.remove_alias)

    # -- graph read (GraphReadService) ----------------------------------------------

    query = _to(lambda t: t._graph_read, GraphReadService.query)
    describe = _to(lambda t: t._graph_read, GraphReadService.describe)
    activate = _to(lambda t: t._graph_read, GraphReadService.activate)
    explore = _to(lambda t: t._graph_read, GraphReadService.explore)
    explore_edges = _to(lambda t: t._graph_read, GraphReadService.explore_edges)
    paths = _to(lambda t: t._graph_read, GraphReadService.paths)
    unreachable_from = _to(lambda t: t._graph_read, GraphReadService.unreachable_from)
    unreachable_edges = _to(lambda t: t._graph_read, GraphReadService.unreachable_edges)
    labels = _to(lambda t: t._graph_read, GraphReadService.labels)
    association_citations = _to(lambda t: t._graph_read, GraphReadService.association_citations)

    # -- memory (MemoryService) -----------------------------------------------------

    remember = _to(lambda t: t._memory, MemoryService.remember)
    memories = _to(lambda t: t._memory, MemoryService.memories)
    add_turn = _to(lambda t: t._memory, MemoryService.add_turn)
    turns = _to(lambda t: t._memory, MemoryService.turns)
    list_sessions = _to(lambda t: t._memory, MemoryService.list_sessions)
    delete_session = _to(lambda t: t._memory, MemoryService.delete_session)

    # -- recall (RecallService) -----------------------------------------------------

    recall = _to(lambda t: t._recall, RecallService.recall)
    explain_recall = _to(lambda t: t._recall, RecallService.explain_recall)
    presets = _to(lambda t: t._recall, RecallService.presets)
    recall_traces = _to(lambda t: t._recall, RecallService.recall_traces)
    recall_trace = _to(lambda t: t._recall, RecallService.recall_trace)
    verify_citations = _to(lambda t: t._recall, RecallService.verify_citations)
    assemble_evidence = _to(lambda t: t._recall, RecallService.assemble_evidence)
    retrieve = _to(lambda t: t._recall, RecallService.retrieve)

    # -- derive (DeriveService) -----------------------------------------------------

    derive = _to(lambda t: t._derive, DeriveService.derive)
    derive_targets = _to(lambda t: t._derive, DeriveService.derive_targets)
    build_derived = _to(lambda t: t._derive, DeriveService.build_derived)
    build_communities = _to(lambda t: t._derive, DeriveService.build_communities)
    communities = _to(lambda t: t._derive, DeriveService.communities)
    search_communities = _to(lambda t: t._derive, DeriveService.search_communities)
    build_profiles = _to(lambda t: t._derive, DeriveService.build_profiles)
    profile = _to(lambda t: t._derive, DeriveService.profile)
    build_raptor = _to(lambda t: t._derive, DeriveService.build_raptor)
    raptor_tree = _to(lambda t: t._derive, DeriveService.raptor_tree)
    raptor_members = _to(lambda t: t._derive, DeriveService.raptor_members)

    # -- archive (ArchiveService) ---------------------------------------------------

    export_context = _to(lambda t: t._archive, ArchiveService.export_context)
    import_context = _to(lambda t: t._archive, ArchiveService.import_context)
    export_group = _to(lambda t: t._archive, ArchiveService.export_group)
    import_group = _to(lambda t: t._archive, ArchiveService.import_group)
    import_batches = _to(lambda t: t._archive, ArchiveService.import_batches)
    promote_sources = _to(lambda t: t._archive, ArchiveService.promote_sources)
