-- The schema at migration 0035 (from pg_dump --schema-only of a store the old chain
-- made; tests/schema_dump.py wrote it), then every table's declared rule.
SET LOCAL check_function_bodies = false;
CREATE FUNCTION public.tabane_hold_user(uid bigint) RETURNS text
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock_shared(8463219665059971072 + uid) THEN
    RETURN 'busy';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM users WHERE id = uid) THEN
    RETURN 'gone';
  END IF;
  RETURN 'ok';
END $$;

CREATE FUNCTION public.tabane_read_scopes() RETURNS text[]
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT coalesce(nullif(current_setting('tabane.read_scopes', true), ''), '{}')::text[] $$;

CREATE FUNCTION public.tabane_write_scopes() RETURNS text[]
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT coalesce(nullif(current_setting('tabane.write_scopes', true), ''), '{}')::text[] $$;

CREATE TABLE public.api_keys (
    id integer NOT NULL,
    user_id integer NOT NULL,
    prefix text NOT NULL,
    hash text NOT NULL,
    read_scopes text[],
    write_scopes text[],
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone
);

CREATE SEQUENCE public.api_keys_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.api_keys_id_seq OWNED BY public.api_keys.id;

CREATE TABLE public.associations (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    perspective text DEFAULT ''::text NOT NULL,
    subject text NOT NULL,
    label text NOT NULL,
    object text NOT NULL,
    weight double precision DEFAULT '0'::double precision NOT NULL,
    claims integer DEFAULT 0 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_associations_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.associations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.associations_id_seq OWNED BY public.associations.id;

CREATE TABLE public.bm25_corpus (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    paragraphs bigint DEFAULT '0'::bigint NOT NULL,
    total_length bigint DEFAULT '0'::bigint NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_bm25_corpus_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.bm25_corpus_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.bm25_corpus_id_seq OWNED BY public.bm25_corpus.id;

CREATE TABLE public.bm25_dead (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    ids bytea NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_bm25_dead_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.bm25_dead_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.bm25_dead_id_seq OWNED BY public.bm25_dead.id;

CREATE TABLE public.bm25_merged (
    context_id integer NOT NULL,
    term text NOT NULL COLLATE pg_catalog."C",
    scopes text[] NOT NULL,
    postings bytea NOT NULL,
    masked_upto bigint DEFAULT '0'::bigint NOT NULL,
    CONSTRAINT ck_bm25_merged_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);
ALTER TABLE ONLY public.bm25_merged ALTER COLUMN postings SET STORAGE EXTERNAL;

CREATE TABLE public.bm25_packs (
    source_pk bigint NOT NULL,
    term text NOT NULL COLLATE pg_catalog."C",
    context_id integer NOT NULL,
    postings bytea NOT NULL,
    scopes text[] NOT NULL,
    merged boolean DEFAULT false NOT NULL,
    CONSTRAINT ck_bm25_packs_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);
ALTER TABLE ONLY public.bm25_packs ALTER COLUMN postings SET STORAGE EXTERNAL;

CREATE TABLE public.bm25_terms (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    term text NOT NULL COLLATE pg_catalog."C",
    df bigint DEFAULT '0'::bigint NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_bm25_terms_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.bm25_terms_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.bm25_terms_id_seq OWNED BY public.bm25_terms.id;

CREATE TABLE public.claim_vectors (
    claim_id bigint NOT NULL,
    model text NOT NULL,
    context_id integer NOT NULL,
    dim integer NOT NULL,
    embedding public.vector NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_claim_vectors_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE TABLE public.claims (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    subject text,
    label text,
    object text,
    weight double precision,
    statement text,
    source text,
    paragraph integer,
    author text NOT NULL,
    role text,
    kind text DEFAULT 'world'::text NOT NULL,
    perspective text DEFAULT ''::text NOT NULL,
    valid_from timestamp with time zone,
    valid_until timestamp with time zone,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    closed_at timestamp with time zone,
    close_reason text,
    closed_by bigint,
    access_count integer DEFAULT 0 NOT NULL,
    last_access timestamp with time zone,
    scopes text[] NOT NULL,
    written_by bigint,
    valid_until_before timestamp with time zone,
    in_reply_to text,
    CONSTRAINT ck_claims_kind_known CHECK ((kind = ANY (ARRAY['world'::text, 'experience'::text, 'observation'::text, 'opinion'::text, 'preference'::text]))),
    CONSTRAINT ck_claims_says_something CHECK (((subject IS NOT NULL) OR (statement IS NOT NULL))),
    CONSTRAINT ck_claims_scopes_nonempty CHECK ((cardinality(scopes) >= 1)),
    CONSTRAINT ck_claims_triple_weighted CHECK (((subject IS NULL) OR (weight IS NOT NULL))),
    CONSTRAINT ck_claims_triple_whole CHECK ((((subject IS NULL) = (label IS NULL)) AND ((label IS NULL) = (object IS NULL)))),
    CONSTRAINT ck_claims_weight_bounded CHECK (((weight IS NULL) OR (abs(weight) <= ('1000000'::numeric)::double precision)))
);

CREATE SEQUENCE public.claims_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.claims_id_seq OWNED BY public.claims.id;

CREATE TABLE public.communities (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    level integer NOT NULL,
    ordinal integer NOT NULL,
    parent integer,
    size integer NOT NULL,
    summary text NOT NULL,
    summarizer text NOT NULL,
    model text,
    dim integer,
    embedding public.vector,
    graph_version text NOT NULL,
    graph_edges integer NOT NULL,
    built_at timestamp with time zone DEFAULT now() NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_communities_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.communities_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.communities_id_seq OWNED BY public.communities.id;

CREATE TABLE public.community_members (
    community_id bigint NOT NULL,
    concept text NOT NULL,
    context_id integer NOT NULL,
    rank integer NOT NULL,
    weight double precision NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_community_members_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE TABLE public.context_models (
    context_id integer NOT NULL,
    model text NOT NULL,
    dim integer NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.context_usage (
    context_id integer NOT NULL,
    reads bigint DEFAULT '0'::bigint NOT NULL,
    misses bigint DEFAULT '0'::bigint NOT NULL,
    writes bigint DEFAULT '0'::bigint NOT NULL,
    last_access timestamp with time zone
);

CREATE TABLE public.contexts (
    id integer NOT NULL,
    name text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    dice_floor double precision DEFAULT '0.3'::double precision NOT NULL,
    semantic_floor double precision,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_contexts_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.contexts_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.contexts_id_seq OWNED BY public.contexts.id;

CREATE TABLE public.grants (
    user_id integer NOT NULL,
    scope text NOT NULL,
    can_write boolean DEFAULT false NOT NULL
);

CREATE TABLE public.group_children (
    parent_id integer NOT NULL,
    child_id integer NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_group_children_not_self CHECK ((parent_id <> child_id)),
    CONSTRAINT ck_group_children_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE TABLE public.group_contexts (
    group_id integer NOT NULL,
    context_id integer NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_group_contexts_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE TABLE public.groups (
    id integer NOT NULL,
    name text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_groups_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.groups_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.groups_id_seq OWNED BY public.groups.id;

CREATE TABLE public.jobs (
    id bigint NOT NULL,
    kind text NOT NULL,
    context_id integer,
    source_pk bigint,
    scopes text[] NOT NULL,
    read_scopes text[] NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    done_items integer DEFAULT 0 NOT NULL,
    total_items integer DEFAULT 0 NOT NULL,
    last_error text,
    run_after timestamp with time zone DEFAULT now() NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    session_pk bigint,
    tables text[],
    CONSTRAINT ck_jobs_state_known CHECK ((state = ANY (ARRAY['queued'::text, 'running'::text, 'done'::text, 'failed'::text])))
);

CREATE SEQUENCE public.jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.jobs_id_seq OWNED BY public.jobs.id;

CREATE TABLE public.paragraph_vectors (
    paragraph_id bigint NOT NULL,
    ord integer NOT NULL,
    context_id integer NOT NULL,
    source_pk bigint NOT NULL,
    model text NOT NULL,
    dim integer NOT NULL,
    embedding public.vector NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_paragraph_vectors_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE TABLE public.paragraphs (
    id bigint NOT NULL,
    source_pk bigint NOT NULL,
    context_id integer NOT NULL,
    idx integer NOT NULL,
    text text NOT NULL,
    section_id bigint,
    section_path text[] DEFAULT '{}'::text[] NOT NULL,
    locator jsonb,
    questions text[] DEFAULT '{}'::text[] NOT NULL,
    scopes text[] NOT NULL,
    token_count integer DEFAULT 0 NOT NULL,
    kind text DEFAULT 'text'::text NOT NULL,
    CONSTRAINT ck_paragraphs_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.paragraphs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.paragraphs_id_seq OWNED BY public.paragraphs.id;

CREATE TABLE public.profiles (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    concept text NOT NULL,
    weight double precision NOT NULL,
    summary text NOT NULL,
    summarizer text NOT NULL,
    fingerprint text NOT NULL,
    refs text[] NOT NULL,
    model text,
    dim integer,
    embedding public.vector,
    claim_version text NOT NULL,
    built_at timestamp with time zone DEFAULT now() NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_profiles_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.profiles_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.profiles_id_seq OWNED BY public.profiles.id;

CREATE TABLE public.raptor_members (
    node_id bigint NOT NULL,
    ref text NOT NULL,
    context_id integer NOT NULL,
    rank integer NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_raptor_members_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE TABLE public.raptor_nodes (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    level integer NOT NULL,
    ordinal integer NOT NULL,
    parent integer,
    size integer NOT NULL,
    leaves integer NOT NULL,
    summary text NOT NULL,
    summarizer text NOT NULL,
    fingerprint text NOT NULL,
    refs text[] NOT NULL,
    model text,
    dim integer,
    embedding public.vector,
    corpus_version text NOT NULL,
    built_at timestamp with time zone DEFAULT now() NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_raptor_nodes_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.raptor_nodes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.raptor_nodes_id_seq OWNED BY public.raptor_nodes.id;

CREATE TABLE public.recall_traces (
    id bigint NOT NULL,
    user_id integer NOT NULL,
    question text NOT NULL,
    plan text NOT NULL,
    trace jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_recall_traces_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.recall_traces_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.recall_traces_id_seq OWNED BY public.recall_traces.id;

CREATE TABLE public.scopes (
    name text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.sections (
    id bigint NOT NULL,
    source_pk bigint NOT NULL,
    context_id integer NOT NULL,
    ordinal integer NOT NULL,
    parent_id bigint,
    path text[] NOT NULL,
    title text NOT NULL,
    level integer NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_sections_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.sections_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.sections_id_seq OWNED BY public.sections.id;

CREATE TABLE public.session_turns (
    id bigint NOT NULL,
    session_pk bigint NOT NULL,
    seq integer NOT NULL,
    speaker text NOT NULL,
    role text DEFAULT 'user'::text NOT NULL,
    text text NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_session_turns_scopes_nonempty CHECK ((cardinality(scopes) >= 1)),
    CONSTRAINT ck_session_turns_text_nonempty CHECK ((text <> ''::text))
);

CREATE SEQUENCE public.session_turns_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.session_turns_id_seq OWNED BY public.session_turns.id;

CREATE TABLE public.sessions (
    id bigint NOT NULL,
    user_id integer NOT NULL,
    name text NOT NULL,
    turns integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_sessions_name_nonempty CHECK ((name <> ''::text)),
    CONSTRAINT ck_sessions_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.sessions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.sessions_id_seq OWNED BY public.sessions.id;

CREATE TABLE public.sources (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    source_id text NOT NULL,
    title text DEFAULT ''::text NOT NULL,
    format text DEFAULT 'text'::text NOT NULL,
    date timestamp with time zone,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    area text,
    state text,
    content_hash text NOT NULL,
    byte_size bigint DEFAULT '0'::bigint NOT NULL,
    paragraph_count integer DEFAULT 0 NOT NULL,
    stored_at timestamp with time zone DEFAULT now() NOT NULL,
    retracted_at timestamp with time zone,
    retract_reason text,
    origin text,
    scopes text[] NOT NULL,
    raw_hash text,
    title_key text DEFAULT ''::text NOT NULL,
    outline text[] DEFAULT '{}'::text[] NOT NULL,
    area_key text DEFAULT ''::text NOT NULL,
    name_key text DEFAULT ''::text NOT NULL,
    CONSTRAINT ck_sources_scopes_nonempty CHECK ((cardinality(scopes) >= 1)),
    CONSTRAINT ck_sources_state_known CHECK ((state = ANY (ARRAY['active'::text, 'waiting'::text, 'someday'::text, 'done'::text, 'archived'::text])))
);

CREATE SEQUENCE public.sources_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.sources_id_seq OWNED BY public.sources.id;

CREATE TABLE public.turn_vectors (
    turn_id bigint NOT NULL,
    model text NOT NULL,
    session_pk bigint NOT NULL,
    dim integer NOT NULL,
    embedding public.vector NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_turn_vectors_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE TABLE public.users (
    id integer NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE public.users_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.users_id_seq OWNED BY public.users.id;

CREATE TABLE public.vocabulary (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    kind text NOT NULL,
    name text NOT NULL,
    norm text NOT NULL,
    key text NOT NULL COLLATE pg_catalog."C",
    grams integer DEFAULT 0 NOT NULL,
    alias_of text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    scopes text[] NOT NULL,
    written_by bigint,
    CONSTRAINT ck_vocabulary_kind_known CHECK ((kind = ANY (ARRAY['concept'::text, 'label'::text]))),
    CONSTRAINT ck_vocabulary_name_nonempty CHECK ((name <> ''::text)),
    CONSTRAINT ck_vocabulary_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE TABLE public.vocabulary_gram_packs (
    context_id integer NOT NULL,
    kind text NOT NULL,
    gram text NOT NULL COLLATE pg_catalog."C",
    scopes text[] NOT NULL,
    records bytea NOT NULL,
    CONSTRAINT ck_vocabulary_gram_packs_kind_known CHECK ((kind = ANY (ARRAY['concept'::text, 'label'::text]))),
    CONSTRAINT ck_vocabulary_gram_packs_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);
ALTER TABLE ONLY public.vocabulary_gram_packs ALTER COLUMN records SET STORAGE EXTERNAL;

CREATE TABLE public.vocabulary_gram_stats (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    kind text NOT NULL,
    gram text NOT NULL COLLATE pg_catalog."C",
    df bigint DEFAULT '0'::bigint NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_vocabulary_gram_stats_kind_known CHECK ((kind = ANY (ARRAY['concept'::text, 'label'::text]))),
    CONSTRAINT ck_vocabulary_gram_stats_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.vocabulary_gram_stats_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.vocabulary_gram_stats_id_seq OWNED BY public.vocabulary_gram_stats.id;

CREATE TABLE public.vocabulary_grams (
    entry_id bigint NOT NULL,
    gram text NOT NULL COLLATE pg_catalog."C",
    context_id integer NOT NULL,
    kind text NOT NULL,
    scopes text[] NOT NULL,
    size integer DEFAULT 0 NOT NULL,
    merged boolean DEFAULT false NOT NULL,
    CONSTRAINT ck_vocabulary_grams_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.vocabulary_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.vocabulary_id_seq OWNED BY public.vocabulary.id;

CREATE TABLE public.vocabulary_sizes (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    kind text NOT NULL,
    entries bigint DEFAULT '0'::bigint NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_vocabulary_sizes_kind_known CHECK ((kind = ANY (ARRAY['concept'::text, 'label'::text]))),
    CONSTRAINT ck_vocabulary_sizes_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

CREATE SEQUENCE public.vocabulary_sizes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.vocabulary_sizes_id_seq OWNED BY public.vocabulary_sizes.id;

CREATE TABLE public.vocabulary_vectors (
    entry_id bigint NOT NULL,
    model text NOT NULL,
    context_id integer NOT NULL,
    dim integer NOT NULL,
    gloss text NOT NULL,
    embedding public.vector NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    scopes text[] NOT NULL,
    kind text DEFAULT 'concept'::text NOT NULL,
    CONSTRAINT ck_vocabulary_vectors_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

ALTER TABLE ONLY public.api_keys ALTER COLUMN id SET DEFAULT nextval('public.api_keys_id_seq'::regclass);

ALTER TABLE ONLY public.associations ALTER COLUMN id SET DEFAULT nextval('public.associations_id_seq'::regclass);

ALTER TABLE ONLY public.bm25_corpus ALTER COLUMN id SET DEFAULT nextval('public.bm25_corpus_id_seq'::regclass);

ALTER TABLE ONLY public.bm25_dead ALTER COLUMN id SET DEFAULT nextval('public.bm25_dead_id_seq'::regclass);

ALTER TABLE ONLY public.bm25_terms ALTER COLUMN id SET DEFAULT nextval('public.bm25_terms_id_seq'::regclass);

ALTER TABLE ONLY public.claims ALTER COLUMN id SET DEFAULT nextval('public.claims_id_seq'::regclass);

ALTER TABLE ONLY public.communities ALTER COLUMN id SET DEFAULT nextval('public.communities_id_seq'::regclass);

ALTER TABLE ONLY public.contexts ALTER COLUMN id SET DEFAULT nextval('public.contexts_id_seq'::regclass);

ALTER TABLE ONLY public.groups ALTER COLUMN id SET DEFAULT nextval('public.groups_id_seq'::regclass);

ALTER TABLE ONLY public.jobs ALTER COLUMN id SET DEFAULT nextval('public.jobs_id_seq'::regclass);

ALTER TABLE ONLY public.paragraphs ALTER COLUMN id SET DEFAULT nextval('public.paragraphs_id_seq'::regclass);

ALTER TABLE ONLY public.profiles ALTER COLUMN id SET DEFAULT nextval('public.profiles_id_seq'::regclass);

ALTER TABLE ONLY public.raptor_nodes ALTER COLUMN id SET DEFAULT nextval('public.raptor_nodes_id_seq'::regclass);

ALTER TABLE ONLY public.recall_traces ALTER COLUMN id SET DEFAULT nextval('public.recall_traces_id_seq'::regclass);

ALTER TABLE ONLY public.sections ALTER COLUMN id SET DEFAULT nextval('public.sections_id_seq'::regclass);

ALTER TABLE ONLY public.session_turns ALTER COLUMN id SET DEFAULT nextval('public.session_turns_id_seq'::regclass);

ALTER TABLE ONLY public.sessions ALTER COLUMN id SET DEFAULT nextval('public.sessions_id_seq'::regclass);

ALTER TABLE ONLY public.sources ALTER COLUMN id SET DEFAULT nextval('public.sources_id_seq'::regclass);

ALTER TABLE ONLY public.users ALTER COLUMN id SET DEFAULT nextval('public.users_id_seq'::regclass);

ALTER TABLE ONLY public.vocabulary ALTER COLUMN id SET DEFAULT nextval('public.vocabulary_id_seq'::regclass);

ALTER TABLE ONLY public.vocabulary_gram_stats ALTER COLUMN id SET DEFAULT nextval('public.vocabulary_gram_stats_id_seq'::regclass);

ALTER TABLE ONLY public.vocabulary_sizes ALTER COLUMN id SET DEFAULT nextval('public.vocabulary_sizes_id_seq'::regclass);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT pk_api_keys PRIMARY KEY (id);

ALTER TABLE ONLY public.associations
    ADD CONSTRAINT pk_associations PRIMARY KEY (id);

ALTER TABLE ONLY public.bm25_corpus
    ADD CONSTRAINT pk_bm25_corpus PRIMARY KEY (id);

ALTER TABLE ONLY public.bm25_dead
    ADD CONSTRAINT pk_bm25_dead PRIMARY KEY (id);

ALTER TABLE ONLY public.bm25_merged
    ADD CONSTRAINT pk_bm25_merged PRIMARY KEY (context_id, term, scopes);

ALTER TABLE ONLY public.bm25_packs
    ADD CONSTRAINT pk_bm25_packs PRIMARY KEY (source_pk, term);

ALTER TABLE ONLY public.bm25_terms
    ADD CONSTRAINT pk_bm25_terms PRIMARY KEY (id);

ALTER TABLE ONLY public.claim_vectors
    ADD CONSTRAINT pk_claim_vectors PRIMARY KEY (claim_id, model);

ALTER TABLE ONLY public.claims
    ADD CONSTRAINT pk_claims PRIMARY KEY (id);

ALTER TABLE ONLY public.communities
    ADD CONSTRAINT pk_communities PRIMARY KEY (id);

ALTER TABLE ONLY public.community_members
    ADD CONSTRAINT pk_community_members PRIMARY KEY (community_id, concept);

ALTER TABLE ONLY public.context_models
    ADD CONSTRAINT pk_context_models PRIMARY KEY (context_id, model);

ALTER TABLE ONLY public.context_usage
    ADD CONSTRAINT pk_context_usage PRIMARY KEY (context_id);

ALTER TABLE ONLY public.contexts
    ADD CONSTRAINT pk_contexts PRIMARY KEY (id);

ALTER TABLE ONLY public.grants
    ADD CONSTRAINT pk_grants PRIMARY KEY (user_id, scope);

ALTER TABLE ONLY public.group_children
    ADD CONSTRAINT pk_group_children PRIMARY KEY (parent_id, child_id);

ALTER TABLE ONLY public.group_contexts
    ADD CONSTRAINT pk_group_contexts PRIMARY KEY (group_id, context_id);

ALTER TABLE ONLY public.groups
    ADD CONSTRAINT pk_groups PRIMARY KEY (id);

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT pk_jobs PRIMARY KEY (id);

ALTER TABLE ONLY public.paragraph_vectors
    ADD CONSTRAINT pk_paragraph_vectors PRIMARY KEY (paragraph_id, ord, model);

ALTER TABLE ONLY public.paragraphs
    ADD CONSTRAINT pk_paragraphs PRIMARY KEY (id);

ALTER TABLE ONLY public.profiles
    ADD CONSTRAINT pk_profiles PRIMARY KEY (id);

ALTER TABLE ONLY public.raptor_members
    ADD CONSTRAINT pk_raptor_members PRIMARY KEY (node_id, ref);

ALTER TABLE ONLY public.raptor_nodes
    ADD CONSTRAINT pk_raptor_nodes PRIMARY KEY (id);

ALTER TABLE ONLY public.recall_traces
    ADD CONSTRAINT pk_recall_traces PRIMARY KEY (id);

ALTER TABLE ONLY public.scopes
    ADD CONSTRAINT pk_scopes PRIMARY KEY (name);

ALTER TABLE ONLY public.sections
    ADD CONSTRAINT pk_sections PRIMARY KEY (id);

ALTER TABLE ONLY public.session_turns
    ADD CONSTRAINT pk_session_turns PRIMARY KEY (id);

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT pk_sessions PRIMARY KEY (id);

ALTER TABLE ONLY public.sources
    ADD CONSTRAINT pk_sources PRIMARY KEY (id);

ALTER TABLE ONLY public.turn_vectors
    ADD CONSTRAINT pk_turn_vectors PRIMARY KEY (turn_id, model);

ALTER TABLE ONLY public.users
    ADD CONSTRAINT pk_users PRIMARY KEY (id);

ALTER TABLE ONLY public.vocabulary
    ADD CONSTRAINT pk_vocabulary PRIMARY KEY (id);

ALTER TABLE ONLY public.vocabulary_gram_packs
    ADD CONSTRAINT pk_vocabulary_gram_packs PRIMARY KEY (context_id, kind, gram, scopes);

ALTER TABLE ONLY public.vocabulary_gram_stats
    ADD CONSTRAINT pk_vocabulary_gram_stats PRIMARY KEY (id);

ALTER TABLE ONLY public.vocabulary_grams
    ADD CONSTRAINT pk_vocabulary_grams PRIMARY KEY (entry_id, gram);

ALTER TABLE ONLY public.vocabulary_sizes
    ADD CONSTRAINT pk_vocabulary_sizes PRIMARY KEY (id);

ALTER TABLE ONLY public.vocabulary_vectors
    ADD CONSTRAINT pk_vocabulary_vectors PRIMARY KEY (entry_id, model);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT uq_api_keys_prefix UNIQUE (prefix);

ALTER TABLE ONLY public.associations
    ADD CONSTRAINT uq_associations_context_id_perspective_subject_label_ob_8bf1 UNIQUE (context_id, perspective, subject, label, object, scopes);

ALTER TABLE ONLY public.bm25_corpus
    ADD CONSTRAINT uq_bm25_corpus_context_id_scopes UNIQUE (context_id, scopes);

ALTER TABLE ONLY public.bm25_terms
    ADD CONSTRAINT uq_bm25_terms_context_id_term_scopes UNIQUE (context_id, term, scopes);

ALTER TABLE ONLY public.claims
    ADD CONSTRAINT uq_claims_id_scopes UNIQUE (id, scopes);

ALTER TABLE ONLY public.communities
    ADD CONSTRAINT uq_communities_context_id_level_ordinal_scopes UNIQUE (context_id, level, ordinal, scopes);

ALTER TABLE ONLY public.communities
    ADD CONSTRAINT uq_communities_id_scopes UNIQUE (id, scopes);

ALTER TABLE ONLY public.contexts
    ADD CONSTRAINT uq_contexts_name UNIQUE (name);

ALTER TABLE ONLY public.groups
    ADD CONSTRAINT uq_groups_id_scopes UNIQUE (id, scopes);

ALTER TABLE ONLY public.groups
    ADD CONSTRAINT uq_groups_name UNIQUE (name);

ALTER TABLE ONLY public.paragraphs
    ADD CONSTRAINT uq_paragraphs_id_scopes UNIQUE (id, scopes);

ALTER TABLE ONLY public.paragraphs
    ADD CONSTRAINT uq_paragraphs_source_pk_idx UNIQUE (source_pk, idx);

ALTER TABLE ONLY public.profiles
    ADD CONSTRAINT uq_profiles_context_id_concept_scopes UNIQUE (context_id, concept, scopes);

ALTER TABLE ONLY public.raptor_nodes
    ADD CONSTRAINT uq_raptor_nodes_context_id_level_ordinal_scopes UNIQUE (context_id, level, ordinal, scopes);

ALTER TABLE ONLY public.raptor_nodes
    ADD CONSTRAINT uq_raptor_nodes_id_scopes UNIQUE (id, scopes);

ALTER TABLE ONLY public.sections
    ADD CONSTRAINT uq_sections_source_pk_ordinal UNIQUE (source_pk, ordinal);

ALTER TABLE ONLY public.session_turns
    ADD CONSTRAINT uq_session_turns_id_scopes UNIQUE (id, scopes);

ALTER TABLE ONLY public.session_turns
    ADD CONSTRAINT uq_session_turns_session_pk_seq UNIQUE (session_pk, seq);

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT uq_sessions_id_scopes UNIQUE (id, scopes);

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT uq_sessions_user_id_name UNIQUE (user_id, name);

ALTER TABLE ONLY public.sources
    ADD CONSTRAINT uq_sources_context_id_source_id UNIQUE (context_id, source_id);

ALTER TABLE ONLY public.sources
    ADD CONSTRAINT uq_sources_id_scopes UNIQUE (id, scopes);

ALTER TABLE ONLY public.users
    ADD CONSTRAINT uq_users_name UNIQUE (name);

ALTER TABLE ONLY public.vocabulary
    ADD CONSTRAINT uq_vocabulary_context_id_kind_name_scopes UNIQUE (context_id, kind, name, scopes);

ALTER TABLE ONLY public.vocabulary_gram_stats
    ADD CONSTRAINT uq_vocabulary_gram_stats_context_id_kind_gram_scopes UNIQUE (context_id, kind, gram, scopes);

ALTER TABLE ONLY public.vocabulary
    ADD CONSTRAINT uq_vocabulary_id_scopes UNIQUE (id, scopes);

ALTER TABLE ONLY public.vocabulary_sizes
    ADD CONSTRAINT uq_vocabulary_sizes_context_id_kind_scopes UNIQUE (context_id, kind, scopes);

CREATE INDEX ix_api_keys_user_id ON public.api_keys USING btree (user_id);

CREATE INDEX ix_associations_label ON public.associations USING btree (context_id, label);

CREATE INDEX ix_associations_object ON public.associations USING btree (context_id, object);

CREATE INDEX ix_associations_subject ON public.associations USING btree (context_id, subject);

CREATE INDEX ix_bm25_dead_context ON public.bm25_dead USING btree (context_id);

CREATE INDEX ix_bm25_packs_fresh ON public.bm25_packs USING btree (context_id, term) WHERE (NOT merged);

CREATE INDEX ix_bm25_packs_lookup ON public.bm25_packs USING btree (context_id, term);

CREATE INDEX ix_claim_vectors_context_id ON public.claim_vectors USING btree (context_id);

CREATE INDEX ix_claim_vectors_hnsw_1024 ON public.claim_vectors USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1024);

CREATE INDEX ix_claim_vectors_hnsw_1536 ON public.claim_vectors USING hnsw (((embedding)::public.vector(1536)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1536);

CREATE INDEX ix_claim_vectors_hnsw_384 ON public.claim_vectors USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 384);

CREATE INDEX ix_claim_vectors_hnsw_512 ON public.claim_vectors USING hnsw (((embedding)::public.vector(512)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 512);

CREATE INDEX ix_claim_vectors_hnsw_768 ON public.claim_vectors USING hnsw (((embedding)::public.vector(768)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 768);

CREATE INDEX ix_claims_scopes ON public.claims USING gin (scopes);

CREATE INDEX ix_claims_source ON public.claims USING btree (context_id, source);

CREATE INDEX ix_claims_triple ON public.claims USING btree (context_id, subject, label, object);

CREATE INDEX ix_communities_hnsw_1024 ON public.communities USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1024);

CREATE INDEX ix_communities_hnsw_1536 ON public.communities USING hnsw (((embedding)::public.vector(1536)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1536);

CREATE INDEX ix_communities_hnsw_384 ON public.communities USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 384);

CREATE INDEX ix_communities_hnsw_512 ON public.communities USING hnsw (((embedding)::public.vector(512)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 512);

CREATE INDEX ix_communities_hnsw_768 ON public.communities USING hnsw (((embedding)::public.vector(768)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 768);

CREATE INDEX ix_communities_scopes ON public.communities USING gin (scopes);

CREATE INDEX ix_community_members_concept ON public.community_members USING btree (context_id, concept);

CREATE INDEX ix_contexts_scopes ON public.contexts USING gin (scopes);

CREATE INDEX ix_group_children_child_id ON public.group_children USING btree (child_id);

CREATE INDEX ix_group_children_scopes ON public.group_children USING gin (scopes);

CREATE INDEX ix_group_contexts_context_id ON public.group_contexts USING btree (context_id);

CREATE INDEX ix_group_contexts_scopes ON public.group_contexts USING gin (scopes);

CREATE INDEX ix_groups_scopes ON public.groups USING gin (scopes);

CREATE INDEX ix_jobs_ready ON public.jobs USING btree (state, run_after);

CREATE INDEX ix_jobs_session_pk ON public.jobs USING btree (session_pk);

CREATE INDEX ix_paragraph_vectors_context_id ON public.paragraph_vectors USING btree (context_id);

CREATE INDEX ix_paragraph_vectors_hnsw_1024 ON public.paragraph_vectors USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1024);

CREATE INDEX ix_paragraph_vectors_hnsw_1536 ON public.paragraph_vectors USING hnsw (((embedding)::public.vector(1536)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1536);

CREATE INDEX ix_paragraph_vectors_hnsw_384 ON public.paragraph_vectors USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 384);

CREATE INDEX ix_paragraph_vectors_hnsw_512 ON public.paragraph_vectors USING hnsw (((embedding)::public.vector(512)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 512);

CREATE INDEX ix_paragraph_vectors_hnsw_768 ON public.paragraph_vectors USING hnsw (((embedding)::public.vector(768)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 768);

CREATE INDEX ix_paragraph_vectors_source_pk ON public.paragraph_vectors USING btree (source_pk);

CREATE INDEX ix_paragraphs_context_id ON public.paragraphs USING btree (context_id);

CREATE INDEX ix_paragraphs_scopes ON public.paragraphs USING gin (scopes);

CREATE INDEX ix_profiles_hnsw_1024 ON public.profiles USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1024);

CREATE INDEX ix_profiles_hnsw_1536 ON public.profiles USING hnsw (((embedding)::public.vector(1536)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1536);

CREATE INDEX ix_profiles_hnsw_384 ON public.profiles USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 384);

CREATE INDEX ix_profiles_hnsw_512 ON public.profiles USING hnsw (((embedding)::public.vector(512)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 512);

CREATE INDEX ix_profiles_hnsw_768 ON public.profiles USING hnsw (((embedding)::public.vector(768)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 768);

CREATE INDEX ix_profiles_scopes ON public.profiles USING gin (scopes);

CREATE INDEX ix_raptor_members_ref ON public.raptor_members USING btree (context_id, ref);

CREATE INDEX ix_raptor_nodes_hnsw_1024 ON public.raptor_nodes USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE ((dim = 1024) AND (level >= 2));

CREATE INDEX ix_raptor_nodes_hnsw_1536 ON public.raptor_nodes USING hnsw (((embedding)::public.vector(1536)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE ((dim = 1536) AND (level >= 2));

CREATE INDEX ix_raptor_nodes_hnsw_384 ON public.raptor_nodes USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE ((dim = 384) AND (level >= 2));

CREATE INDEX ix_raptor_nodes_hnsw_512 ON public.raptor_nodes USING hnsw (((embedding)::public.vector(512)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE ((dim = 512) AND (level >= 2));

CREATE INDEX ix_raptor_nodes_hnsw_768 ON public.raptor_nodes USING hnsw (((embedding)::public.vector(768)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE ((dim = 768) AND (level >= 2));

CREATE INDEX ix_raptor_nodes_scopes ON public.raptor_nodes USING gin (scopes);

CREATE INDEX ix_recall_traces_recent ON public.recall_traces USING btree (user_id, created_at);

CREATE INDEX ix_recall_traces_scopes ON public.recall_traces USING gin (scopes);

CREATE INDEX ix_sections_context_id ON public.sections USING btree (context_id);

CREATE INDEX ix_sections_scopes ON public.sections USING gin (scopes);

CREATE INDEX ix_session_turns_recent ON public.session_turns USING btree (session_pk, at);

CREATE INDEX ix_session_turns_scopes ON public.session_turns USING gin (scopes);

CREATE INDEX ix_sessions_scopes ON public.sessions USING gin (scopes);

CREATE INDEX ix_sources_scopes ON public.sources USING gin (scopes);

CREATE INDEX ix_sources_title_key ON public.sources USING btree (context_id, title_key);

CREATE INDEX ix_turn_vectors_session_pk ON public.turn_vectors USING btree (session_pk);

CREATE INDEX ix_vocabulary_grams_fresh ON public.vocabulary_grams USING btree (context_id, kind, gram) INCLUDE (entry_id, scopes, size) WHERE (NOT merged);

CREATE INDEX ix_vocabulary_grams_lookup ON public.vocabulary_grams USING btree (context_id, kind, gram) INCLUDE (entry_id, scopes, size);

CREATE INDEX ix_vocabulary_key ON public.vocabulary USING btree (context_id, kind, key);

CREATE INDEX ix_vocabulary_scopes ON public.vocabulary USING gin (scopes);

CREATE INDEX ix_vocabulary_vectors_context_id ON public.vocabulary_vectors USING btree (context_id);

CREATE INDEX ix_vocabulary_vectors_hnsw_1024 ON public.vocabulary_vectors USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1024);

CREATE INDEX ix_vocabulary_vectors_hnsw_1536 ON public.vocabulary_vectors USING hnsw (((embedding)::public.vector(1536)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1536);

CREATE INDEX ix_vocabulary_vectors_hnsw_384 ON public.vocabulary_vectors USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 384);

CREATE INDEX ix_vocabulary_vectors_hnsw_512 ON public.vocabulary_vectors USING hnsw (((embedding)::public.vector(512)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 512);

CREATE INDEX ix_vocabulary_vectors_hnsw_768 ON public.vocabulary_vectors USING hnsw (((embedding)::public.vector(768)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 768);

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT fk_api_keys_user_id_users FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.associations
    ADD CONSTRAINT fk_associations_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.bm25_corpus
    ADD CONSTRAINT fk_bm25_corpus_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.bm25_dead
    ADD CONSTRAINT fk_bm25_dead_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.bm25_merged
    ADD CONSTRAINT fk_bm25_merged_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.bm25_packs
    ADD CONSTRAINT fk_bm25_packs_source_pk_sources FOREIGN KEY (source_pk, scopes) REFERENCES public.sources(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.bm25_terms
    ADD CONSTRAINT fk_bm25_terms_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.claim_vectors
    ADD CONSTRAINT fk_claim_vectors_claim_id_claims FOREIGN KEY (claim_id, scopes) REFERENCES public.claims(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.claims
    ADD CONSTRAINT fk_claims_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.communities
    ADD CONSTRAINT fk_communities_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.community_members
    ADD CONSTRAINT fk_community_members_community_id_communities FOREIGN KEY (community_id, scopes) REFERENCES public.communities(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.context_models
    ADD CONSTRAINT fk_context_models_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.context_usage
    ADD CONSTRAINT fk_context_usage_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.grants
    ADD CONSTRAINT fk_grants_scope_scopes FOREIGN KEY (scope) REFERENCES public.scopes(name) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.grants
    ADD CONSTRAINT fk_grants_user_id_users FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.group_children
    ADD CONSTRAINT fk_group_children_child_id_groups FOREIGN KEY (child_id) REFERENCES public.groups(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.group_children
    ADD CONSTRAINT fk_group_children_parent_id_groups FOREIGN KEY (parent_id, scopes) REFERENCES public.groups(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.group_contexts
    ADD CONSTRAINT fk_group_contexts_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.group_contexts
    ADD CONSTRAINT fk_group_contexts_group_id_groups FOREIGN KEY (group_id, scopes) REFERENCES public.groups(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT fk_jobs_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT fk_jobs_session_pk_sessions FOREIGN KEY (session_pk) REFERENCES public.sessions(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT fk_jobs_source_pk_sources FOREIGN KEY (source_pk) REFERENCES public.sources(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.paragraph_vectors
    ADD CONSTRAINT fk_paragraph_vectors_paragraph_id_paragraphs FOREIGN KEY (paragraph_id, scopes) REFERENCES public.paragraphs(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.paragraphs
    ADD CONSTRAINT fk_paragraphs_section_id_sections FOREIGN KEY (section_id) REFERENCES public.sections(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.paragraphs
    ADD CONSTRAINT fk_paragraphs_source_pk_sources FOREIGN KEY (source_pk, scopes) REFERENCES public.sources(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.profiles
    ADD CONSTRAINT fk_profiles_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.raptor_members
    ADD CONSTRAINT fk_raptor_members_node_id_raptor_nodes FOREIGN KEY (node_id, scopes) REFERENCES public.raptor_nodes(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.raptor_nodes
    ADD CONSTRAINT fk_raptor_nodes_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.recall_traces
    ADD CONSTRAINT fk_recall_traces_user_id_users FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.sections
    ADD CONSTRAINT fk_sections_parent_id_sections FOREIGN KEY (parent_id) REFERENCES public.sections(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.sections
    ADD CONSTRAINT fk_sections_source_pk_sources FOREIGN KEY (source_pk, scopes) REFERENCES public.sources(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.session_turns
    ADD CONSTRAINT fk_session_turns_session_pk_sessions FOREIGN KEY (session_pk, scopes) REFERENCES public.sessions(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT fk_sessions_user_id_users FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.sources
    ADD CONSTRAINT fk_sources_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.turn_vectors
    ADD CONSTRAINT fk_turn_vectors_turn_id_session_turns FOREIGN KEY (turn_id, scopes) REFERENCES public.session_turns(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.vocabulary
    ADD CONSTRAINT fk_vocabulary_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.vocabulary_gram_packs
    ADD CONSTRAINT fk_vocabulary_gram_packs_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.vocabulary_gram_stats
    ADD CONSTRAINT fk_vocabulary_gram_stats_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.vocabulary_grams
    ADD CONSTRAINT fk_vocabulary_grams_entry_id_vocabulary FOREIGN KEY (entry_id, scopes) REFERENCES public.vocabulary(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY public.vocabulary_sizes
    ADD CONSTRAINT fk_vocabulary_sizes_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.vocabulary_vectors
    ADD CONSTRAINT fk_vocabulary_vectors_entry_id_vocabulary FOREIGN KEY (entry_id, scopes) REFERENCES public.vocabulary(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;





































































GRANT ALL ON FUNCTION public.tabane_hold_user(uid bigint) TO tabane_app;


ALTER TABLE api_keys NO FORCE ROW LEVEL SECURITY;
ALTER TABLE api_keys DISABLE ROW LEVEL SECURITY;

REVOKE ALL ON api_keys FROM tabane_app;
GRANT SELECT ON api_keys TO tabane_app;

ALTER TABLE associations ENABLE ROW LEVEL SECURITY;
ALTER TABLE associations FORCE ROW LEVEL SECURITY;
CREATE POLICY associations_select ON associations FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY associations_insert ON associations FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY associations_update ON associations FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY associations_delete ON associations FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON associations FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON associations TO tabane_app;

ALTER TABLE bm25_corpus ENABLE ROW LEVEL SECURITY;
ALTER TABLE bm25_corpus FORCE ROW LEVEL SECURITY;
CREATE POLICY bm25_corpus_select ON bm25_corpus FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY bm25_corpus_insert ON bm25_corpus FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY bm25_corpus_update ON bm25_corpus FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY bm25_corpus_delete ON bm25_corpus FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON bm25_corpus FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON bm25_corpus TO tabane_app;

ALTER TABLE bm25_dead ENABLE ROW LEVEL SECURITY;
ALTER TABLE bm25_dead FORCE ROW LEVEL SECURITY;
CREATE POLICY bm25_dead_select ON bm25_dead FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY bm25_dead_insert ON bm25_dead FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY bm25_dead_update ON bm25_dead FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY bm25_dead_delete ON bm25_dead FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON bm25_dead FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON bm25_dead TO tabane_app;

ALTER TABLE bm25_merged ENABLE ROW LEVEL SECURITY;
ALTER TABLE bm25_merged FORCE ROW LEVEL SECURITY;
CREATE POLICY bm25_merged_select ON bm25_merged FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY bm25_merged_insert ON bm25_merged FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY bm25_merged_update ON bm25_merged FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY bm25_merged_delete ON bm25_merged FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON bm25_merged FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON bm25_merged TO tabane_app;

ALTER TABLE bm25_packs ENABLE ROW LEVEL SECURITY;
ALTER TABLE bm25_packs FORCE ROW LEVEL SECURITY;
CREATE POLICY bm25_packs_select ON bm25_packs FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY bm25_packs_insert ON bm25_packs FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY bm25_packs_update ON bm25_packs FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY bm25_packs_delete ON bm25_packs FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON bm25_packs FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON bm25_packs TO tabane_app;

ALTER TABLE bm25_terms ENABLE ROW LEVEL SECURITY;
ALTER TABLE bm25_terms FORCE ROW LEVEL SECURITY;
CREATE POLICY bm25_terms_select ON bm25_terms FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY bm25_terms_insert ON bm25_terms FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY bm25_terms_update ON bm25_terms FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY bm25_terms_delete ON bm25_terms FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON bm25_terms FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON bm25_terms TO tabane_app;

ALTER TABLE claim_vectors ENABLE ROW LEVEL SECURITY;
ALTER TABLE claim_vectors FORCE ROW LEVEL SECURITY;
CREATE POLICY claim_vectors_select ON claim_vectors FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY claim_vectors_insert ON claim_vectors FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY claim_vectors_update ON claim_vectors FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY claim_vectors_delete ON claim_vectors FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON claim_vectors FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON claim_vectors TO tabane_app;

ALTER TABLE claims ENABLE ROW LEVEL SECURITY;
ALTER TABLE claims FORCE ROW LEVEL SECURITY;
CREATE POLICY claims_select ON claims FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY claims_insert ON claims FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY claims_update ON claims FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY claims_delete ON claims FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON claims FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON claims TO tabane_app;

ALTER TABLE communities ENABLE ROW LEVEL SECURITY;
ALTER TABLE communities FORCE ROW LEVEL SECURITY;
CREATE POLICY communities_select ON communities FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY communities_insert ON communities FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY communities_update ON communities FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY communities_delete ON communities FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON communities FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON communities TO tabane_app;

ALTER TABLE community_members ENABLE ROW LEVEL SECURITY;
ALTER TABLE community_members FORCE ROW LEVEL SECURITY;
CREATE POLICY community_members_select ON community_members FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY community_members_insert ON community_members FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY community_members_update ON community_members FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY community_members_delete ON community_members FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON community_members FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON community_members TO tabane_app;

ALTER TABLE context_models ENABLE ROW LEVEL SECURITY;
ALTER TABLE context_models FORCE ROW LEVEL SECURITY;
CREATE POLICY context_models_all ON context_models FOR ALL USING (EXISTS (SELECT 1 FROM contexts p WHERE p.id = context_id)) WITH CHECK (EXISTS (SELECT 1 FROM contexts p WHERE p.id = context_id));
REVOKE ALL ON context_models FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON context_models TO tabane_app;

ALTER TABLE context_usage ENABLE ROW LEVEL SECURITY;
ALTER TABLE context_usage FORCE ROW LEVEL SECURITY;
CREATE POLICY context_usage_all ON context_usage FOR ALL USING (EXISTS (SELECT 1 FROM contexts p WHERE p.id = context_id)) WITH CHECK (EXISTS (SELECT 1 FROM contexts p WHERE p.id = context_id));
REVOKE ALL ON context_usage FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON context_usage TO tabane_app;

ALTER TABLE contexts ENABLE ROW LEVEL SECURITY;
ALTER TABLE contexts FORCE ROW LEVEL SECURITY;
CREATE POLICY contexts_select ON contexts FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY contexts_insert ON contexts FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY contexts_update ON contexts FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY contexts_delete ON contexts FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON contexts FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON contexts TO tabane_app;

ALTER TABLE grants NO FORCE ROW LEVEL SECURITY;
ALTER TABLE grants DISABLE ROW LEVEL SECURITY;

REVOKE ALL ON grants FROM tabane_app;
GRANT SELECT ON grants TO tabane_app;

ALTER TABLE group_children ENABLE ROW LEVEL SECURITY;
ALTER TABLE group_children FORCE ROW LEVEL SECURITY;
CREATE POLICY group_children_select ON group_children FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY group_children_insert ON group_children FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY group_children_update ON group_children FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY group_children_delete ON group_children FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON group_children FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON group_children TO tabane_app;

ALTER TABLE group_contexts ENABLE ROW LEVEL SECURITY;
ALTER TABLE group_contexts FORCE ROW LEVEL SECURITY;
CREATE POLICY group_contexts_select ON group_contexts FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY group_contexts_insert ON group_contexts FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY group_contexts_update ON group_contexts FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY group_contexts_delete ON group_contexts FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON group_contexts FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON group_contexts TO tabane_app;

ALTER TABLE groups ENABLE ROW LEVEL SECURITY;
ALTER TABLE groups FORCE ROW LEVEL SECURITY;
CREATE POLICY groups_select ON groups FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY groups_insert ON groups FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY groups_update ON groups FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY groups_delete ON groups FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON groups FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON groups TO tabane_app;

ALTER TABLE jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobs FORCE ROW LEVEL SECURITY;
CREATE POLICY jobs_own ON jobs FOR ALL USING (scopes <@ (SELECT tabane_write_scopes()) AND read_scopes <@ (SELECT tabane_read_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()) AND read_scopes <@ (SELECT tabane_read_scopes()));
REVOKE ALL ON jobs FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON jobs TO tabane_app;

ALTER TABLE paragraph_vectors ENABLE ROW LEVEL SECURITY;
ALTER TABLE paragraph_vectors FORCE ROW LEVEL SECURITY;
CREATE POLICY paragraph_vectors_select ON paragraph_vectors FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY paragraph_vectors_insert ON paragraph_vectors FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY paragraph_vectors_update ON paragraph_vectors FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY paragraph_vectors_delete ON paragraph_vectors FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON paragraph_vectors FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON paragraph_vectors TO tabane_app;

ALTER TABLE paragraphs ENABLE ROW LEVEL SECURITY;
ALTER TABLE paragraphs FORCE ROW LEVEL SECURITY;
CREATE POLICY paragraphs_select ON paragraphs FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY paragraphs_insert ON paragraphs FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY paragraphs_update ON paragraphs FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY paragraphs_delete ON paragraphs FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON paragraphs FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON paragraphs TO tabane_app;

ALTER TABLE profiles ENABLE ROW LEVEL SECURITY;
ALTER TABLE profiles FORCE ROW LEVEL SECURITY;
CREATE POLICY profiles_select ON profiles FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY profiles_insert ON profiles FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY profiles_update ON profiles FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY profiles_delete ON profiles FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON profiles FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON profiles TO tabane_app;

ALTER TABLE raptor_members ENABLE ROW LEVEL SECURITY;
ALTER TABLE raptor_members FORCE ROW LEVEL SECURITY;
CREATE POLICY raptor_members_select ON raptor_members FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY raptor_members_insert ON raptor_members FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY raptor_members_update ON raptor_members FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY raptor_members_delete ON raptor_members FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON raptor_members FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON raptor_members TO tabane_app;

ALTER TABLE raptor_nodes ENABLE ROW LEVEL SECURITY;
ALTER TABLE raptor_nodes FORCE ROW LEVEL SECURITY;
CREATE POLICY raptor_nodes_select ON raptor_nodes FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY raptor_nodes_insert ON raptor_nodes FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY raptor_nodes_update ON raptor_nodes FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY raptor_nodes_delete ON raptor_nodes FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON raptor_nodes FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON raptor_nodes TO tabane_app;

ALTER TABLE recall_traces ENABLE ROW LEVEL SECURITY;
ALTER TABLE recall_traces FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_traces_select ON recall_traces FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY recall_traces_insert ON recall_traces FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY recall_traces_update ON recall_traces FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY recall_traces_delete ON recall_traces FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON recall_traces FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON recall_traces TO tabane_app;

ALTER TABLE scopes NO FORCE ROW LEVEL SECURITY;
ALTER TABLE scopes DISABLE ROW LEVEL SECURITY;

REVOKE ALL ON scopes FROM tabane_app;
GRANT SELECT ON scopes TO tabane_app;

ALTER TABLE sections ENABLE ROW LEVEL SECURITY;
ALTER TABLE sections FORCE ROW LEVEL SECURITY;
CREATE POLICY sections_select ON sections FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY sections_insert ON sections FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY sections_update ON sections FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY sections_delete ON sections FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON sections FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON sections TO tabane_app;

ALTER TABLE session_turns ENABLE ROW LEVEL SECURITY;
ALTER TABLE session_turns FORCE ROW LEVEL SECURITY;
CREATE POLICY session_turns_select ON session_turns FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY session_turns_insert ON session_turns FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY session_turns_update ON session_turns FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY session_turns_delete ON session_turns FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON session_turns FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON session_turns TO tabane_app;

ALTER TABLE sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE sessions FORCE ROW LEVEL SECURITY;
CREATE POLICY sessions_select ON sessions FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY sessions_insert ON sessions FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY sessions_update ON sessions FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY sessions_delete ON sessions FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON sessions FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON sessions TO tabane_app;

ALTER TABLE sources ENABLE ROW LEVEL SECURITY;
ALTER TABLE sources FORCE ROW LEVEL SECURITY;
CREATE POLICY sources_select ON sources FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY sources_insert ON sources FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY sources_update ON sources FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY sources_delete ON sources FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON sources FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON sources TO tabane_app;

ALTER TABLE turn_vectors ENABLE ROW LEVEL SECURITY;
ALTER TABLE turn_vectors FORCE ROW LEVEL SECURITY;
CREATE POLICY turn_vectors_select ON turn_vectors FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY turn_vectors_insert ON turn_vectors FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY turn_vectors_update ON turn_vectors FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY turn_vectors_delete ON turn_vectors FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON turn_vectors FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON turn_vectors TO tabane_app;

ALTER TABLE users NO FORCE ROW LEVEL SECURITY;
ALTER TABLE users DISABLE ROW LEVEL SECURITY;

REVOKE ALL ON users FROM tabane_app;
GRANT SELECT ON users TO tabane_app;

ALTER TABLE vocabulary ENABLE ROW LEVEL SECURITY;
ALTER TABLE vocabulary FORCE ROW LEVEL SECURITY;
CREATE POLICY vocabulary_select ON vocabulary FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY vocabulary_insert ON vocabulary FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY vocabulary_update ON vocabulary FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY vocabulary_delete ON vocabulary FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON vocabulary FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON vocabulary TO tabane_app;

ALTER TABLE vocabulary_gram_packs ENABLE ROW LEVEL SECURITY;
ALTER TABLE vocabulary_gram_packs FORCE ROW LEVEL SECURITY;
CREATE POLICY vocabulary_gram_packs_select ON vocabulary_gram_packs FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY vocabulary_gram_packs_insert ON vocabulary_gram_packs FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY vocabulary_gram_packs_update ON vocabulary_gram_packs FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY vocabulary_gram_packs_delete ON vocabulary_gram_packs FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON vocabulary_gram_packs FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON vocabulary_gram_packs TO tabane_app;

ALTER TABLE vocabulary_gram_stats ENABLE ROW LEVEL SECURITY;
ALTER TABLE vocabulary_gram_stats FORCE ROW LEVEL SECURITY;
CREATE POLICY vocabulary_gram_stats_select ON vocabulary_gram_stats FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY vocabulary_gram_stats_insert ON vocabulary_gram_stats FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY vocabulary_gram_stats_update ON vocabulary_gram_stats FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY vocabulary_gram_stats_delete ON vocabulary_gram_stats FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON vocabulary_gram_stats FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON vocabulary_gram_stats TO tabane_app;

ALTER TABLE vocabulary_grams ENABLE ROW LEVEL SECURITY;
ALTER TABLE vocabulary_grams FORCE ROW LEVEL SECURITY;
CREATE POLICY vocabulary_grams_select ON vocabulary_grams FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY vocabulary_grams_insert ON vocabulary_grams FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY vocabulary_grams_update ON vocabulary_grams FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY vocabulary_grams_delete ON vocabulary_grams FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON vocabulary_grams FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON vocabulary_grams TO tabane_app;

ALTER TABLE vocabulary_sizes ENABLE ROW LEVEL SECURITY;
ALTER TABLE vocabulary_sizes FORCE ROW LEVEL SECURITY;
CREATE POLICY vocabulary_sizes_select ON vocabulary_sizes FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY vocabulary_sizes_insert ON vocabulary_sizes FOR INSERT WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY vocabulary_sizes_update ON vocabulary_sizes FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK ((scopes <@ (SELECT tabane_write_scopes())) AND EXISTS (SELECT 1 FROM contexts c WHERE c.id = context_id));
CREATE POLICY vocabulary_sizes_delete ON vocabulary_sizes FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON vocabulary_sizes FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON vocabulary_sizes TO tabane_app;

ALTER TABLE vocabulary_vectors ENABLE ROW LEVEL SECURITY;
ALTER TABLE vocabulary_vectors FORCE ROW LEVEL SECURITY;
CREATE POLICY vocabulary_vectors_select ON vocabulary_vectors FOR SELECT USING (scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[]);
CREATE POLICY vocabulary_vectors_insert ON vocabulary_vectors FOR INSERT WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY vocabulary_vectors_update ON vocabulary_vectors FOR UPDATE USING (scopes <@ (SELECT tabane_write_scopes())) WITH CHECK (scopes <@ (SELECT tabane_write_scopes()));
CREATE POLICY vocabulary_vectors_delete ON vocabulary_vectors FOR DELETE USING (scopes <@ (SELECT tabane_write_scopes()));
REVOKE ALL ON vocabulary_vectors FROM tabane_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON vocabulary_vectors TO tabane_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO tabane_app;
