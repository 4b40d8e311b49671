-- pg_mcp registry, audit and secret tables (runs before the Rust functions are created).
-- Everything lives in the extension schema "mcp" (fixed by the control file).
-- Grants and the triggers that call Rust checks are in finalize.sql.

------------------------------------------------------------------------------------------------
-- LLM providers
------------------------------------------------------------------------------------------------
CREATE TABLE mcp.provider (
    name            text PRIMARY KEY
                    CONSTRAINT provider_name_format CHECK (name ~ '^[a-zA-Z0-9_.-]{1,64}$'),
    kind            text NOT NULL
                    CONSTRAINT provider_kind_known CHECK (kind IN ('openai', 'azure', 'anthropic', 'replay')),
    base_url        text
                    CONSTRAINT provider_base_url_http CHECK (base_url IS NULL OR base_url ~ '^https?://[^\s]+$'),
    model           text,
    api_version     text,
    options         jsonb NOT NULL DEFAULT '{}'
                    CONSTRAINT provider_options_object CHECK (jsonb_typeof(options) = 'object')
                    -- CASE, not AND: the cast must only run on numbers
                    CONSTRAINT provider_options_prices CHECK (
                        CASE jsonb_typeof(options -> 'price_per_1k_prompt')
                            WHEN 'number' THEN (options ->> 'price_per_1k_prompt')::numeric >= 0
                            ELSE options -> 'price_per_1k_prompt' IS NULL END
                        AND CASE jsonb_typeof(options -> 'price_per_1k_completion')
                            WHEN 'number' THEN (options ->> 'price_per_1k_completion')::numeric >= 0
                            ELSE options -> 'price_per_1k_completion' IS NULL END),
    context_window  integer NOT NULL DEFAULT 32768
                    CONSTRAINT provider_context_window_positive CHECK (context_window BETWEEN 256 AND 10000000),
    max_completion_tokens integer NOT NULL DEFAULT 1024
                    CONSTRAINT provider_completion_tokens_positive CHECK (max_completion_tokens BETWEEN 1 AND 1000000),
    timeout_ms      integer
                    CONSTRAINT provider_timeout_positive CHECK (timeout_ms IS NULL OR timeout_ms > 0),
    description     text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT provider_base_url_required CHECK (kind = 'replay' OR base_url IS NOT NULL),
    CONSTRAINT provider_model_required CHECK (kind = 'replay' OR model IS NOT NULL),
    CONSTRAINT provider_azure_api_version CHECK (kind <> 'azure' OR api_version IS NOT NULL),
    CONSTRAINT provider_context_exceeds_completion CHECK (context_window > max_completion_tokens)
);
COMMENT ON TABLE mcp.provider IS
  'LLM endpoints the chat loop can call. An interface points at one provider; change a row to switch model or vendor without touching code. API keys are NOT here: see mcp.set_api_key().';
COMMENT ON COLUMN mcp.provider.name IS 'Identifier used by mcp.interface.provider and mcp.set_api_key().';
COMMENT ON COLUMN mcp.provider.kind IS 'openai = any OpenAI-compatible chat-completions server (OpenAI, Mistral, Ollama, vLLM, llama.cpp); azure = Azure OpenAI deployment; anthropic = Anthropic Messages API; replay = answers from recorded responses.';
COMMENT ON COLUMN mcp.provider.base_url IS 'Endpoint root, e.g. https://api.openai.com/v1, https://api.mistral.ai/v1, http://127.0.0.1:11434/v1; for azure the resource URL https://NAME.openai.azure.com.';
COMMENT ON COLUMN mcp.provider.model IS 'Model name sent in the request (for azure: the deployment name).';
COMMENT ON COLUMN mcp.provider.api_version IS 'Azure OpenAI api-version query parameter.';
COMMENT ON COLUMN mcp.provider.options IS 'Extra request fields (temperature, top_p, …) merged into every request body. Two keys are pg_mcp''s own and never sent: price_per_1k_prompt and price_per_1k_completion (numbers >= 0, price per 1000 tokens, for mcp.recent_runs.estimated_cost).';
COMMENT ON COLUMN mcp.provider.context_window IS 'Model context window in tokens; the chat loop prunes history to stay below it.';
COMMENT ON COLUMN mcp.provider.max_completion_tokens IS 'Tokens reserved for the answer (max_tokens in the request).';
COMMENT ON COLUMN mcp.provider.timeout_ms IS 'Per-request timeout; NULL = mcp.http_timeout_ms.';
COMMENT ON COLUMN mcp.provider.description IS 'Free text for admins.';
COMMENT ON COLUMN mcp.provider.created_at IS 'When the row was created.';

