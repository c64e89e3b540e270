--
-- PostgreSQL database dump
--

\restrict maVbkN75vxXckJKgGVyyiE0QqObHVLfajucB6Nm9hId9tZIbyKxEjnvUElQw41o

-- Dumped from database version 18.6
-- Dumped by pg_dump version 18.6

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET transaction_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: vector; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;


--
-- Name: EXTENSION vector; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION vector IS 'vector data type and ivfflat and hnsw access methods';


--
-- Name: tabane_hold_user(bigint); Type: FUNCTION; Schema: public; Owner: -
--

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


--
-- Name: tabane_read_scopes(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.tabane_read_scopes() RETURNS text[]
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT coalesce(nullif(current_setting('tabane.read_scopes', true), ''), '{}')::text[] $$;


--
-- Name: tabane_write_scopes(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.tabane_write_scopes() RETURNS text[]
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT coalesce(nullif(current_setting('tabane.write_scopes', true), ''), '{}')::text[] $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: alembic_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alembic_version (
    version_num character varying(32) NOT NULL
);


--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

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


--
-- Name: api_keys_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.api_keys_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: api_keys_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.api_keys_id_seq OWNED BY public.api_keys.id;


--
-- Name: associations; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.associations FORCE ROW LEVEL SECURITY;


--
-- Name: associations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.associations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: associations_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.associations_id_seq OWNED BY public.associations.id;


--
-- Name: bm25_corpus; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bm25_corpus (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    paragraphs bigint DEFAULT '0'::bigint NOT NULL,
    total_length bigint DEFAULT '0'::bigint NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_bm25_corpus_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

ALTER TABLE ONLY public.bm25_corpus FORCE ROW LEVEL SECURITY;


--
-- Name: bm25_corpus_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.bm25_corpus_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: bm25_corpus_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.bm25_corpus_id_seq OWNED BY public.bm25_corpus.id;


--
-- Name: bm25_dead; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bm25_dead (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    ids bytea NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_bm25_dead_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

ALTER TABLE ONLY public.bm25_dead FORCE ROW LEVEL SECURITY;


--
-- Name: bm25_dead_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.bm25_dead_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: bm25_dead_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.bm25_dead_id_seq OWNED BY public.bm25_dead.id;


--
-- Name: bm25_merged; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bm25_merged (
    context_id integer NOT NULL,
    term text NOT NULL COLLATE pg_catalog."C",
    scopes text[] NOT NULL,
    postings bytea NOT NULL,
    masked_upto bigint DEFAULT '0'::bigint NOT NULL,
    CONSTRAINT ck_bm25_merged_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);
ALTER TABLE ONLY public.bm25_merged ALTER COLUMN postings SET STORAGE EXTERNAL;

ALTER TABLE ONLY public.bm25_merged FORCE ROW LEVEL SECURITY;


--
-- Name: bm25_packs; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.bm25_packs FORCE ROW LEVEL SECURITY;


--
-- Name: bm25_terms; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bm25_terms (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    term text NOT NULL COLLATE pg_catalog."C",
    df bigint DEFAULT '0'::bigint NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_bm25_terms_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

ALTER TABLE ONLY public.bm25_terms FORCE ROW LEVEL SECURITY;


--
-- Name: bm25_terms_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.bm25_terms_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: bm25_terms_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.bm25_terms_id_seq OWNED BY public.bm25_terms.id;


--
-- Name: claim_vectors; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.claim_vectors (
    claim_id bigint NOT NULL,
    model text NOT NULL,
    context_id integer NOT NULL,
    dim integer NOT NULL,
    embedding public.vector NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_claim_vectors_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

ALTER TABLE ONLY public.claim_vectors FORCE ROW LEVEL SECURITY;


--
-- Name: claims; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.claims FORCE ROW LEVEL SECURITY;


--
-- Name: claims_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.claims_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: claims_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.claims_id_seq OWNED BY public.claims.id;


--
-- Name: communities; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.communities FORCE ROW LEVEL SECURITY;


--
-- Name: communities_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.communities_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: communities_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.communities_id_seq OWNED BY public.communities.id;


--
-- Name: community_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.community_members (
    community_id bigint NOT NULL,
    concept text NOT NULL,
    context_id integer NOT NULL,
    rank integer NOT NULL,
    weight double precision NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_community_members_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

ALTER TABLE ONLY public.community_members FORCE ROW LEVEL SECURITY;


--
-- Name: context_models; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.context_models (
    context_id integer NOT NULL,
    model text NOT NULL,
    dim integer NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.context_models FORCE ROW LEVEL SECURITY;


--
-- Name: context_usage; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.context_usage (
    context_id integer NOT NULL,
    reads bigint DEFAULT '0'::bigint NOT NULL,
    misses bigint DEFAULT '0'::bigint NOT NULL,
    writes bigint DEFAULT '0'::bigint NOT NULL,
    last_access timestamp with time zone
);

ALTER TABLE ONLY public.context_usage FORCE ROW LEVEL SECURITY;


--
-- Name: contexts; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.contexts FORCE ROW LEVEL SECURITY;


--
-- Name: contexts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.contexts_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: contexts_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.contexts_id_seq OWNED BY public.contexts.id;


--
-- Name: grants; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.grants (
    user_id integer NOT NULL,
    scope text NOT NULL,
    can_write boolean DEFAULT false NOT NULL
);


--
-- Name: group_children; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.group_children (
    parent_id integer NOT NULL,
    child_id integer NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_group_children_not_self CHECK ((parent_id <> child_id)),
    CONSTRAINT ck_group_children_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

ALTER TABLE ONLY public.group_children FORCE ROW LEVEL SECURITY;


--
-- Name: group_contexts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.group_contexts (
    group_id integer NOT NULL,
    context_id integer NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_group_contexts_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

ALTER TABLE ONLY public.group_contexts FORCE ROW LEVEL SECURITY;


--
-- Name: groups; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.groups (
    id integer NOT NULL,
    name text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_groups_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

ALTER TABLE ONLY public.groups FORCE ROW LEVEL SECURITY;


--
-- Name: groups_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.groups_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: groups_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.groups_id_seq OWNED BY public.groups.id;


--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.jobs FORCE ROW LEVEL SECURITY;


--
-- Name: jobs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: jobs_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.jobs_id_seq OWNED BY public.jobs.id;


--
-- Name: paragraph_vectors; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.paragraph_vectors FORCE ROW LEVEL SECURITY;


--
-- Name: paragraphs; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.paragraphs FORCE ROW LEVEL SECURITY;


--
-- Name: paragraphs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.paragraphs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: paragraphs_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.paragraphs_id_seq OWNED BY public.paragraphs.id;


--
-- Name: profiles; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.profiles FORCE ROW LEVEL SECURITY;


--
-- Name: profiles_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.profiles_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: profiles_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.profiles_id_seq OWNED BY public.profiles.id;


--
-- Name: raptor_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.raptor_members (
    node_id bigint NOT NULL,
    ref text NOT NULL,
    context_id integer NOT NULL,
    rank integer NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_raptor_members_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

ALTER TABLE ONLY public.raptor_members FORCE ROW LEVEL SECURITY;


--
-- Name: raptor_nodes; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.raptor_nodes FORCE ROW LEVEL SECURITY;


--
-- Name: raptor_nodes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.raptor_nodes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: raptor_nodes_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.raptor_nodes_id_seq OWNED BY public.raptor_nodes.id;


--
-- Name: recall_traces; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.recall_traces FORCE ROW LEVEL SECURITY;


--
-- Name: recall_traces_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.recall_traces_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: recall_traces_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.recall_traces_id_seq OWNED BY public.recall_traces.id;


--
-- Name: scopes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.scopes (
    name text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: sections; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.sections FORCE ROW LEVEL SECURITY;


--
-- Name: sections_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.sections_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: sections_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.sections_id_seq OWNED BY public.sections.id;


--
-- Name: session_turns; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.session_turns FORCE ROW LEVEL SECURITY;


--
-- Name: session_turns_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.session_turns_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: session_turns_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.session_turns_id_seq OWNED BY public.session_turns.id;


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.sessions FORCE ROW LEVEL SECURITY;


--
-- Name: sessions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.sessions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: sessions_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.sessions_id_seq OWNED BY public.sessions.id;


--
-- Name: sources; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.sources FORCE ROW LEVEL SECURITY;


--
-- Name: sources_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.sources_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: sources_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.sources_id_seq OWNED BY public.sources.id;


--
-- Name: turn_vectors; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.turn_vectors (
    turn_id bigint NOT NULL,
    model text NOT NULL,
    session_pk bigint NOT NULL,
    dim integer NOT NULL,
    embedding public.vector NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_turn_vectors_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

ALTER TABLE ONLY public.turn_vectors FORCE ROW LEVEL SECURITY;


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id integer NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: users_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.users_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: users_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.users_id_seq OWNED BY public.users.id;


--
-- Name: vocabulary; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.vocabulary FORCE ROW LEVEL SECURITY;


--
-- Name: vocabulary_gram_packs; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.vocabulary_gram_packs FORCE ROW LEVEL SECURITY;


--
-- Name: vocabulary_gram_stats; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.vocabulary_gram_stats FORCE ROW LEVEL SECURITY;


--
-- Name: vocabulary_gram_stats_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.vocabulary_gram_stats_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: vocabulary_gram_stats_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.vocabulary_gram_stats_id_seq OWNED BY public.vocabulary_gram_stats.id;


--
-- Name: vocabulary_grams; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.vocabulary_grams FORCE ROW LEVEL SECURITY;


--
-- Name: vocabulary_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.vocabulary_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: vocabulary_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.vocabulary_id_seq OWNED BY public.vocabulary.id;


--
-- Name: vocabulary_sizes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.vocabulary_sizes (
    id bigint NOT NULL,
    context_id integer NOT NULL,
    kind text NOT NULL,
    entries bigint DEFAULT '0'::bigint NOT NULL,
    scopes text[] NOT NULL,
    CONSTRAINT ck_vocabulary_sizes_kind_known CHECK ((kind = ANY (ARRAY['concept'::text, 'label'::text]))),
    CONSTRAINT ck_vocabulary_sizes_scopes_nonempty CHECK ((cardinality(scopes) >= 1))
);

ALTER TABLE ONLY public.vocabulary_sizes FORCE ROW LEVEL SECURITY;


--
-- Name: vocabulary_sizes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.vocabulary_sizes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: vocabulary_sizes_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.vocabulary_sizes_id_seq OWNED BY public.vocabulary_sizes.id;


--
-- Name: vocabulary_vectors; Type: TABLE; Schema: public; Owner: -
--

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

ALTER TABLE ONLY public.vocabulary_vectors FORCE ROW LEVEL SECURITY;


--
-- Name: api_keys id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys ALTER COLUMN id SET DEFAULT nextval('public.api_keys_id_seq'::regclass);


--
-- Name: associations id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.associations ALTER COLUMN id SET DEFAULT nextval('public.associations_id_seq'::regclass);


--
-- Name: bm25_corpus id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_corpus ALTER COLUMN id SET DEFAULT nextval('public.bm25_corpus_id_seq'::regclass);


--
-- Name: bm25_dead id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_dead ALTER COLUMN id SET DEFAULT nextval('public.bm25_dead_id_seq'::regclass);


--
-- Name: bm25_terms id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_terms ALTER COLUMN id SET DEFAULT nextval('public.bm25_terms_id_seq'::regclass);


--
-- Name: claims id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.claims ALTER COLUMN id SET DEFAULT nextval('public.claims_id_seq'::regclass);


--
-- Name: communities id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.communities ALTER COLUMN id SET DEFAULT nextval('public.communities_id_seq'::regclass);


--
-- Name: contexts id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contexts ALTER COLUMN id SET DEFAULT nextval('public.contexts_id_seq'::regclass);


--
-- Name: groups id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.groups ALTER COLUMN id SET DEFAULT nextval('public.groups_id_seq'::regclass);


--
-- Name: jobs id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs ALTER COLUMN id SET DEFAULT nextval('public.jobs_id_seq'::regclass);


--
-- Name: paragraphs id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.paragraphs ALTER COLUMN id SET DEFAULT nextval('public.paragraphs_id_seq'::regclass);


--
-- Name: profiles id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.profiles ALTER COLUMN id SET DEFAULT nextval('public.profiles_id_seq'::regclass);


--
-- Name: raptor_nodes id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.raptor_nodes ALTER COLUMN id SET DEFAULT nextval('public.raptor_nodes_id_seq'::regclass);


--
-- Name: recall_traces id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.recall_traces ALTER COLUMN id SET DEFAULT nextval('public.recall_traces_id_seq'::regclass);


--
-- Name: sections id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sections ALTER COLUMN id SET DEFAULT nextval('public.sections_id_seq'::regclass);


--
-- Name: session_turns id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_turns ALTER COLUMN id SET DEFAULT nextval('public.session_turns_id_seq'::regclass);


--
-- Name: sessions id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions ALTER COLUMN id SET DEFAULT nextval('public.sessions_id_seq'::regclass);


--
-- Name: sources id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sources ALTER COLUMN id SET DEFAULT nextval('public.sources_id_seq'::regclass);


--
-- Name: users id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users ALTER COLUMN id SET DEFAULT nextval('public.users_id_seq'::regclass);


--
-- Name: vocabulary id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary ALTER COLUMN id SET DEFAULT nextval('public.vocabulary_id_seq'::regclass);


--
-- Name: vocabulary_gram_stats id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_gram_stats ALTER COLUMN id SET DEFAULT nextval('public.vocabulary_gram_stats_id_seq'::regclass);


--
-- Name: vocabulary_sizes id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_sizes ALTER COLUMN id SET DEFAULT nextval('public.vocabulary_sizes_id_seq'::regclass);


--
-- Name: alembic_version alembic_version_pkc; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alembic_version
    ADD CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num);


--
-- Name: api_keys pk_api_keys; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT pk_api_keys PRIMARY KEY (id);


--
-- Name: associations pk_associations; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.associations
    ADD CONSTRAINT pk_associations PRIMARY KEY (id);


--
-- Name: bm25_corpus pk_bm25_corpus; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_corpus
    ADD CONSTRAINT pk_bm25_corpus PRIMARY KEY (id);


--
-- Name: bm25_dead pk_bm25_dead; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_dead
    ADD CONSTRAINT pk_bm25_dead PRIMARY KEY (id);


--
-- Name: bm25_merged pk_bm25_merged; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_merged
    ADD CONSTRAINT pk_bm25_merged PRIMARY KEY (context_id, term, scopes);


--
-- Name: bm25_packs pk_bm25_packs; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_packs
    ADD CONSTRAINT pk_bm25_packs PRIMARY KEY (source_pk, term);


--
-- Name: bm25_terms pk_bm25_terms; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_terms
    ADD CONSTRAINT pk_bm25_terms PRIMARY KEY (id);


--
-- Name: claim_vectors pk_claim_vectors; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.claim_vectors
    ADD CONSTRAINT pk_claim_vectors PRIMARY KEY (claim_id, model);


--
-- Name: claims pk_claims; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.claims
    ADD CONSTRAINT pk_claims PRIMARY KEY (id);


--
-- Name: communities pk_communities; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.communities
    ADD CONSTRAINT pk_communities PRIMARY KEY (id);


--
-- Name: community_members pk_community_members; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.community_members
    ADD CONSTRAINT pk_community_members PRIMARY KEY (community_id, concept);


--
-- Name: context_models pk_context_models; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.context_models
    ADD CONSTRAINT pk_context_models PRIMARY KEY (context_id, model);


--
-- Name: context_usage pk_context_usage; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.context_usage
    ADD CONSTRAINT pk_context_usage PRIMARY KEY (context_id);


--
-- Name: contexts pk_contexts; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contexts
    ADD CONSTRAINT pk_contexts PRIMARY KEY (id);


--
-- Name: grants pk_grants; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.grants
    ADD CONSTRAINT pk_grants PRIMARY KEY (user_id, scope);


--
-- Name: group_children pk_group_children; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_children
    ADD CONSTRAINT pk_group_children PRIMARY KEY (parent_id, child_id);


--
-- Name: group_contexts pk_group_contexts; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_contexts
    ADD CONSTRAINT pk_group_contexts PRIMARY KEY (group_id, context_id);


--
-- Name: groups pk_groups; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.groups
    ADD CONSTRAINT pk_groups PRIMARY KEY (id);


--
-- Name: jobs pk_jobs; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT pk_jobs PRIMARY KEY (id);


--
-- Name: paragraph_vectors pk_paragraph_vectors; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.paragraph_vectors
    ADD CONSTRAINT pk_paragraph_vectors PRIMARY KEY (paragraph_id, ord, model);


--
-- Name: paragraphs pk_paragraphs; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.paragraphs
    ADD CONSTRAINT pk_paragraphs PRIMARY KEY (id);


--
-- Name: profiles pk_profiles; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.profiles
    ADD CONSTRAINT pk_profiles PRIMARY KEY (id);


--
-- Name: raptor_members pk_raptor_members; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.raptor_members
    ADD CONSTRAINT pk_raptor_members PRIMARY KEY (node_id, ref);


--
-- Name: raptor_nodes pk_raptor_nodes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.raptor_nodes
    ADD CONSTRAINT pk_raptor_nodes PRIMARY KEY (id);


--
-- Name: recall_traces pk_recall_traces; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.recall_traces
    ADD CONSTRAINT pk_recall_traces PRIMARY KEY (id);


--
-- Name: scopes pk_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.scopes
    ADD CONSTRAINT pk_scopes PRIMARY KEY (name);


--
-- Name: sections pk_sections; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sections
    ADD CONSTRAINT pk_sections PRIMARY KEY (id);


--
-- Name: session_turns pk_session_turns; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_turns
    ADD CONSTRAINT pk_session_turns PRIMARY KEY (id);


--
-- Name: sessions pk_sessions; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT pk_sessions PRIMARY KEY (id);


--
-- Name: sources pk_sources; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sources
    ADD CONSTRAINT pk_sources PRIMARY KEY (id);


--
-- Name: turn_vectors pk_turn_vectors; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.turn_vectors
    ADD CONSTRAINT pk_turn_vectors PRIMARY KEY (turn_id, model);


--
-- Name: users pk_users; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT pk_users PRIMARY KEY (id);


--
-- Name: vocabulary pk_vocabulary; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary
    ADD CONSTRAINT pk_vocabulary PRIMARY KEY (id);


--
-- Name: vocabulary_gram_packs pk_vocabulary_gram_packs; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_gram_packs
    ADD CONSTRAINT pk_vocabulary_gram_packs PRIMARY KEY (context_id, kind, gram, scopes);


--
-- Name: vocabulary_gram_stats pk_vocabulary_gram_stats; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_gram_stats
    ADD CONSTRAINT pk_vocabulary_gram_stats PRIMARY KEY (id);


--
-- Name: vocabulary_grams pk_vocabulary_grams; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_grams
    ADD CONSTRAINT pk_vocabulary_grams PRIMARY KEY (entry_id, gram);


--
-- Name: vocabulary_sizes pk_vocabulary_sizes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_sizes
    ADD CONSTRAINT pk_vocabulary_sizes PRIMARY KEY (id);


--
-- Name: vocabulary_vectors pk_vocabulary_vectors; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_vectors
    ADD CONSTRAINT pk_vocabulary_vectors PRIMARY KEY (entry_id, model);


--
-- Name: api_keys uq_api_keys_prefix; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT uq_api_keys_prefix UNIQUE (prefix);


--
-- Name: associations uq_associations_context_id_perspective_subject_label_ob_8bf1; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.associations
    ADD CONSTRAINT uq_associations_context_id_perspective_subject_label_ob_8bf1 UNIQUE (context_id, perspective, subject, label, object, scopes);


--
-- Name: bm25_corpus uq_bm25_corpus_context_id_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_corpus
    ADD CONSTRAINT uq_bm25_corpus_context_id_scopes UNIQUE (context_id, scopes);


--
-- Name: bm25_terms uq_bm25_terms_context_id_term_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_terms
    ADD CONSTRAINT uq_bm25_terms_context_id_term_scopes UNIQUE (context_id, term, scopes);


--
-- Name: claims uq_claims_id_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.claims
    ADD CONSTRAINT uq_claims_id_scopes UNIQUE (id, scopes);


--
-- Name: communities uq_communities_context_id_level_ordinal_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.communities
    ADD CONSTRAINT uq_communities_context_id_level_ordinal_scopes UNIQUE (context_id, level, ordinal, scopes);


--
-- Name: communities uq_communities_id_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.communities
    ADD CONSTRAINT uq_communities_id_scopes UNIQUE (id, scopes);


--
-- Name: contexts uq_contexts_name; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contexts
    ADD CONSTRAINT uq_contexts_name UNIQUE (name);


--
-- Name: groups uq_groups_id_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.groups
    ADD CONSTRAINT uq_groups_id_scopes UNIQUE (id, scopes);


--
-- Name: groups uq_groups_name; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.groups
    ADD CONSTRAINT uq_groups_name UNIQUE (name);


--
-- Name: paragraphs uq_paragraphs_id_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.paragraphs
    ADD CONSTRAINT uq_paragraphs_id_scopes UNIQUE (id, scopes);


--
-- Name: paragraphs uq_paragraphs_source_pk_idx; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.paragraphs
    ADD CONSTRAINT uq_paragraphs_source_pk_idx UNIQUE (source_pk, idx);


--
-- Name: profiles uq_profiles_context_id_concept_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.profiles
    ADD CONSTRAINT uq_profiles_context_id_concept_scopes UNIQUE (context_id, concept, scopes);


--
-- Name: raptor_nodes uq_raptor_nodes_context_id_level_ordinal_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.raptor_nodes
    ADD CONSTRAINT uq_raptor_nodes_context_id_level_ordinal_scopes UNIQUE (context_id, level, ordinal, scopes);


--
-- Name: raptor_nodes uq_raptor_nodes_id_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.raptor_nodes
    ADD CONSTRAINT uq_raptor_nodes_id_scopes UNIQUE (id, scopes);


--
-- Name: sections uq_sections_source_pk_ordinal; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sections
    ADD CONSTRAINT uq_sections_source_pk_ordinal UNIQUE (source_pk, ordinal);


--
-- Name: session_turns uq_session_turns_id_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_turns
    ADD CONSTRAINT uq_session_turns_id_scopes UNIQUE (id, scopes);


--
-- Name: session_turns uq_session_turns_session_pk_seq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_turns
    ADD CONSTRAINT uq_session_turns_session_pk_seq UNIQUE (session_pk, seq);


--
-- Name: sessions uq_sessions_id_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT uq_sessions_id_scopes UNIQUE (id, scopes);


--
-- Name: sessions uq_sessions_user_id_name; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT uq_sessions_user_id_name UNIQUE (user_id, name);


--
-- Name: sources uq_sources_context_id_source_id; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sources
    ADD CONSTRAINT uq_sources_context_id_source_id UNIQUE (context_id, source_id);


--
-- Name: sources uq_sources_id_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sources
    ADD CONSTRAINT uq_sources_id_scopes UNIQUE (id, scopes);


--
-- Name: users uq_users_name; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT uq_users_name UNIQUE (name);


--
-- Name: vocabulary uq_vocabulary_context_id_kind_name_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary
    ADD CONSTRAINT uq_vocabulary_context_id_kind_name_scopes UNIQUE (context_id, kind, name, scopes);


--
-- Name: vocabulary_gram_stats uq_vocabulary_gram_stats_context_id_kind_gram_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_gram_stats
    ADD CONSTRAINT uq_vocabulary_gram_stats_context_id_kind_gram_scopes UNIQUE (context_id, kind, gram, scopes);


--
-- Name: vocabulary uq_vocabulary_id_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary
    ADD CONSTRAINT uq_vocabulary_id_scopes UNIQUE (id, scopes);


--
-- Name: vocabulary_sizes uq_vocabulary_sizes_context_id_kind_scopes; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_sizes
    ADD CONSTRAINT uq_vocabulary_sizes_context_id_kind_scopes UNIQUE (context_id, kind, scopes);


--
-- Name: ix_api_keys_user_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_api_keys_user_id ON public.api_keys USING btree (user_id);


--
-- Name: ix_associations_label; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_associations_label ON public.associations USING btree (context_id, label);


--
-- Name: ix_associations_object; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_associations_object ON public.associations USING btree (context_id, object);


--
-- Name: ix_associations_subject; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_associations_subject ON public.associations USING btree (context_id, subject);


--
-- Name: ix_bm25_dead_context; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_bm25_dead_context ON public.bm25_dead USING btree (context_id);


--
-- Name: ix_bm25_packs_fresh; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_bm25_packs_fresh ON public.bm25_packs USING btree (context_id, term) WHERE (NOT merged);


--
-- Name: ix_bm25_packs_lookup; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_bm25_packs_lookup ON public.bm25_packs USING btree (context_id, term);


--
-- Name: ix_claim_vectors_context_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_claim_vectors_context_id ON public.claim_vectors USING btree (context_id);


--
-- Name: ix_claim_vectors_hnsw_1024; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_claim_vectors_hnsw_1024 ON public.claim_vectors USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1024);


--
-- Name: ix_claim_vectors_hnsw_1536; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_claim_vectors_hnsw_1536 ON public.claim_vectors USING hnsw (((embedding)::public.vector(1536)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1536);


--
-- Name: ix_claim_vectors_hnsw_384; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_claim_vectors_hnsw_384 ON public.claim_vectors USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 384);


--
-- Name: ix_claim_vectors_hnsw_512; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_claim_vectors_hnsw_512 ON public.claim_vectors USING hnsw (((embedding)::public.vector(512)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 512);


--
-- Name: ix_claim_vectors_hnsw_768; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_claim_vectors_hnsw_768 ON public.claim_vectors USING hnsw (((embedding)::public.vector(768)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 768);


--
-- Name: ix_claims_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_claims_scopes ON public.claims USING gin (scopes);


--
-- Name: ix_claims_source; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_claims_source ON public.claims USING btree (context_id, source);


--
-- Name: ix_claims_triple; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_claims_triple ON public.claims USING btree (context_id, subject, label, object);


--
-- Name: ix_communities_hnsw_1024; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_communities_hnsw_1024 ON public.communities USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1024);


--
-- Name: ix_communities_hnsw_1536; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_communities_hnsw_1536 ON public.communities USING hnsw (((embedding)::public.vector(1536)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1536);


--
-- Name: ix_communities_hnsw_384; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_communities_hnsw_384 ON public.communities USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 384);


--
-- Name: ix_communities_hnsw_512; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_communities_hnsw_512 ON public.communities USING hnsw (((embedding)::public.vector(512)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 512);


--
-- Name: ix_communities_hnsw_768; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_communities_hnsw_768 ON public.communities USING hnsw (((embedding)::public.vector(768)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 768);


--
-- Name: ix_communities_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_communities_scopes ON public.communities USING gin (scopes);


--
-- Name: ix_community_members_concept; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_community_members_concept ON public.community_members USING btree (context_id, concept);


--
-- Name: ix_contexts_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_contexts_scopes ON public.contexts USING gin (scopes);


--
-- Name: ix_group_children_child_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_group_children_child_id ON public.group_children USING btree (child_id);


--
-- Name: ix_group_children_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_group_children_scopes ON public.group_children USING gin (scopes);


--
-- Name: ix_group_contexts_context_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_group_contexts_context_id ON public.group_contexts USING btree (context_id);


--
-- Name: ix_group_contexts_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_group_contexts_scopes ON public.group_contexts USING gin (scopes);


--
-- Name: ix_groups_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_groups_scopes ON public.groups USING gin (scopes);


--
-- Name: ix_jobs_ready; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_jobs_ready ON public.jobs USING btree (state, run_after);


--
-- Name: ix_jobs_session_pk; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_jobs_session_pk ON public.jobs USING btree (session_pk);


--
-- Name: ix_paragraph_vectors_context_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_paragraph_vectors_context_id ON public.paragraph_vectors USING btree (context_id);


--
-- Name: ix_paragraph_vectors_hnsw_1024; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_paragraph_vectors_hnsw_1024 ON public.paragraph_vectors USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1024);


--
-- Name: ix_paragraph_vectors_hnsw_1536; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_paragraph_vectors_hnsw_1536 ON public.paragraph_vectors USING hnsw (((embedding)::public.vector(1536)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1536);


--
-- Name: ix_paragraph_vectors_hnsw_384; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_paragraph_vectors_hnsw_384 ON public.paragraph_vectors USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 384);


--
-- Name: ix_paragraph_vectors_hnsw_512; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_paragraph_vectors_hnsw_512 ON public.paragraph_vectors USING hnsw (((embedding)::public.vector(512)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 512);


--
-- Name: ix_paragraph_vectors_hnsw_768; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_paragraph_vectors_hnsw_768 ON public.paragraph_vectors USING hnsw (((embedding)::public.vector(768)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 768);


--
-- Name: ix_paragraph_vectors_source_pk; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_paragraph_vectors_source_pk ON public.paragraph_vectors USING btree (source_pk);


--
-- Name: ix_paragraphs_context_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_paragraphs_context_id ON public.paragraphs USING btree (context_id);


--
-- Name: ix_paragraphs_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_paragraphs_scopes ON public.paragraphs USING gin (scopes);


--
-- Name: ix_profiles_hnsw_1024; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_profiles_hnsw_1024 ON public.profiles USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1024);


--
-- Name: ix_profiles_hnsw_1536; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_profiles_hnsw_1536 ON public.profiles USING hnsw (((embedding)::public.vector(1536)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1536);


--
-- Name: ix_profiles_hnsw_384; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_profiles_hnsw_384 ON public.profiles USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 384);


--
-- Name: ix_profiles_hnsw_512; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_profiles_hnsw_512 ON public.profiles USING hnsw (((embedding)::public.vector(512)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 512);


--
-- Name: ix_profiles_hnsw_768; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_profiles_hnsw_768 ON public.profiles USING hnsw (((embedding)::public.vector(768)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 768);


--
-- Name: ix_profiles_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_profiles_scopes ON public.profiles USING gin (scopes);


--
-- Name: ix_raptor_members_ref; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_raptor_members_ref ON public.raptor_members USING btree (context_id, ref);


--
-- Name: ix_raptor_nodes_hnsw_1024; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_raptor_nodes_hnsw_1024 ON public.raptor_nodes USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE ((dim = 1024) AND (level >= 2));


--
-- Name: ix_raptor_nodes_hnsw_1536; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_raptor_nodes_hnsw_1536 ON public.raptor_nodes USING hnsw (((embedding)::public.vector(1536)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE ((dim = 1536) AND (level >= 2));


--
-- Name: ix_raptor_nodes_hnsw_384; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_raptor_nodes_hnsw_384 ON public.raptor_nodes USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE ((dim = 384) AND (level >= 2));


--
-- Name: ix_raptor_nodes_hnsw_512; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_raptor_nodes_hnsw_512 ON public.raptor_nodes USING hnsw (((embedding)::public.vector(512)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE ((dim = 512) AND (level >= 2));


--
-- Name: ix_raptor_nodes_hnsw_768; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_raptor_nodes_hnsw_768 ON public.raptor_nodes USING hnsw (((embedding)::public.vector(768)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE ((dim = 768) AND (level >= 2));


--
-- Name: ix_raptor_nodes_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_raptor_nodes_scopes ON public.raptor_nodes USING gin (scopes);


--
-- Name: ix_recall_traces_recent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_recall_traces_recent ON public.recall_traces USING btree (user_id, created_at);


--
-- Name: ix_recall_traces_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_recall_traces_scopes ON public.recall_traces USING gin (scopes);


--
-- Name: ix_sections_context_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_sections_context_id ON public.sections USING btree (context_id);


--
-- Name: ix_sections_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_sections_scopes ON public.sections USING gin (scopes);


--
-- Name: ix_session_turns_recent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_session_turns_recent ON public.session_turns USING btree (session_pk, at);


--
-- Name: ix_session_turns_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_session_turns_scopes ON public.session_turns USING gin (scopes);


--
-- Name: ix_sessions_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_sessions_scopes ON public.sessions USING gin (scopes);


--
-- Name: ix_sources_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_sources_scopes ON public.sources USING gin (scopes);


--
-- Name: ix_sources_title_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_sources_title_key ON public.sources USING btree (context_id, title_key);


--
-- Name: ix_turn_vectors_session_pk; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_turn_vectors_session_pk ON public.turn_vectors USING btree (session_pk);


--
-- Name: ix_vocabulary_grams_fresh; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_vocabulary_grams_fresh ON public.vocabulary_grams USING btree (context_id, kind, gram) INCLUDE (entry_id, scopes, size) WHERE (NOT merged);


--
-- Name: ix_vocabulary_grams_lookup; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_vocabulary_grams_lookup ON public.vocabulary_grams USING btree (context_id, kind, gram) INCLUDE (entry_id, scopes, size);


--
-- Name: ix_vocabulary_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_vocabulary_key ON public.vocabulary USING btree (context_id, kind, key);


--
-- Name: ix_vocabulary_scopes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_vocabulary_scopes ON public.vocabulary USING gin (scopes);


--
-- Name: ix_vocabulary_vectors_context_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_vocabulary_vectors_context_id ON public.vocabulary_vectors USING btree (context_id);


--
-- Name: ix_vocabulary_vectors_hnsw_1024; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_vocabulary_vectors_hnsw_1024 ON public.vocabulary_vectors USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1024);


--
-- Name: ix_vocabulary_vectors_hnsw_1536; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_vocabulary_vectors_hnsw_1536 ON public.vocabulary_vectors USING hnsw (((embedding)::public.vector(1536)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 1536);


--
-- Name: ix_vocabulary_vectors_hnsw_384; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_vocabulary_vectors_hnsw_384 ON public.vocabulary_vectors USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 384);


--
-- Name: ix_vocabulary_vectors_hnsw_512; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_vocabulary_vectors_hnsw_512 ON public.vocabulary_vectors USING hnsw (((embedding)::public.vector(512)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 512);


--
-- Name: ix_vocabulary_vectors_hnsw_768; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_vocabulary_vectors_hnsw_768 ON public.vocabulary_vectors USING hnsw (((embedding)::public.vector(768)) public.vector_cosine_ops) WITH (m='16', ef_construction='200') WHERE (dim = 768);


--
-- Name: api_keys fk_api_keys_user_id_users; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT fk_api_keys_user_id_users FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: associations fk_associations_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.associations
    ADD CONSTRAINT fk_associations_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: bm25_corpus fk_bm25_corpus_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_corpus
    ADD CONSTRAINT fk_bm25_corpus_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: bm25_dead fk_bm25_dead_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_dead
    ADD CONSTRAINT fk_bm25_dead_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: bm25_merged fk_bm25_merged_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_merged
    ADD CONSTRAINT fk_bm25_merged_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: bm25_packs fk_bm25_packs_source_pk_sources; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_packs
    ADD CONSTRAINT fk_bm25_packs_source_pk_sources FOREIGN KEY (source_pk, scopes) REFERENCES public.sources(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: bm25_terms fk_bm25_terms_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bm25_terms
    ADD CONSTRAINT fk_bm25_terms_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: claim_vectors fk_claim_vectors_claim_id_claims; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.claim_vectors
    ADD CONSTRAINT fk_claim_vectors_claim_id_claims FOREIGN KEY (claim_id, scopes) REFERENCES public.claims(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: claims fk_claims_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.claims
    ADD CONSTRAINT fk_claims_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: communities fk_communities_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.communities
    ADD CONSTRAINT fk_communities_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: community_members fk_community_members_community_id_communities; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.community_members
    ADD CONSTRAINT fk_community_members_community_id_communities FOREIGN KEY (community_id, scopes) REFERENCES public.communities(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: context_models fk_context_models_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.context_models
    ADD CONSTRAINT fk_context_models_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: context_usage fk_context_usage_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.context_usage
    ADD CONSTRAINT fk_context_usage_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: grants fk_grants_scope_scopes; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.grants
    ADD CONSTRAINT fk_grants_scope_scopes FOREIGN KEY (scope) REFERENCES public.scopes(name) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: grants fk_grants_user_id_users; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.grants
    ADD CONSTRAINT fk_grants_user_id_users FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: group_children fk_group_children_child_id_groups; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_children
    ADD CONSTRAINT fk_group_children_child_id_groups FOREIGN KEY (child_id) REFERENCES public.groups(id) ON DELETE CASCADE;


--
-- Name: group_children fk_group_children_parent_id_groups; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_children
    ADD CONSTRAINT fk_group_children_parent_id_groups FOREIGN KEY (parent_id, scopes) REFERENCES public.groups(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: group_contexts fk_group_contexts_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_contexts
    ADD CONSTRAINT fk_group_contexts_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: group_contexts fk_group_contexts_group_id_groups; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_contexts
    ADD CONSTRAINT fk_group_contexts_group_id_groups FOREIGN KEY (group_id, scopes) REFERENCES public.groups(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: jobs fk_jobs_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT fk_jobs_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: jobs fk_jobs_session_pk_sessions; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT fk_jobs_session_pk_sessions FOREIGN KEY (session_pk) REFERENCES public.sessions(id) ON DELETE CASCADE;


--
-- Name: jobs fk_jobs_source_pk_sources; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT fk_jobs_source_pk_sources FOREIGN KEY (source_pk) REFERENCES public.sources(id) ON DELETE CASCADE;


--
-- Name: paragraph_vectors fk_paragraph_vectors_paragraph_id_paragraphs; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.paragraph_vectors
    ADD CONSTRAINT fk_paragraph_vectors_paragraph_id_paragraphs FOREIGN KEY (paragraph_id, scopes) REFERENCES public.paragraphs(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: paragraphs fk_paragraphs_section_id_sections; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.paragraphs
    ADD CONSTRAINT fk_paragraphs_section_id_sections FOREIGN KEY (section_id) REFERENCES public.sections(id) ON DELETE SET NULL;


--
-- Name: paragraphs fk_paragraphs_source_pk_sources; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.paragraphs
    ADD CONSTRAINT fk_paragraphs_source_pk_sources FOREIGN KEY (source_pk, scopes) REFERENCES public.sources(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: profiles fk_profiles_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.profiles
    ADD CONSTRAINT fk_profiles_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: raptor_members fk_raptor_members_node_id_raptor_nodes; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.raptor_members
    ADD CONSTRAINT fk_raptor_members_node_id_raptor_nodes FOREIGN KEY (node_id, scopes) REFERENCES public.raptor_nodes(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: raptor_nodes fk_raptor_nodes_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.raptor_nodes
    ADD CONSTRAINT fk_raptor_nodes_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: recall_traces fk_recall_traces_user_id_users; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.recall_traces
    ADD CONSTRAINT fk_recall_traces_user_id_users FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: sections fk_sections_parent_id_sections; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sections
    ADD CONSTRAINT fk_sections_parent_id_sections FOREIGN KEY (parent_id) REFERENCES public.sections(id) ON DELETE CASCADE;


--
-- Name: sections fk_sections_source_pk_sources; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sections
    ADD CONSTRAINT fk_sections_source_pk_sources FOREIGN KEY (source_pk, scopes) REFERENCES public.sources(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: session_turns fk_session_turns_session_pk_sessions; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_turns
    ADD CONSTRAINT fk_session_turns_session_pk_sessions FOREIGN KEY (session_pk, scopes) REFERENCES public.sessions(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: sessions fk_sessions_user_id_users; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT fk_sessions_user_id_users FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: sources fk_sources_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sources
    ADD CONSTRAINT fk_sources_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: turn_vectors fk_turn_vectors_turn_id_session_turns; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.turn_vectors
    ADD CONSTRAINT fk_turn_vectors_turn_id_session_turns FOREIGN KEY (turn_id, scopes) REFERENCES public.session_turns(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: vocabulary fk_vocabulary_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary
    ADD CONSTRAINT fk_vocabulary_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: vocabulary_gram_packs fk_vocabulary_gram_packs_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_gram_packs
    ADD CONSTRAINT fk_vocabulary_gram_packs_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: vocabulary_gram_stats fk_vocabulary_gram_stats_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_gram_stats
    ADD CONSTRAINT fk_vocabulary_gram_stats_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: vocabulary_grams fk_vocabulary_grams_entry_id_vocabulary; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_grams
    ADD CONSTRAINT fk_vocabulary_grams_entry_id_vocabulary FOREIGN KEY (entry_id, scopes) REFERENCES public.vocabulary(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: vocabulary_sizes fk_vocabulary_sizes_context_id_contexts; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_sizes
    ADD CONSTRAINT fk_vocabulary_sizes_context_id_contexts FOREIGN KEY (context_id) REFERENCES public.contexts(id) ON DELETE CASCADE;


--
-- Name: vocabulary_vectors fk_vocabulary_vectors_entry_id_vocabulary; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vocabulary_vectors
    ADD CONSTRAINT fk_vocabulary_vectors_entry_id_vocabulary FOREIGN KEY (entry_id, scopes) REFERENCES public.vocabulary(id, scopes) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: associations; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.associations ENABLE ROW LEVEL SECURITY;

--
-- Name: associations associations_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY associations_delete ON public.associations FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: associations associations_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY associations_insert ON public.associations FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = associations.context_id)))));


--
-- Name: associations associations_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY associations_select ON public.associations FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: associations associations_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY associations_update ON public.associations FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = associations.context_id)))));


--
-- Name: bm25_corpus; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.bm25_corpus ENABLE ROW LEVEL SECURITY;

--
-- Name: bm25_corpus bm25_corpus_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_corpus_delete ON public.bm25_corpus FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: bm25_corpus bm25_corpus_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_corpus_insert ON public.bm25_corpus FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = bm25_corpus.context_id)))));


--
-- Name: bm25_corpus bm25_corpus_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_corpus_select ON public.bm25_corpus FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: bm25_corpus bm25_corpus_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_corpus_update ON public.bm25_corpus FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = bm25_corpus.context_id)))));


--
-- Name: bm25_dead; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.bm25_dead ENABLE ROW LEVEL SECURITY;

--
-- Name: bm25_dead bm25_dead_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_dead_delete ON public.bm25_dead FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: bm25_dead bm25_dead_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_dead_insert ON public.bm25_dead FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = bm25_dead.context_id)))));


--
-- Name: bm25_dead bm25_dead_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_dead_select ON public.bm25_dead FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: bm25_dead bm25_dead_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_dead_update ON public.bm25_dead FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = bm25_dead.context_id)))));


--
-- Name: bm25_merged; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.bm25_merged ENABLE ROW LEVEL SECURITY;

--
-- Name: bm25_merged bm25_merged_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_merged_delete ON public.bm25_merged FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: bm25_merged bm25_merged_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_merged_insert ON public.bm25_merged FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = bm25_merged.context_id)))));


