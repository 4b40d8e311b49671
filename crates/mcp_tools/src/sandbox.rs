//! Which functions a tool may not execute (the tool sandbox's policy). Pure Rust, no pgrx.
//!
//! The pgrx layer asks [`built_in_denied`] for PostgreSQL's own functions (OIDs below
//! `FirstNormalObjectId`, so a user function that merely borrows a built-in's name is never
//! matched) and [`extension_denied`] for functions that belong to an extension, and refuses
//! the call when the [`DeniedClass`] applies to the tool's [`GuardLevel`]. The same answer
//! serves the parse-time walk (good messages for direct calls) and the executor hook
//! (`object_access_hook`, `OAT_FUNCTION_EXECUTE`: every function as PostgreSQL initializes its
//! execution, also inside dynamic SQL and PL functions).
//!
//! A function is denied as a member of a class — the effects it has that a read-only,
//! rolled-back tool call must not have — never because of its name alone.

/// Why a function is not allowed inside a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeniedClass {
    /// Session-level advisory locks (and their unlocks): they outlive the rolled-back
    /// subtransaction, and unlocking could release the caller's own locks.
    SessionLock,
    /// Signalling server processes or changing the server's run state (cancel/terminate other
    /// backends, reload the configuration, rotate the log, promote a standby …).
    Signal,
    /// Notifications to other sessions.
    Notify,
    /// Non-transactional server state: WAL switches and restore points, replication slots and
    /// origins, base backups, statistics resets.
    ServerState,
    /// Files on the database server: reading, listing, stat, import and export.
    ServerFiles,
    /// Creating, writing, truncating or deleting large objects (PostgreSQL does not refuse
    /// these in a read-only transaction).
    LargeObjectWrite,
    /// Connections to other sessions or servers (dblink, postgres_fdw's connection
    /// management): a second session is not bound by this transaction's read-only mode.
    RemoteSession,
    /// pg_mcp's own functions that run tools or chats: a tool cannot start another tool or a
    /// chat (it would bypass the interface mapping and the audit).
    Nesting,
    /// Session state that a rolled-back subtransaction does not undo (the random generator's
    /// seed).
    SessionState,
    /// Calls to an embedding or LLM provider from SQL (`mcp.embed`, `mcp.search`, `mcp.analyze`
    /// …): they spend the provider's key and send it text the role can read. A tool reaches
    /// retrieval through its search tool kinds, which pg_mcp runs itself.
    ProviderCall,
}

/// How strictly a tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuardLevel {
    /// Read-only tools (sql_query, report tools, schema_information, function tools marked
    /// `read_only`): every class is refused.
    ReadOnly,
    /// Function tools marked `read_only = false`: the admin reviewed a function that changes
    /// things on purpose; only [`DeniedClass::Nesting`] is refused.
    Writing,
}

impl DeniedClass {
    /// Whether this class is refused at `level`.
    pub fn applies(self, level: GuardLevel) -> bool {
        match level {
            GuardLevel::ReadOnly => true,
            GuardLevel::Writing => self == DeniedClass::Nesting,
        }
    }

    /// What the function would do, as the end of a sentence ("… because it …").
    pub fn reason(self) -> &'static str {
        match self {
            DeniedClass::SessionLock => {
                "takes or releases session-level advisory locks, which outlive the tool call"
            }
            DeniedClass::Signal => "signals server processes or changes the server's run state",
            DeniedClass::Notify => "sends notifications to other sessions",
            DeniedClass::ServerState => {
                "changes server state outside the transaction (WAL, replication, backup or statistics)"
            }
            DeniedClass::ServerFiles => "reads or writes files on the database server",
            DeniedClass::LargeObjectWrite => "creates, changes or deletes large objects",
            DeniedClass::RemoteSession => {
                "opens or manages connections to other sessions, which this tool's read-only mode does not bind"
            }
            DeniedClass::Nesting => {
                "runs pg_mcp tools or chats, and a tool cannot start another tool or chat"
            }
            DeniedClass::SessionState => {
                "changes session state that outlives the tool call"
            }
            DeniedClass::ProviderCall => {
                "calls an embedding or LLM provider, which spends its key and sends it data; use the interface's search tools"
            }
        }
    }
}

/// The sentence a model (and the operator log) gets when `function` is refused.
pub fn refusal_sentence(function: &str, class: DeniedClass) -> String {
    let (name, _) = crate::clip_chars(function, 128);
    format!(
        "The function {name} is not allowed in this tool: it {}.",
        class.reason()
    )
}

