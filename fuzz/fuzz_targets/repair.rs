#![no_main]
//! Fuzz `mcp_repair::repair`: must never panic, overflow the stack or hang; valid JSON must come
//! back unchanged with no fixes.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let r = mcp_repair::repair(s);
        if let Ok(strict) = serde_json::from_str::<serde_json::Value>(s) {
            let r = r.expect("valid JSON must repair");
            assert_eq!(r.value, strict);
            assert!(r.fixes.is_empty());
        }
    }
});