-- Secrets: no grant to anybody but the extension owner, and encrypted at rest. The Rust code
-- reads this table as the owner (never as the calling role) and opens a key with the server key
-- (mcp.server_key_file), a file outside the database: pg_read_all_data members and pg_dump see
-- ciphertext only.
CREATE TABLE mcp.provider_secret (
    -- The key is sealed to the provider's name (associated data): renaming a provider that has a
    -- key is refused instead of leaving a key that no longer opens.
    provider    text PRIMARY KEY
                CONSTRAINT provider_secret_sealed_to_provider_name
                REFERENCES mcp.provider (name) ON UPDATE RESTRICT ON DELETE CASCADE,
    key_id      text NOT NULL CONSTRAINT provider_secret_key_id_format CHECK (key_id ~ '^[0-9a-f]{16}$'),
    nonce       bytea NOT NULL CONSTRAINT provider_secret_nonce_length CHECK (length(nonce) = 24),
    ciphertext  bytea NOT NULL CONSTRAINT provider_secret_ciphertext_length CHECK (length(ciphertext) > 16),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    updated_by  name NOT NULL DEFAULT session_user
);
COMMENT ON TABLE mcp.provider_secret IS
  'API keys per provider, encrypted with the server key (mcp.server_key_file). Not readable by PUBLIC; written only through mcp.set_api_key(). Keys never appear in logs, errors or audit rows.';
COMMENT ON COLUMN mcp.provider_secret.provider IS 'The provider the key belongs to; the key is sealed to this name, so the provider cannot be renamed while it has a key.';
COMMENT ON COLUMN mcp.provider_secret.key_id IS 'Id of the server key that sealed the key (16 hex digits of a SHA-256 over the server key); another key file gives a clear error naming both ids.';
COMMENT ON COLUMN mcp.provider_secret.nonce IS 'Random 24-byte XChaCha20-Poly1305 nonce of this ciphertext.';
COMMENT ON COLUMN mcp.provider_secret.ciphertext IS 'The API key encrypted with XChaCha20-Poly1305 (provider name as associated data) and its 16-byte tag. Sent, once opened, as Authorization: Bearer (openai), api-key (azure) or x-api-key (anthropic).';
COMMENT ON COLUMN mcp.provider_secret.updated_at IS 'When the key was last set.';
COMMENT ON COLUMN mcp.provider_secret.updated_by IS 'Session user who set it.';

------------------------------------------------------------------------------------------------
-- Interfaces (chatbot, document analysis, ontology …)
------------------------------------------------------------------------------------------------
CREATE TABLE mcp.interface (
    name            text PRIMARY KEY
                    CONSTRAINT interface_name_format CHECK (name ~ '^[a-zA-Z0-9_.-]{1,64}$'),
    description     text,
    provider        text REFERENCES mcp.provider (name) ON UPDATE CASCADE ON DELETE SET NULL,
    tool_choice     text NOT NULL DEFAULT 'auto'
                    CONSTRAINT interface_tool_choice_valid
                    CHECK (tool_choice IN ('none', 'auto', 'required') OR tool_choice ~ '^function:[a-zA-Z0-9_-]{1,64}$'),
    max_iterations  integer NOT NULL DEFAULT 10
                    CONSTRAINT interface_max_iterations_range CHECK (max_iterations BETWEEN 1 AND 25),
    max_total_tokens integer
                    CONSTRAINT interface_max_total_tokens_positive CHECK (max_total_tokens IS NULL OR max_total_tokens > 0),
    system_prompt   text NOT NULL DEFAULT 'system',
    enabled         boolean NOT NULL DEFAULT true,
    created_at      timestamptz NOT NULL DEFAULT now(),
    -- text, not regrole: the role is named like pg_hba.conf names it; checked on write (trigger
    -- in finalize.sql) and with pg_has_role semantics at use
    access_role     text,
    deadline_ms     integer
                    CONSTRAINT interface_deadline_ms_positive CHECK (deadline_ms IS NULL OR deadline_ms > 0)
);
COMMENT ON TABLE mcp.interface IS
  'An application surface (chatbot, document analysis, ontology …) with its own tool set, provider and chat defaults.';