--
-- Name: bm25_merged bm25_merged_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_merged_select ON public.bm25_merged FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: bm25_merged bm25_merged_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_merged_update ON public.bm25_merged FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = bm25_merged.context_id)))));


--
-- Name: bm25_packs; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.bm25_packs ENABLE ROW LEVEL SECURITY;

--
-- Name: bm25_packs bm25_packs_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_packs_delete ON public.bm25_packs FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: bm25_packs bm25_packs_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_packs_insert ON public.bm25_packs FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: bm25_packs bm25_packs_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_packs_select ON public.bm25_packs FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: bm25_packs bm25_packs_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_packs_update ON public.bm25_packs FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: bm25_terms; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.bm25_terms ENABLE ROW LEVEL SECURITY;

--
-- Name: bm25_terms bm25_terms_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_terms_delete ON public.bm25_terms FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: bm25_terms bm25_terms_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_terms_insert ON public.bm25_terms FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = bm25_terms.context_id)))));


--
-- Name: bm25_terms bm25_terms_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_terms_select ON public.bm25_terms FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: bm25_terms bm25_terms_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY bm25_terms_update ON public.bm25_terms FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = bm25_terms.context_id)))));


--
-- Name: claim_vectors; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.claim_vectors ENABLE ROW LEVEL SECURITY;