/// PostgreSQL's own functions (pg_catalog, OID below `FirstNormalObjectId`) by class.
const BUILT_IN: &[(DeniedClass, &[&str])] = &[
    (
        DeniedClass::SessionLock,
        &[
            "pg_advisory_lock",
            "pg_advisory_lock_shared",
            "pg_try_advisory_lock",
            "pg_try_advisory_lock_shared",
            "pg_advisory_unlock",
            "pg_advisory_unlock_shared",
            "pg_advisory_unlock_all",
        ],
    ),
    (
        DeniedClass::Signal,
        &[
            "pg_cancel_backend",
            "pg_terminate_backend",
            "pg_reload_conf",
            "pg_rotate_logfile",
            "pg_log_backend_memory_contexts",
            "pg_promote",
            "pg_wal_replay_pause",
            "pg_wal_replay_resume",
        ],
    ),
    (DeniedClass::Notify, &["pg_notify"]),
    (
        DeniedClass::ServerState,
        &[
            "pg_switch_wal",
            "pg_create_restore_point",
            "pg_logical_emit_message",
            "pg_create_physical_replication_slot",
            "pg_create_logical_replication_slot",
            "pg_drop_replication_slot",
            "pg_copy_physical_replication_slot",
            "pg_copy_logical_replication_slot",
            "pg_replication_slot_advance",
            "pg_logical_slot_get_changes",
            "pg_logical_slot_get_binary_changes",
            "pg_sync_replication_slots",
            "pg_replication_origin_create",
            "pg_replication_origin_drop",
            "pg_replication_origin_advance",
            "pg_replication_origin_session_setup",
            "pg_replication_origin_session_reset",
            "pg_replication_origin_xact_setup",
            "pg_replication_origin_xact_reset",
            "pg_backup_start",
            "pg_backup_stop",
            "pg_start_backup",
            "pg_stop_backup",
            "pg_import_system_collations",
            // assign a transaction id: a lasting effect of a read-only call
            "txid_current",
            "pg_current_xact_id",
        ],
    ),
    (DeniedClass::SessionState, &["setseed"]),
    (
        DeniedClass::ServerFiles,
        &[
            "pg_read_file",
            "pg_read_binary_file",
            "pg_stat_file",
            "pg_ls_dir",
            "pg_current_logfile",
            "lo_import",
            "lo_export",
        ],
    ),
    (
        DeniedClass::LargeObjectWrite,
        &[
            "lo_creat",
            "lo_create",
            "lo_from_bytea",
            "lo_unlink",
            "lo_put",
            "lowrite",
            "lo_truncate",
            "lo_truncate64",
        ],
    ),
];

/// The class of a PostgreSQL built-in function (pg_catalog, OID below `FirstNormalObjectId`)
/// that a tool may not run, if any. Families are matched by shape so that functions added by
/// later PostgreSQL versions are covered: every `pg_stat_reset*` and every `pg_ls_*dir`.
pub fn built_in_denied(name: &str) -> Option<DeniedClass> {
    if let Some((class, _)) = BUILT_IN.iter().find(|(_, names)| names.contains(&name)) {
        return Some(*class);
    }
    if name.starts_with("pg_stat_reset") {
        return Some(DeniedClass::ServerState);
    }
    if name.starts_with("pg_ls_") && name.ends_with("dir") {
        return Some(DeniedClass::ServerFiles);
    }
    None
}