COMMENT ON COLUMN mcp.interface.name IS 'Identifier passed to mcp.chat(), mcp.list_tools(), mcp.call_tool().';
COMMENT ON COLUMN mcp.interface.description IS 'Free text for admins.';
COMMENT ON COLUMN mcp.interface.provider IS 'Default LLM provider of this interface.';
COMMENT ON COLUMN mcp.interface.tool_choice IS 'none | auto | required | function:<tool> (force one tool on the first request).';
COMMENT ON COLUMN mcp.interface.max_iterations IS 'LLM round trips per chat before status max_iterations (hard cap 25).';
COMMENT ON COLUMN mcp.interface.max_total_tokens IS 'Token budget per chat run (prompt + completion over all requests); NULL = no budget.';
COMMENT ON COLUMN mcp.interface.system_prompt IS 'Name of the active mcp.prompt used as system prompt.';
COMMENT ON COLUMN mcp.interface.enabled IS 'A disabled interface lists no tools and refuses chats.';
COMMENT ON COLUMN mcp.interface.access_role IS 'Who may use the interface (mcp.chat, mcp.list_tools, mcp.call_tool): roles with the privileges of this role (members that inherit it, as for a GRANT), ''public'' = every role, NULL (the default) = closed: only superusers and roles with UPDATE on mcp.interface.';
COMMENT ON COLUMN mcp.interface.created_at IS 'When the row was created.';
COMMENT ON COLUMN mcp.interface.deadline_ms IS 'Time budget of a chat run in milliseconds, every LLM request and retry included (status deadline_exceeded); mcp.chat''s option deadline_ms may lower it. NULL = no budget beyond the provider timeout and retries.';

------------------------------------------------------------------------------------------------
-- Tools
------------------------------------------------------------------------------------------------
CREATE TABLE mcp.tool (
    name            text PRIMARY KEY
                    CONSTRAINT tool_name_format CHECK (name ~ '^[a-zA-Z0-9_-]{1,64}$'),
    description     text NOT NULL
                    CONSTRAINT tool_description_not_empty CHECK (length(btrim(description)) > 0),
    parameters      jsonb NOT NULL DEFAULT '{"type": "object", "properties": {}}',
    function        text,
    kind            text NOT NULL DEFAULT 'function'
                    CONSTRAINT tool_kind_known CHECK (kind IN ('function', 'builtin', 'report')),
    body            text,
    enabled         boolean NOT NULL DEFAULT true,
    read_only       boolean NOT NULL DEFAULT true,
    timeout_ms      integer
                    CONSTRAINT tool_timeout_positive CHECK (timeout_ms IS NULL OR timeout_ms > 0),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tool_function_required CHECK (kind <> 'function' OR function IS NOT NULL),
    CONSTRAINT tool_report_body CHECK ((kind = 'report') = (body IS NOT NULL))
);
COMMENT ON TABLE mcp.tool IS
  'Tools the model may call. The description is a prompt for the model; parameters is the JSON Schema of the arguments; function is the SQL function that implements it (called as the calling role, arguments bound by name).';