--
-- Name: claim_vectors claim_vectors_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY claim_vectors_delete ON public.claim_vectors FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: claim_vectors claim_vectors_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY claim_vectors_insert ON public.claim_vectors FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: claim_vectors claim_vectors_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY claim_vectors_select ON public.claim_vectors FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: claim_vectors claim_vectors_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY claim_vectors_update ON public.claim_vectors FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: claims; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.claims ENABLE ROW LEVEL SECURITY;

--
-- Name: claims claims_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY claims_delete ON public.claims FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: claims claims_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY claims_insert ON public.claims FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = claims.context_id)))));


--
-- Name: claims claims_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY claims_select ON public.claims FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: claims claims_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY claims_update ON public.claims FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = claims.context_id)))));


--
-- Name: communities; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.communities ENABLE ROW LEVEL SECURITY;

--
-- Name: communities communities_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY communities_delete ON public.communities FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: communities communities_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY communities_insert ON public.communities FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = communities.context_id)))));


--
-- Name: communities communities_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY communities_select ON public.communities FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: communities communities_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY communities_update ON public.communities FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = communities.context_id)))));


--
-- Name: community_members; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.community_members ENABLE ROW LEVEL SECURITY;

--
-- Name: community_members community_members_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY community_members_delete ON public.community_members FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: community_members community_members_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY community_members_insert ON public.community_members FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: community_members community_members_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY community_members_select ON public.community_members FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: community_members community_members_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY community_members_update ON public.community_members FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: context_models; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.context_models ENABLE ROW LEVEL SECURITY;

