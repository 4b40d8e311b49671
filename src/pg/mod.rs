//! Careful wrappers around PostgreSQL internals, one file per job.

pub mod guc;
pub mod hooks;
pub mod http;
pub mod owner;
pub mod spi;
pub mod subxact;
pub mod timeout;

pub use guc::{guc_value, local_synchronous_commit, set_guc, with_application_name};
pub use owner::as_extension_owner;
pub use spi::{
    can_assign_xid, first_row, first_row_mut, prevent_if_read_only, read_one, select_kept,
    write_kept,
};
pub use subxact::{ends_transaction, in_subtransaction_catch_all};
pub use subxact::{in_subtransaction, PgErrorInfo};
pub use timeout::with_tool_timeout;

/// Name of the current (calling) role, read before any switch to the extension owner.
pub fn calling_role() -> String {
    unsafe {
        let p = pgrx::pg_sys::GetUserNameFromId(pgrx::pg_sys::GetUserId(), true);
        if p.is_null() {
            return String::new();
        }
        std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}