COMMENT ON COLUMN mcp.tool.name IS 'Tool name as the model sees it (^[a-zA-Z0-9_-]{1,64}$).';
COMMENT ON COLUMN mcp.tool.description IS 'What the tool does and when to use it: written for the model.';
COMMENT ON COLUMN mcp.tool.parameters IS 'JSON Schema (type object) of the arguments; checked against the meta-schema on insert/update.';
COMMENT ON COLUMN mcp.tool.function IS 'Signature of the implementing SQL function, e.g. demo.get_tarifvertrag(text, text, text[]); each schema property maps to the function argument of the same name. Checked with to_regprocedure on write and stored schema-qualified (mcp.function_signature), resolved again at every call: a function renamed or dropped later makes the tool fail with an error naming the signature (see mcp.unresolved_functions). Text, not regprocedure, so that pg_upgrade can carry the cluster. NULL for report tools and the built-ins sql_query and schema_information.';
COMMENT ON COLUMN mcp.tool.kind IS 'function = admin-registered SQL function; builtin = shipped with pg_mcp; report = reviewed parameterized SQL in body.';
COMMENT ON COLUMN mcp.tool.body IS 'Report tools only: one reviewed read-only query; $1..$n are the properties of parameters in alphabetical order of their names, bound as typed values (integer → bigint, number → numeric, string → text or date/timestamptz/time/uuid by format, arrays → text[]/bigint[]/…, objects → jsonb). Runs read-only, as the calling role, always rolled back.';
COMMENT ON COLUMN mcp.tool.enabled IS 'A disabled tool is never listed and never called.';
COMMENT ON COLUMN mcp.tool.read_only IS 'The tool does not change data (advertised to MCP clients as readOnlyHint).';
COMMENT ON COLUMN mcp.tool.timeout_ms IS 'Time limit of one call of this tool in milliseconds (the call is canceled and reported as a tool error); NULL = mcp.tool_timeout_ms.';
COMMENT ON COLUMN mcp.tool.created_at IS 'When the row was created.';
COMMENT ON COLUMN mcp.tool.updated_at IS 'When the row was last changed.';

CREATE TABLE mcp.interface_tool (
    interface   text NOT NULL REFERENCES mcp.interface (name) ON UPDATE CASCADE ON DELETE CASCADE,
    tool        text NOT NULL REFERENCES mcp.tool (name) ON UPDATE CASCADE ON DELETE CASCADE,
    PRIMARY KEY (interface, tool)
);
COMMENT ON TABLE mcp.interface_tool IS 'Which tools an interface may offer to the model. A tool not mapped here is not listed and not callable through that interface.';
COMMENT ON COLUMN mcp.interface_tool.interface IS 'The interface.';
COMMENT ON COLUMN mcp.interface_tool.tool IS 'A tool the interface offers.';