--
-- Name: context_models context_models_all; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY context_models_all ON public.context_models USING ((EXISTS ( SELECT 1
   FROM public.contexts p
  WHERE (p.id = context_models.context_id)))) WITH CHECK ((EXISTS ( SELECT 1
   FROM public.contexts p
  WHERE (p.id = context_models.context_id))));


--
-- Name: context_usage; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.context_usage ENABLE ROW LEVEL SECURITY;

--
-- Name: context_usage context_usage_all; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY context_usage_all ON public.context_usage USING ((EXISTS ( SELECT 1
   FROM public.contexts p
  WHERE (p.id = context_usage.context_id)))) WITH CHECK ((EXISTS ( SELECT 1
   FROM public.contexts p
  WHERE (p.id = context_usage.context_id))));


--
-- Name: contexts; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.contexts ENABLE ROW LEVEL SECURITY;

--
-- Name: contexts contexts_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY contexts_delete ON public.contexts FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: contexts contexts_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY contexts_insert ON public.contexts FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: contexts contexts_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY contexts_select ON public.contexts FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: contexts contexts_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY contexts_update ON public.contexts FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: group_children; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.group_children ENABLE ROW LEVEL SECURITY;

--
-- Name: group_children group_children_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY group_children_delete ON public.group_children FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: group_children group_children_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY group_children_insert ON public.group_children FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: group_children group_children_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY group_children_select ON public.group_children FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: group_children group_children_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY group_children_update ON public.group_children FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: group_contexts; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.group_contexts ENABLE ROW LEVEL SECURITY;