/// The class of an extension's function that a tool may not run, if any. Whole extensions
/// are denied where every function is a channel out of the sandbox (dblink, postgres_fdw's
/// connection management, adminpack's file writers); pg_mcp itself only for the functions
/// that start tools or chats.
pub fn extension_denied(extension: &str, function: &str) -> Option<DeniedClass> {
    match extension {
        "dblink" | "postgres_fdw" => Some(DeniedClass::RemoteSession),
        "adminpack" => Some(DeniedClass::ServerFiles),
        "pg_mcp" => match function {
            "call_tool" | "chat" | "handle" => Some(DeniedClass::Nesting),
            "embed"
            | "embed_literals"
            | "search"
            | "analyze"
            | "plan_example_similarity"
            | "ingest" => Some(DeniedClass::ProviderCall),
            _ => None,
        },
        "pg_stat_statements" => function
            .ends_with("_reset")
            .then_some(DeniedClass::ServerState),
        "pg_prewarm" => function
            .starts_with("autoprewarm")
            .then_some(DeniedClass::ServerState),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_of_built_ins() {
        assert_eq!(
            built_in_denied("pg_advisory_lock"),
            Some(DeniedClass::SessionLock)
        );
        assert_eq!(
            built_in_denied("pg_advisory_unlock_all"),
            Some(DeniedClass::SessionLock)
        );
        assert_eq!(
            built_in_denied("pg_terminate_backend"),
            Some(DeniedClass::Signal)
        );
        assert_eq!(
            built_in_denied("pg_read_file"),
            Some(DeniedClass::ServerFiles)
        );
        assert_eq!(
            built_in_denied("pg_ls_waldir"),
            Some(DeniedClass::ServerFiles)
        );
        assert_eq!(
            built_in_denied("pg_ls_summariesdir"),
            Some(DeniedClass::ServerFiles)
        );
        assert_eq!(
            built_in_denied("pg_stat_reset_shared"),
            Some(DeniedClass::ServerState)
        );
        assert_eq!(
            built_in_denied("pg_stat_reset_backend_stats"),
            Some(DeniedClass::ServerState)
        );
        assert_eq!(
            built_in_denied("lo_from_bytea"),
            Some(DeniedClass::LargeObjectWrite)
        );
        assert_eq!(built_in_denied("lo_import"), Some(DeniedClass::ServerFiles));
        // reading is fine: transaction-level locks go with the rolled-back subtransaction,
        // reading large objects and statistics changes nothing
        for ok in [
            "pg_advisory_xact_lock",
            "lo_get",
            "loread",
            "lo_open",
            "pg_stat_get_numscans",
            "pg_sleep",
            "query_to_xml",
            "set_config",
            "pg_ls",
        ] {
            assert_eq!(built_in_denied(ok), None, "{ok}");
        }
    }

    #[test]
    fn classes_of_extension_functions() {
        assert_eq!(
            extension_denied("dblink", "dblink_exec"),
            Some(DeniedClass::RemoteSession)
        );
        assert_eq!(
            extension_denied("dblink", "dblink_get_connections"),
            Some(DeniedClass::RemoteSession)
        );
        assert_eq!(
            extension_denied("postgres_fdw", "postgres_fdw_disconnect_all"),
            Some(DeniedClass::RemoteSession)
        );
        assert_eq!(
            extension_denied("adminpack", "pg_file_write"),
            Some(DeniedClass::ServerFiles)
        );
        assert_eq!(
            extension_denied("pg_mcp", "call_tool"),
            Some(DeniedClass::Nesting)
        );
        assert_eq!(
            extension_denied("pg_mcp", "chat"),
            Some(DeniedClass::Nesting)
        );
        assert_eq!(extension_denied("pg_mcp", "ask_user"), None);
        for f in ["embed", "embed_literals", "search", "analyze", "ingest"] {
            assert_eq!(
                extension_denied("pg_mcp", f),
                Some(DeniedClass::ProviderCall),
                "{f}"
            );
        }
        assert_eq!(built_in_denied("setseed"), Some(DeniedClass::SessionState));
        assert_eq!(
            built_in_denied("txid_current"),
            Some(DeniedClass::ServerState)
        );
        assert_eq!(
            built_in_denied("pg_current_xact_id"),
            Some(DeniedClass::ServerState)
        );
        assert_eq!(built_in_denied("pg_current_xact_id_if_assigned"), None);
        assert_eq!(extension_denied("pg_mcp", "repair_json"), None);
        assert_eq!(
            extension_denied("pg_stat_statements", "pg_stat_statements_reset"),
            Some(DeniedClass::ServerState)
        );
        assert_eq!(
            extension_denied("pg_stat_statements", "pg_stat_statements"),
            None
        );
        assert_eq!(extension_denied("vector", "l2_distance"), None);
    }

    #[test]
    fn levels() {
        for class in [
            DeniedClass::SessionLock,
            DeniedClass::Signal,
            DeniedClass::ServerFiles,
            DeniedClass::RemoteSession,
            DeniedClass::LargeObjectWrite,
        ] {
            assert!(class.applies(GuardLevel::ReadOnly));
            assert!(!class.applies(GuardLevel::Writing));
        }
        assert!(DeniedClass::Nesting.applies(GuardLevel::ReadOnly));
        assert!(DeniedClass::Nesting.applies(GuardLevel::Writing));
    }

    #[test]
    fn sentences_name_the_function_and_the_reason() {
        assert_eq!(
            refusal_sentence("pg_advisory_lock", DeniedClass::SessionLock),
            "The function pg_advisory_lock is not allowed in this tool: it takes or releases session-level advisory locks, which outlive the tool call."
        );
        let long = "f".repeat(500);
        assert!(refusal_sentence(&long, DeniedClass::Notify).len() < 300);
    }
}
