//! Conformance against the peers' test suites (see tests/data/README.md).
//!
//! Every `*.jsonl` case is run through `mcp_repair::repair` and compared with the expected value
//! (object key order ignored, numbers compared numerically, booleans never equal numbers).
//! Prints a pass-rate table and fails if any file drops below its recorded floor.
//! `CONFORMANCE_VERBOSE=1` prints every failing case.

use serde_json::Value;
use std::path::Path;

/// Minimum passing percentage per file (what the engine achieves, rounded down).
const FLOORS: &[(&str, f64)] = &[
    ("json_repair_py.jsonl", 95.0),
    ("jsonrepair_js.jsonl", 100.0),
    ("jsonrepair_rs.jsonl", 99.0),
    ("llm_realistic.jsonl", 100.0),
    ("rust_misc.jsonl", 100.0),
];

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y || (x - y).abs() <= f64::EPSILON * x.abs().max(y.abs()),
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

struct Outcome {
    passed: usize,
    total: usize,
}

fn run_file(path: &Path, verbose: bool) -> Outcome {
    let text = std::fs::read_to_string(path).expect("read corpus file");
    let mut o = Outcome {
        passed: 0,
        total: 0,
    };
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Value = serde_json::from_str(line).expect("corpus line is JSON");
        let input = case["input"].as_str().expect("input is a string");
        let expect_error = case
            .get("expect_error")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let result = mcp_repair::repair(input);
        let ok = match (&result, expect_error) {
            (Err(_), true) => true,
            (Ok(_), true) => false,
            (Ok(r), false) => same(&r.value, &case["expected"]),
            (Err(_), false) => false,
        };
        o.total += 1;
        if ok {
            o.passed += 1;
        } else if verbose {
            let got = match &result {
                Ok(r) => r.value.to_string(),
                Err(e) => format!("ERROR {e}"),
            };
            println!(
                "FAIL {}:{} [{}]\n  input:    {:?}\n  expected: {}\n  got:      {}",
                path.file_name().and_then(|f| f.to_str()).unwrap_or("?"),
                n + 1,
                case["category"].as_str().unwrap_or(""),
                input,
                if expect_error {
                    "ERROR".to_string()
                } else {
                    case["expected"].to_string()
                },
                got
            );
        }
    }
    o
}

#[test]
fn conformance() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let verbose = std::env::var_os("CONFORMANCE_VERBOSE").is_some();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/data exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "jsonl")
                && !p.to_string_lossy().ends_with(".throws.jsonl")
        })
        .collect();
    files.sort();
    println!("\n| file | passed | total | % |\n|---|---:|---:|---:|");
    let mut failures = Vec::new();
    let (mut all_p, mut all_t) = (0, 0);
    for f in &files {
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let o = run_file(f, verbose);
        let pct = 100.0 * o.passed as f64 / o.total.max(1) as f64;
        println!("| {name} | {} | {} | {pct:.1} |", o.passed, o.total);
        all_p += o.passed;
        all_t += o.total;
        let floor = FLOORS.iter().find(|(n, _)| *n == name).map(|x| x.1);
        match floor {
            Some(fl) if pct + 1e-9 < fl => {
                failures.push(format!("{name}: {pct:.1}% < floor {fl}%"))
            }
            Some(_) => {}
            None => failures.push(format!("{name}: no floor recorded")),
        }
    }
    println!(
        "| **all** | {all_p} | {all_t} | {:.1} |",
        100.0 * all_p as f64 / all_t.max(1) as f64
    );
    assert!(
        failures.is_empty(),
        "conformance regressions: {failures:#?}"
    );
}

/// The `*.throws.jsonl` files list inputs a peer refuses; they are information, not targets.
/// This only checks that none of them makes the engine panic.
#[test]
fn peer_throw_cases_do_not_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for e in std::fs::read_dir(&dir)
        .expect("tests/data exists")
        .flatten()
    {
        let p = e.path();
        if !p.to_string_lossy().ends_with(".throws.jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&p).expect("read").lines() {
            if let Ok(case) = serde_json::from_str::<Value>(line) {
                if let Some(input) = case["input"].as_str() {
                    let _ = mcp_repair::repair(input);
                }
            }
        }
    }
}