--
-- Name: group_contexts group_contexts_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY group_contexts_delete ON public.group_contexts FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: group_contexts group_contexts_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY group_contexts_insert ON public.group_contexts FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: group_contexts group_contexts_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY group_contexts_select ON public.group_contexts FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: group_contexts group_contexts_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY group_contexts_update ON public.group_contexts FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: groups; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.groups ENABLE ROW LEVEL SECURITY;

--
-- Name: groups groups_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY groups_delete ON public.groups FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: groups groups_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY groups_insert ON public.groups FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: groups groups_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY groups_select ON public.groups FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: groups groups_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY groups_update ON public.groups FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: jobs; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.jobs ENABLE ROW LEVEL SECURITY;

--
-- Name: jobs jobs_own; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY jobs_own ON public.jobs USING (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (read_scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (read_scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes))));


--
-- Name: paragraph_vectors; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.paragraph_vectors ENABLE ROW LEVEL SECURITY;

--
-- Name: paragraph_vectors paragraph_vectors_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY paragraph_vectors_delete ON public.paragraph_vectors FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: paragraph_vectors paragraph_vectors_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY paragraph_vectors_insert ON public.paragraph_vectors FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: paragraph_vectors paragraph_vectors_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY paragraph_vectors_select ON public.paragraph_vectors FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: paragraph_vectors paragraph_vectors_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY paragraph_vectors_update ON public.paragraph_vectors FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: paragraphs; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.paragraphs ENABLE ROW LEVEL SECURITY;

