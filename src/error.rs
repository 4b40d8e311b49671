//! One error type for the SQL surface, mapped to real SQLSTATEs.
//!
//! pg_mcp's code returns `McpResult<T>`; a `#[pg_extern]` returns `Result<T, ErrorReport>` and
//! converts with `?` (`From<McpError> for ErrorReport`), so pgrx raises a clean PostgreSQL
//! `ERROR` with the SQLSTATE below (never XX000 for bad input).

use pgrx::pg_sys::panic::ErrorReport;
use pgrx::PgSqlErrorCode;

#[derive(Debug)]
pub enum McpError {
    /// Malformed input (22P02 invalid_text_representation).
    InvalidInput(String),
    /// A parameter value that is not allowed (22023 invalid_parameter_value).
    InvalidParameter(String),
    /// A named object does not exist (42704 undefined_object).
    UndefinedObject(String),
    /// The caller may not do this (42501 insufficient_privilege).
    Privilege(String),
    /// A registry row breaks a rule (23514 check_violation).
    CheckViolation(String),
    /// A required argument is NULL (22004 null_value_not_allowed).
    NullValue(String),
    /// Something must be set up first, e.g. the server key (55000 object_not_in_prerequisite_state).
    NotReady(String),
    /// A file named by a setting is unusable, e.g. a group-readable key file (F0000 config_file_error).
    ConfigFile(String),
    /// A value beyond one of pg_mcp's limits, e.g. nesting (54000 program_limit_exceeded).
    LimitExceeded(String),
    /// A configured cap is reached, e.g. the queue of asynchronous runs (53400 configuration_limit_exceeded).
    QueueFull(String),
    /// A number outside the range pg_mcp handles (22003 numeric_value_out_of_range).
    OutOfRange(String),
    /// Not possible in a read-only transaction (25006 read_only_sql_transaction).
    ReadOnly(String),
    /// A bug or an unexpected state (XX000).
    Internal(String),
    /// Any of the above with a HINT that says how to fix it.
    WithHint(Box<McpError>, String),
}

impl McpError {
    pub fn sqlstate(&self) -> PgSqlErrorCode {
        match self {
            McpError::InvalidInput(_) => PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
            McpError::InvalidParameter(_) => PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            McpError::UndefinedObject(_) => PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
            McpError::Privilege(_) => PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
            McpError::CheckViolation(_) => PgSqlErrorCode::ERRCODE_CHECK_VIOLATION,
            McpError::NullValue(_) => PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
            McpError::NotReady(_) => PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            McpError::ConfigFile(_) => PgSqlErrorCode::ERRCODE_CONFIG_FILE_ERROR,
            McpError::LimitExceeded(_) => PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
            McpError::QueueFull(_) => PgSqlErrorCode::ERRCODE_CONFIGURATION_LIMIT_EXCEEDED,
            McpError::OutOfRange(_) => PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
            McpError::ReadOnly(_) => PgSqlErrorCode::ERRCODE_READ_ONLY_SQL_TRANSACTION,
            McpError::Internal(_) => PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
            McpError::WithHint(e, _) => e.sqlstate(),
        }
    }

    pub fn message(&self) -> &str {
        match self {
            McpError::InvalidInput(m)
            | McpError::InvalidParameter(m)
            | McpError::UndefinedObject(m)
            | McpError::Privilege(m)
            | McpError::CheckViolation(m)
            | McpError::NullValue(m)
            | McpError::NotReady(m)
            | McpError::ConfigFile(m)
            | McpError::LimitExceeded(m)
            | McpError::QueueFull(m)
            | McpError::OutOfRange(m)
            | McpError::ReadOnly(m)
            | McpError::Internal(m) => m,
            McpError::WithHint(e, _) => e.message(),
        }
    }

    /// The HINT, if any.
    pub fn hint(&self) -> Option<&str> {
        match self {
            McpError::WithHint(_, h) => Some(h),
            _ => None,
        }
    }

    /// The same error with a HINT.
    pub fn with_hint(self, hint: impl Into<String>) -> Self {
        McpError::WithHint(Box::new(self), hint.into())
    }

    /// Raise as a PostgreSQL ERROR (does not return). Only for callbacks PostgreSQL calls that
    /// cannot return an error: the executor's object-access hook (`crate::sandbox`) and the
    /// `mcp.tool` trigger (pgrx turns a trigger's `Err` into a panic, SQLSTATE XX000).
    /// Everything else returns `McpResult`.
    pub fn raise(self) -> ! {
        ErrorReport::from(self).report(pgrx::PgLogLevel::ERROR);
        unreachable!("ERROR does not return")
    }
}

impl std::fmt::Display for McpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for McpError {}

impl From<pgrx::spi::SpiError> for McpError {
    fn from(e: pgrx::spi::SpiError) -> Self {
        McpError::Internal(format!("SPI: {e}"))
    }
}

impl From<McpError> for ErrorReport {
    fn from(e: McpError) -> Self {
        let report = ErrorReport::new(e.sqlstate(), e.message().to_string(), "pg_mcp");
        match e.hint() {
            Some(h) => report.set_hint(h),
            None => report,
        }
    }
}

/// A required argument of a SQL function: NULL gives 22004 naming the parameter (instead of
/// pgrx's "argument 0 must not be null" panic for functions that are not STRICT).
pub fn required<T>(value: Option<T>, function: &str, parameter: &str) -> McpResult<T> {
    value.ok_or_else(|| {
        McpError::NullValue(format!(
            "parameter \"{parameter}\" of mcp.{function} must not be NULL"
        ))
    })
}

pub type McpResult<T> = Result<T, McpError>;