------------------------------------------------------------------------------------------------
-- Resources and prompt templates (MCP resources/*, prompts/*)
------------------------------------------------------------------------------------------------
CREATE TABLE mcp.resource (
    uri         text PRIMARY KEY
                CONSTRAINT resource_uri_format CHECK (uri ~ '^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]+$'),
    name        text NOT NULL,
    description text,
    mime_type   text NOT NULL DEFAULT 'text/plain',
    function    text,
    query       text,
    enabled     boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT resource_reader CHECK ((function IS NULL) <> (query IS NULL))
);
COMMENT ON TABLE mcp.resource IS 'Data the model or an MCP client can read (documents, thesaurus, dictionary data). Read through a SQL function or a reviewed query, as the calling role.';
COMMENT ON COLUMN mcp.resource.uri IS 'Resource URI, e.g. pgmcp://tarif/metall-bayern.';
COMMENT ON COLUMN mcp.resource.name IS 'Human-readable name.';
COMMENT ON COLUMN mcp.resource.description IS 'What the resource holds.';
COMMENT ON COLUMN mcp.resource.mime_type IS 'MIME type of the content.';
COMMENT ON COLUMN mcp.resource.function IS 'Signature of the function returning the content (text or jsonb), e.g. demo.tarif_text(integer); checked and stored schema-qualified like mcp.tool.function. Exactly one of function and query is set.';
COMMENT ON COLUMN mcp.resource.query IS 'Reviewed SELECT returning the content in its first column.';
COMMENT ON COLUMN mcp.resource.enabled IS 'A disabled resource is not listed.';
COMMENT ON COLUMN mcp.resource.created_at IS 'When the row was created.';

CREATE TABLE mcp.prompt (
    name        text NOT NULL
                CONSTRAINT prompt_name_format CHECK (name ~ '^[a-zA-Z0-9_.-]{1,64}$'),
    version     integer NOT NULL DEFAULT 1 CONSTRAINT prompt_version_positive CHECK (version > 0),
    role        text NOT NULL DEFAULT 'system'
                CONSTRAINT prompt_role_known CHECK (role IN ('system', 'user', 'assistant')),
    template    text NOT NULL CONSTRAINT prompt_template_not_empty CHECK (length(btrim(template)) > 0),
    variables   text[] NOT NULL DEFAULT '{}',
    description text,
    active      boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now(),
    completions jsonb CONSTRAINT prompt_completions_object
                CHECK (completions IS NULL OR jsonb_typeof(completions) = 'object'),
    PRIMARY KEY (name, version)
);
CREATE UNIQUE INDEX prompt_one_active_version ON mcp.prompt (name) WHERE active;
COMMENT ON TABLE mcp.prompt IS 'Versioned prompt templates; {{variable}} placeholders are filled at use. One active version per name.';
COMMENT ON COLUMN mcp.prompt.name IS 'Template name (interfaces refer to it).';
COMMENT ON COLUMN mcp.prompt.version IS 'Version number; keep old versions for audit and rollback.';
COMMENT ON COLUMN mcp.prompt.role IS 'Message role the rendered text is sent as.';
COMMENT ON COLUMN mcp.prompt.template IS 'Text with {{variable}} placeholders.';
COMMENT ON COLUMN mcp.prompt.variables IS 'Declared variables; rendering refuses undeclared or missing ones.';
COMMENT ON COLUMN mcp.prompt.description IS 'What the prompt is for.';
COMMENT ON COLUMN mcp.prompt.active IS 'The version in use (at most one per name).';
COMMENT ON COLUMN mcp.prompt.created_at IS 'When the row was created.';
COMMENT ON COLUMN mcp.prompt.completions IS 'Suggested values per variable for MCP completion/complete, e.g. {"region": ["Bayern", "Hessen"]}: a static list (no query runs); NULL = no suggestions.';

------------------------------------------------------------------------------------------------
-- Audit (operator-only: no grant to PUBLIC; rows are written by pg_mcp as the extension owner)
------------------------------------------------------------------------------------------------
CREATE TABLE mcp.run (
    run_id      uuid PRIMARY KEY,
    session_id  uuid,
    interface   text,
    provider    text,
    role_name   name NOT NULL DEFAULT current_user,
    question    text,
    status      text NOT NULL DEFAULT 'running',
    answer      text,
    iterations  integer NOT NULL DEFAULT 0,
    prompt_tokens bigint NOT NULL DEFAULT 0
                CONSTRAINT run_prompt_tokens_not_negative CHECK (prompt_tokens >= 0),
    completion_tokens bigint NOT NULL DEFAULT 0
                CONSTRAINT run_completion_tokens_not_negative CHECK (completion_tokens >= 0),
    error       jsonb,
    started_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at timestamptz,
    clipped     jsonb,
    plan        jsonb,
    backend_pid integer,
    backend_start timestamptz,
    traceparent text,
    tracestate  text
);
-- The audit worker looks for open runs of backends that are gone.
CREATE INDEX run_open_idx ON mcp.run (backend_pid) WHERE status = 'running';
COMMENT ON TABLE mcp.run IS 'One row per mcp.chat() call (or direct mcp.call_tool() outside a chat: no row, run_id NULL in tool_call).';
COMMENT ON COLUMN mcp.run.run_id IS 'Identifier of the run; application_name shows mcp:<run_id> while its tools run.';
COMMENT ON COLUMN mcp.run.session_id IS 'Conversation the run belongs to.';
COMMENT ON COLUMN mcp.run.interface IS 'Interface used.';
COMMENT ON COLUMN mcp.run.provider IS 'Provider used.';
COMMENT ON COLUMN mcp.run.role_name IS 'Role that ran the chat.';
COMMENT ON COLUMN mcp.run.question IS 'The user question (cut to mcp.audit_max_value_bytes; see clipped).';
COMMENT ON COLUMN mcp.run.status IS 'running, completed, needs_input, max_iterations, budget_exceeded, loop_detected, failed, cancelled, client_gone (the client closed its connection while the run waited; the run was stopped), deadline_exceeded (deadline_ms ran out, retries included), tool_choice_violated (tool_choice required a tool call; the model answered with text, also after one correction), truncated (the answer was cut off at the output token limit; answer holds the partial text), aborted (the backend ended before the run did: terminated, killed or crashed; set by the backend on its way out or by the audit worker).';
COMMENT ON COLUMN mcp.run.answer IS 'Final answer text (cut to mcp.audit_max_value_bytes; see clipped).';
COMMENT ON COLUMN mcp.run.iterations IS 'LLM round trips.';
COMMENT ON COLUMN mcp.run.prompt_tokens IS 'Prompt tokens over all requests, as reported by the provider (or estimated); summed without overflow and clamped to 0 .. 2^53-1.';
COMMENT ON COLUMN mcp.run.completion_tokens IS 'Completion tokens over all requests; clamped to 0 .. 2^53-1 like prompt_tokens.';
COMMENT ON COLUMN mcp.run.error IS 'Normalized error when the run failed.';
COMMENT ON COLUMN mcp.run.started_at IS 'Start time.';
COMMENT ON COLUMN mcp.run.finished_at IS 'End time.';
COMMENT ON COLUMN mcp.run.clipped IS 'Values of this row cut to mcp.audit_max_value_bytes: {"<column>": {"bytes": original size, "sha256": hex digest of the original}}; NULL when nothing was cut. Text is hashed as its UTF-8 bytes, jsonb as its canonical text (mcp.audit_digest).';
COMMENT ON COLUMN mcp.run.plan IS 'Execution plan of the run (issue 12): {plan, score, forced, continued, min_score, best, entities, missing, steps}: the plan chosen (NULL: none scored min_score, the interface''s defaults were used), its score, the analysis'' entities and the steps taken (asks, prompts, pre-step tool calls with their tool_call_id, the model phase''s tools and tool_choice). NULL when the interface has no plans.';
COMMENT ON COLUMN mcp.run.backend_pid IS 'Process id of the backend that ran the chat, set when the run was recorded through the durable audit worker (NULL otherwise): with backend_start it lets the worker mark runs of vanished backends aborted.';
COMMENT ON COLUMN mcp.run.backend_start IS 'Start time of that backend (pg_stat_activity.backend_start), so a reused pid is not taken for the same backend.';
COMMENT ON COLUMN mcp.run.traceparent IS 'W3C traceparent of the client request the run belongs to (params._meta.traceparent of an MCP request, else the setting mcp.traceparent); stored only when valid (lower-case hex, version not ff, ids not zero), NULL otherwise.';
COMMENT ON COLUMN mcp.run.tracestate IS 'W3C tracestate sent with that traceparent (at most 512 characters and 32 key=value members); NULL without a valid traceparent or when malformed.';

CREATE TABLE mcp.tool_call (
    call_id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id          uuid,
    tool_call_id    text,
    tool            text NOT NULL,
    interface       text,
    role_name       name NOT NULL DEFAULT current_user,
    arguments_raw   text,
    arguments       jsonb,
    validation_errors jsonb,
    status          text NOT NULL
                    CONSTRAINT tool_call_status_known CHECK (status IN ('ok', 'error', 'invalid', 'denied', 'skipped')),
    result_size     bigint
                    CONSTRAINT tool_call_result_size_not_negative CHECK (result_size >= 0),
    result_preview  text,
    latency_ms      double precision,
    error_sqlstate  text,
    error_message   text,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    clipped         jsonb,
    traceparent text,
    tracestate  text
);
CREATE INDEX tool_call_run_idx ON mcp.tool_call (run_id);
CREATE INDEX tool_call_created_idx ON mcp.tool_call (created_at);
COMMENT ON TABLE mcp.tool_call IS 'Every tool execution (chat or direct mcp.call_tool), with the operator-only error detail the model and caller never see.';
COMMENT ON COLUMN mcp.tool_call.call_id IS 'Identifier of the call (shown to the caller on errors so an operator can find the detail).';
COMMENT ON COLUMN mcp.tool_call.run_id IS 'Chat run, NULL for a direct mcp.call_tool().';
COMMENT ON COLUMN mcp.tool_call.tool_call_id IS 'The model''s tool_call id (cut to mcp.audit_max_value_bytes).';
COMMENT ON COLUMN mcp.tool_call.tool IS 'Tool name as requested (cut to mcp.audit_max_value_bytes: a caller or model may send anything).';
COMMENT ON COLUMN mcp.tool_call.interface IS 'Interface the call went through.';
COMMENT ON COLUMN mcp.tool_call.role_name IS 'Role the tool ran as.';
COMMENT ON COLUMN mcp.tool_call.arguments_raw IS 'Arguments exactly as received from the model (before repair), cut to mcp.audit_max_value_bytes.';
COMMENT ON COLUMN mcp.tool_call.arguments IS 'Parsed arguments, cut to mcp.audit_max_value_bytes with their structure kept (long strings cut, long arrays keep their first and last items).';
COMMENT ON COLUMN mcp.tool_call.validation_errors IS 'Schema validation errors (status invalid), cut to mcp.audit_max_value_bytes.';
COMMENT ON COLUMN mcp.tool_call.status IS 'ok, error (the tool raised), invalid (arguments refused or incomplete), denied (not allowed for the role/interface, unknown, or tool_choice none), skipped (not executed because the chat run stopped: iteration cap, token budget, loop, cancel).';
COMMENT ON COLUMN mcp.tool_call.result_size IS 'Size of the whole result text in bytes.';
COMMENT ON COLUMN mcp.tool_call.result_preview IS 'First 500 characters of the result; a longer result''s sha256 is in clipped.';
COMMENT ON COLUMN mcp.tool_call.latency_ms IS 'Execution time.';
COMMENT ON COLUMN mcp.tool_call.error_sqlstate IS 'Operator-only: SQLSTATE of the error the tool raised.';
COMMENT ON COLUMN mcp.tool_call.error_message IS 'Operator-only: the error message the tool raised; for a call the chat engine answered itself (status invalid, denied or skipped without SQLSTATE), why it was not run (cut to mcp.audit_max_value_bytes).';
COMMENT ON COLUMN mcp.tool_call.created_at IS 'When the call ran.';
COMMENT ON COLUMN mcp.tool_call.clipped IS 'Values of this row that were cut (to mcp.audit_max_value_bytes, or the 500-character result preview): {"<column>": {"bytes": original size, "sha256": hex digest of the original}}; NULL when nothing was cut. Text is hashed as its UTF-8 bytes, jsonb as its canonical text (mcp.audit_digest).';
COMMENT ON COLUMN mcp.tool_call.traceparent IS 'W3C traceparent of the client request the call belongs to (params._meta.traceparent of an MCP request, else the setting mcp.traceparent); stored only when valid (lower-case hex, version not ff, ids not zero), NULL otherwise.';
COMMENT ON COLUMN mcp.tool_call.tracestate IS 'W3C tracestate sent with that traceparent (at most 512 characters and 32 key=value members); NULL without a valid traceparent or when malformed.';

CREATE TABLE mcp.llm_request (
    request_id      bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    run_id          uuid NOT NULL,
    iteration       integer NOT NULL,
    purpose         text NOT NULL,
    provider        text,
    model           text,
    url             text,
    request_body    jsonb,
    response_raw    text,
    http_status     integer,
    latency_ms      double precision,
    attempts        integer,
    prompt_tokens   bigint
                    CONSTRAINT llm_request_prompt_tokens_not_negative CHECK (prompt_tokens >= 0),
    completion_tokens bigint
                    CONSTRAINT llm_request_completion_tokens_not_negative CHECK (completion_tokens >= 0),
    finish_reason   text,
    repaired        boolean NOT NULL DEFAULT false,
    fixes           jsonb,
    error           jsonb,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    clipped         jsonb,
    traceparent text,
    tracestate  text
);
CREATE INDEX llm_request_run_idx ON mcp.llm_request (run_id);
COMMENT ON TABLE mcp.llm_request IS 'Every LLM request of a chat run (operator-only). Bodies hold no secrets: keys travel in headers only.';
COMMENT ON COLUMN mcp.llm_request.request_id IS 'Identifier of the request.';
COMMENT ON COLUMN mcp.llm_request.run_id IS 'The chat run.';
COMMENT ON COLUMN mcp.llm_request.iteration IS 'Round trip number within the run.';
COMMENT ON COLUMN mcp.llm_request.purpose IS 'chat or summary (context-window summarization).';
COMMENT ON COLUMN mcp.llm_request.provider IS 'Provider name.';
COMMENT ON COLUMN mcp.llm_request.model IS 'Model requested.';
COMMENT ON COLUMN mcp.llm_request.url IS 'Endpoint, without query string.';
COMMENT ON COLUMN mcp.llm_request.request_body IS 'Request body as sent (credentials scrubbed), cut to mcp.audit_max_value_bytes with its structure kept; when cut, clipped holds the size and sha256 of the exact text sent.';
COMMENT ON COLUMN mcp.llm_request.response_raw IS 'Raw response body as received (before repair, credentials scrubbed), cut to mcp.audit_max_value_bytes; replay providers answer from these.';
COMMENT ON COLUMN mcp.llm_request.http_status IS 'HTTP status of the final attempt.';
COMMENT ON COLUMN mcp.llm_request.latency_ms IS 'Wall time including retries.';
COMMENT ON COLUMN mcp.llm_request.attempts IS 'HTTP attempts (1 + retries).';
COMMENT ON COLUMN mcp.llm_request.prompt_tokens IS 'Prompt tokens reported (or estimated), clamped to 0 .. 2^53-1.';
COMMENT ON COLUMN mcp.llm_request.completion_tokens IS 'Completion tokens reported (or estimated), clamped to 0 .. 2^53-1.';
COMMENT ON COLUMN mcp.llm_request.finish_reason IS 'Normalized finish reason.';
COMMENT ON COLUMN mcp.llm_request.repaired IS 'The response needed the repair engine.';
COMMENT ON COLUMN mcp.llm_request.fixes IS 'Repairs applied.';
COMMENT ON COLUMN mcp.llm_request.error IS 'Normalized provider error {kind, http_status, message, retry_after_s}.';
COMMENT ON COLUMN mcp.llm_request.created_at IS 'When the request finished.';
COMMENT ON COLUMN mcp.llm_request.clipped IS 'Values of this row cut to mcp.audit_max_value_bytes: {"<column>": {"bytes": original size, "sha256": hex digest of the original}}; NULL when nothing was cut. Bodies are hashed as the exact text, jsonb values as their canonical text (mcp.audit_digest).';
COMMENT ON COLUMN mcp.llm_request.traceparent IS 'W3C traceparent of the client request the request belongs to (params._meta.traceparent of an MCP request, else the setting mcp.traceparent); stored only when valid (lower-case hex, version not ff, ids not zero), NULL otherwise.';
COMMENT ON COLUMN mcp.llm_request.tracestate IS 'W3C tracestate sent with that traceparent (at most 512 characters and 32 key=value members); NULL without a valid traceparent or when malformed.';

CREATE TABLE mcp.message (
    session_id  uuid NOT NULL,
    run_id      uuid NOT NULL,
    seq         integer NOT NULL,
    role        text NOT NULL,
    message     jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    clipped     jsonb,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX message_session_idx ON mcp.message (session_id);
COMMENT ON TABLE mcp.message IS 'The conversation of each chat session (operator-only); a later mcp.chat with the same session continues from it.';
COMMENT ON COLUMN mcp.message.session_id IS 'The conversation.';
COMMENT ON COLUMN mcp.message.run_id IS 'The run that stored this state of the conversation.';
COMMENT ON COLUMN mcp.message.seq IS 'Position in the conversation.';
COMMENT ON COLUMN mcp.message.role IS 'user, assistant or tool.';
COMMENT ON COLUMN mcp.message.message IS 'The typed message (role, content, tool_calls, tool_call_id), cut to mcp.audit_max_value_bytes with its structure kept (a continued session sees the cut content).';
COMMENT ON COLUMN mcp.message.created_at IS 'When it was stored.';
COMMENT ON COLUMN mcp.message.clipped IS '{"message": {"bytes": original size, "sha256": hex digest of its canonical text (mcp.audit_digest)}} when the message was cut; NULL otherwise.';