--
-- Name: paragraphs paragraphs_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY paragraphs_delete ON public.paragraphs FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: paragraphs paragraphs_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY paragraphs_insert ON public.paragraphs FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: paragraphs paragraphs_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY paragraphs_select ON public.paragraphs FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: paragraphs paragraphs_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY paragraphs_update ON public.paragraphs FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: profiles; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.profiles ENABLE ROW LEVEL SECURITY;

--
-- Name: profiles profiles_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY profiles_delete ON public.profiles FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: profiles profiles_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY profiles_insert ON public.profiles FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = profiles.context_id)))));


--
-- Name: profiles profiles_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY profiles_select ON public.profiles FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: profiles profiles_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY profiles_update ON public.profiles FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = profiles.context_id)))));


--
-- Name: raptor_members; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.raptor_members ENABLE ROW LEVEL SECURITY;

--
-- Name: raptor_members raptor_members_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY raptor_members_delete ON public.raptor_members FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: raptor_members raptor_members_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY raptor_members_insert ON public.raptor_members FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: raptor_members raptor_members_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY raptor_members_select ON public.raptor_members FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: raptor_members raptor_members_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY raptor_members_update ON public.raptor_members FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: raptor_nodes; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.raptor_nodes ENABLE ROW LEVEL SECURITY;

