//! Reading and setting PostgreSQL settings through the GUC API (no SPI).

use pgrx::pg_sys;

/// The current value of a setting as text ("" when unset), through the GUC API (no SPI).
pub fn guc_value(name: &std::ffi::CStr) -> String {
    unsafe {
        let p = pg_sys::GetConfigOption(name.as_ptr(), true, false);
        if p.is_null() {
            String::new()
        } else {
            std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

/// Set a user-settable setting for the session, through the GUC API (no SPI). Inside a
/// (sub)transaction that is rolled back, PostgreSQL reverts it.
pub fn set_guc(name: &std::ffi::CStr, value: &str) {
    let Ok(v) = std::ffi::CString::new(value.replace('\0', "")) else {
        return;
    };
    unsafe {
        pg_sys::SetConfigOption(
            name.as_ptr(),
            v.as_ptr(),
            pg_sys::GucContext::PGC_USERSET,
            pg_sys::GucSource::PGC_S_SESSION,
        )
    };
}

/// Set `synchronous_commit` for the current transaction only (`SET LOCAL`), through the GUC
/// API: a background worker's commit that must be flushed (`on`) whatever the server's setting,
/// or one that need not wait for the flush (`off`).
pub fn local_synchronous_commit(on: bool) {
    let value = if on { c"on" } else { c"off" };
    unsafe {
        pg_sys::set_config_option(
            c"synchronous_commit".as_ptr(),
            value.as_ptr(),
            pg_sys::GucContext::PGC_USERSET,
            pg_sys::GucSource::PGC_S_SESSION,
            pg_sys::GucAction::GUC_ACTION_LOCAL,
            true,
            0,
            false,
        );
    }
}

/// Run `f` with `application_name` set to `value` (visible in pg_stat_activity), then put the
/// previous value back. If `f` raises, the transaction's abort reverts the setting.
pub fn with_application_name<R>(value: &str, f: impl FnOnce() -> R) -> R {
    let old = guc_value(c"application_name");
    set_guc(c"application_name", value);
    let r = f();
    set_guc(c"application_name", &old);
    r
}
