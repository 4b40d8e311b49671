#![no_main]
//! Fuzz `mcp_repair::repair`: must never panic, overflow the stack or hang; valid JSON must come
//! back unchanged with no fixes; the U+0000 replacement of `repair_jsonb` leaves none behind; the
//! value can be serialized (what the SQL layer does with it).

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn no_nul(v: &Value) -> bool {
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        match v {
            Value::String(s) if s.contains('\0') => return false,
            Value::Array(a) => todo.extend(a),
            Value::Object(m) => {
                if m.keys().any(|k| k.contains('\0')) {
                    return false;
                }
                todo.extend(m.values());
            }
            _ => {}
        }
    }
    true
}

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let r = mcp_repair::repair(s);
        if let Ok(strict) = serde_json::from_str::<Value>(s) {
            let r = r.as_ref().expect("valid JSON must repair");
            assert_eq!(r.value, strict);
            assert!(r.fixes.is_empty());
        }
        if let Ok(r) = r {
            let _ = serde_json::to_string(&r.value);
            // what repair_jsonb does after repair (not run twice: the fuzzer's time goes to repair)
            let mut v = r.value;
            mcp_repair::replace_nul(&mut v);
            assert!(no_nul(&v));
        }
    }
});