--
-- Name: raptor_nodes raptor_nodes_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY raptor_nodes_delete ON public.raptor_nodes FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: raptor_nodes raptor_nodes_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY raptor_nodes_insert ON public.raptor_nodes FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = raptor_nodes.context_id)))));


--
-- Name: raptor_nodes raptor_nodes_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY raptor_nodes_select ON public.raptor_nodes FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: raptor_nodes raptor_nodes_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY raptor_nodes_update ON public.raptor_nodes FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = raptor_nodes.context_id)))));


--
-- Name: recall_traces; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.recall_traces ENABLE ROW LEVEL SECURITY;

--
-- Name: recall_traces recall_traces_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY recall_traces_delete ON public.recall_traces FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: recall_traces recall_traces_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY recall_traces_insert ON public.recall_traces FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: recall_traces recall_traces_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY recall_traces_select ON public.recall_traces FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: recall_traces recall_traces_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY recall_traces_update ON public.recall_traces FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: sections; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.sections ENABLE ROW LEVEL SECURITY;

--
-- Name: sections sections_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY sections_delete ON public.sections FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: sections sections_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY sections_insert ON public.sections FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: sections sections_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY sections_select ON public.sections FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: sections sections_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY sections_update ON public.sections FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: session_turns; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.session_turns ENABLE ROW LEVEL SECURITY;

--
-- Name: session_turns session_turns_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY session_turns_delete ON public.session_turns FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: session_turns session_turns_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY session_turns_insert ON public.session_turns FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: session_turns session_turns_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY session_turns_select ON public.session_turns FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: session_turns session_turns_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY session_turns_update ON public.session_turns FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: sessions; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.sessions ENABLE ROW LEVEL SECURITY;

--
-- Name: sessions sessions_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY sessions_delete ON public.sessions FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: sessions sessions_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY sessions_insert ON public.sessions FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: sessions sessions_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY sessions_select ON public.sessions FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: sessions sessions_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY sessions_update ON public.sessions FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: sources; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.sources ENABLE ROW LEVEL SECURITY;

--
-- Name: sources sources_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY sources_delete ON public.sources FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: sources sources_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY sources_insert ON public.sources FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = sources.context_id)))));


--
-- Name: sources sources_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY sources_select ON public.sources FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: sources sources_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY sources_update ON public.sources FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = sources.context_id)))));


--
-- Name: turn_vectors; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.turn_vectors ENABLE ROW LEVEL SECURITY;

--
-- Name: turn_vectors turn_vectors_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY turn_vectors_delete ON public.turn_vectors FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: turn_vectors turn_vectors_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY turn_vectors_insert ON public.turn_vectors FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: turn_vectors turn_vectors_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY turn_vectors_select ON public.turn_vectors FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: turn_vectors turn_vectors_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY turn_vectors_update ON public.turn_vectors FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: vocabulary; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.vocabulary ENABLE ROW LEVEL SECURITY;

--
-- Name: vocabulary vocabulary_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_delete ON public.vocabulary FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: vocabulary_gram_packs; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.vocabulary_gram_packs ENABLE ROW LEVEL SECURITY;

--
-- Name: vocabulary_gram_packs vocabulary_gram_packs_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_gram_packs_delete ON public.vocabulary_gram_packs FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: vocabulary_gram_packs vocabulary_gram_packs_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_gram_packs_insert ON public.vocabulary_gram_packs FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = vocabulary_gram_packs.context_id)))));


--
-- Name: vocabulary_gram_packs vocabulary_gram_packs_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_gram_packs_select ON public.vocabulary_gram_packs FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: vocabulary_gram_packs vocabulary_gram_packs_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_gram_packs_update ON public.vocabulary_gram_packs FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = vocabulary_gram_packs.context_id)))));


--
-- Name: vocabulary_gram_stats; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.vocabulary_gram_stats ENABLE ROW LEVEL SECURITY;

--
-- Name: vocabulary_gram_stats vocabulary_gram_stats_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_gram_stats_delete ON public.vocabulary_gram_stats FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: vocabulary_gram_stats vocabulary_gram_stats_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_gram_stats_insert ON public.vocabulary_gram_stats FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = vocabulary_gram_stats.context_id)))));


--
-- Name: vocabulary_gram_stats vocabulary_gram_stats_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_gram_stats_select ON public.vocabulary_gram_stats FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: vocabulary_gram_stats vocabulary_gram_stats_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_gram_stats_update ON public.vocabulary_gram_stats FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = vocabulary_gram_stats.context_id)))));


--
-- Name: vocabulary_grams; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.vocabulary_grams ENABLE ROW LEVEL SECURITY;

--
-- Name: vocabulary_grams vocabulary_grams_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_grams_delete ON public.vocabulary_grams FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: vocabulary_grams vocabulary_grams_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_grams_insert ON public.vocabulary_grams FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: vocabulary_grams vocabulary_grams_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_grams_select ON public.vocabulary_grams FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: vocabulary_grams vocabulary_grams_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_grams_update ON public.vocabulary_grams FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: vocabulary vocabulary_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_insert ON public.vocabulary FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = vocabulary.context_id)))));


--
-- Name: vocabulary vocabulary_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_select ON public.vocabulary FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: vocabulary_sizes; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.vocabulary_sizes ENABLE ROW LEVEL SECURITY;

--
-- Name: vocabulary_sizes vocabulary_sizes_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_sizes_delete ON public.vocabulary_sizes FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: vocabulary_sizes vocabulary_sizes_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_sizes_insert ON public.vocabulary_sizes FOR INSERT WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = vocabulary_sizes.context_id)))));


--
-- Name: vocabulary_sizes vocabulary_sizes_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_sizes_select ON public.vocabulary_sizes FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: vocabulary_sizes vocabulary_sizes_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_sizes_update ON public.vocabulary_sizes FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = vocabulary_sizes.context_id)))));


--
-- Name: vocabulary vocabulary_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_update ON public.vocabulary FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK (((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)) AND (EXISTS ( SELECT 1
   FROM public.contexts c
  WHERE (c.id = vocabulary.context_id)))));


--
-- Name: vocabulary_vectors; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.vocabulary_vectors ENABLE ROW LEVEL SECURITY;

--
-- Name: vocabulary_vectors vocabulary_vectors_delete; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_vectors_delete ON public.vocabulary_vectors FOR DELETE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: vocabulary_vectors vocabulary_vectors_insert; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_vectors_insert ON public.vocabulary_vectors FOR INSERT WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: vocabulary_vectors vocabulary_vectors_select; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_vectors_select ON public.vocabulary_vectors FOR SELECT USING (((scopes <@ ( SELECT public.tabane_read_scopes() AS tabane_read_scopes)) OR (scopes = ARRAY['public'::text])));


--
-- Name: vocabulary_vectors vocabulary_vectors_update; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY vocabulary_vectors_update ON public.vocabulary_vectors FOR UPDATE USING ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes))) WITH CHECK ((scopes <@ ( SELECT public.tabane_write_scopes() AS tabane_write_scopes)));


--
-- Name: FUNCTION tabane_hold_user(uid bigint); Type: ACL; Schema: public; Owner: -
--

GRANT ALL ON FUNCTION public.tabane_hold_user(uid bigint) TO tabane_app;


--
-- Name: TABLE api_keys; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.api_keys TO tabane_app;


--
-- Name: SEQUENCE api_keys_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.api_keys_id_seq TO tabane_app;


--
-- Name: TABLE associations; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.associations TO tabane_app;


--
-- Name: SEQUENCE associations_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.associations_id_seq TO tabane_app;


--
-- Name: TABLE bm25_corpus; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.bm25_corpus TO tabane_app;


--
-- Name: SEQUENCE bm25_corpus_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.bm25_corpus_id_seq TO tabane_app;


--
-- Name: TABLE bm25_dead; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.bm25_dead TO tabane_app;


--
-- Name: SEQUENCE bm25_dead_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.bm25_dead_id_seq TO tabane_app;


--
-- Name: TABLE bm25_merged; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.bm25_merged TO tabane_app;


--
-- Name: TABLE bm25_packs; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.bm25_packs TO tabane_app;


--
-- Name: TABLE bm25_terms; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.bm25_terms TO tabane_app;


--
-- Name: SEQUENCE bm25_terms_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.bm25_terms_id_seq TO tabane_app;


--
-- Name: TABLE claim_vectors; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.claim_vectors TO tabane_app;


--
-- Name: TABLE claims; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.claims TO tabane_app;


--
-- Name: SEQUENCE claims_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.claims_id_seq TO tabane_app;


--
-- Name: TABLE communities; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.communities TO tabane_app;


--
-- Name: SEQUENCE communities_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.communities_id_seq TO tabane_app;


--
-- Name: TABLE community_members; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.community_members TO tabane_app;


--
-- Name: TABLE context_models; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.context_models TO tabane_app;


--
-- Name: TABLE context_usage; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.context_usage TO tabane_app;


--
-- Name: TABLE contexts; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.contexts TO tabane_app;


--
-- Name: SEQUENCE contexts_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.contexts_id_seq TO tabane_app;


--
-- Name: TABLE grants; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.grants TO tabane_app;


--
-- Name: TABLE group_children; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.group_children TO tabane_app;


--
-- Name: TABLE group_contexts; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.group_contexts TO tabane_app;


--
-- Name: TABLE groups; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.groups TO tabane_app;


--
-- Name: SEQUENCE groups_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.groups_id_seq TO tabane_app;


--
-- Name: TABLE jobs; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.jobs TO tabane_app;


--
-- Name: SEQUENCE jobs_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.jobs_id_seq TO tabane_app;


--
-- Name: TABLE paragraph_vectors; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.paragraph_vectors TO tabane_app;


--
-- Name: TABLE paragraphs; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.paragraphs TO tabane_app;


--
-- Name: SEQUENCE paragraphs_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.paragraphs_id_seq TO tabane_app;


--
-- Name: TABLE profiles; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.profiles TO tabane_app;


--
-- Name: SEQUENCE profiles_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.profiles_id_seq TO tabane_app;


--
-- Name: TABLE raptor_members; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.raptor_members TO tabane_app;


--
-- Name: TABLE raptor_nodes; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.raptor_nodes TO tabane_app;


--
-- Name: SEQUENCE raptor_nodes_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.raptor_nodes_id_seq TO tabane_app;


--
-- Name: TABLE recall_traces; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.recall_traces TO tabane_app;


--
-- Name: SEQUENCE recall_traces_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.recall_traces_id_seq TO tabane_app;


--
-- Name: TABLE scopes; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.scopes TO tabane_app;


--
-- Name: TABLE sections; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.sections TO tabane_app;


--
-- Name: SEQUENCE sections_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.sections_id_seq TO tabane_app;


--
-- Name: TABLE session_turns; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.session_turns TO tabane_app;


--
-- Name: SEQUENCE session_turns_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.session_turns_id_seq TO tabane_app;


--
-- Name: TABLE sessions; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.sessions TO tabane_app;


--
-- Name: SEQUENCE sessions_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.sessions_id_seq TO tabane_app;


--
-- Name: TABLE sources; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.sources TO tabane_app;


--
-- Name: SEQUENCE sources_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.sources_id_seq TO tabane_app;


--
-- Name: TABLE turn_vectors; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.turn_vectors TO tabane_app;


--
-- Name: TABLE users; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.users TO tabane_app;


--
-- Name: SEQUENCE users_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.users_id_seq TO tabane_app;


--
-- Name: TABLE vocabulary; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.vocabulary TO tabane_app;


--
-- Name: TABLE vocabulary_gram_packs; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.vocabulary_gram_packs TO tabane_app;


--
-- Name: TABLE vocabulary_gram_stats; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.vocabulary_gram_stats TO tabane_app;


--
-- Name: SEQUENCE vocabulary_gram_stats_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.vocabulary_gram_stats_id_seq TO tabane_app;


--
-- Name: TABLE vocabulary_grams; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.vocabulary_grams TO tabane_app;


--
-- Name: SEQUENCE vocabulary_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.vocabulary_id_seq TO tabane_app;


--
-- Name: TABLE vocabulary_sizes; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.vocabulary_sizes TO tabane_app;


--
-- Name: SEQUENCE vocabulary_sizes_id_seq; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,USAGE ON SEQUENCE public.vocabulary_sizes_id_seq TO tabane_app;


--
-- Name: TABLE vocabulary_vectors; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.vocabulary_vectors TO tabane_app;


--
-- PostgreSQL database dump complete
--

\unrestrict maVbkN75vxXckJKgGVyyiE0QqObHVLfajucB6Nm9hId9tZIbyKxEjnvUElQw41o

