//! Throughput benchmark (not a test). Inputs come from
//! `/work/shared/bench/json_repair/gen_bench.py --out DIR`; run with
//! `cargo run --release -p mcp_repair --example bench -- DIR` (or benches/json_repair/run.sh).

use serde_json::Value;
use std::time::Instant;

fn best_of<F: FnMut()>(n: usize, mut f: F) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..n {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: bench DIR");
    let read = |f: &str| {
        std::fs::read_to_string(format!("{dir}/{f}")).unwrap_or_else(|e| panic!("{f}: {e}"))
    };
    let valid = read("valid.json");
    let defective = read("defective.txt");
    let meta: Value = serde_json::from_str(&read("defective.meta.json")).expect("meta");
    let mb = |s: &str| s.len() as f64 / 1e6;

    let t_serde = best_of(5, || {
        let v: Value = serde_json::from_str(&valid).expect("valid");
        std::hint::black_box(v);
    });
    let t_ours_valid = best_of(5, || {
        let r = mcp_repair::repair(&valid).expect("valid");
        assert!(r.fixes.is_empty());
        std::hint::black_box(r);
    });
    let mut repaired = None;
    let t_def = best_of(5, || {
        repaired = Some(mcp_repair::repair(&defective).expect("defective repairs"));
    });
    let repaired = repaired.expect("ran");
    let expected: Value = serde_json::from_str(&valid).expect("valid");
    let (exp, got) = (
        expected.as_array().expect("array"),
        repaired.value.as_array().expect("repaired array"),
    );
    let n = meta["elements"].as_u64().unwrap_or(0) as usize;
    let complete = n.saturating_sub(1);
    let exact = (0..complete).filter(|&k| got.get(k) == exp.get(k)).count();

    // small responses
    let small: Vec<Value> = read("small_defective.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("line"))
        .collect();
    let texts: Vec<&str> = small
        .iter()
        .map(|c| c["text"].as_str().expect("text"))
        .collect();
    let avg_len = texts.iter().map(|t| t.len()).sum::<usize>() as f64 / texts.len().max(1) as f64;
    let t_small = best_of(5, || {
        for t in &texts {
            std::hint::black_box(mcp_repair::repair(t).ok());
        }
    });
    let small_ok = small
        .iter()
        .filter(|c| {
            c["truncated"].as_bool() == Some(true)
                || mcp_repair::repair(c["text"].as_str().unwrap_or(""))
                    .ok()
                    .map(|r| r.value)
                    == Some(c["expected"].clone())
        })
        .count();

    println!("| measurement | result |");
    println!("|---|---|");
    println!(
        "| valid {:.1} MB: serde_json parse | {:.0} MB/s |",
        mb(&valid),
        mb(&valid) / t_serde
    );
    println!(
        "| valid {:.1} MB: mcp_repair::repair | {:.0} MB/s ({:.2}x serde_json) |",
        mb(&valid),
        mb(&valid) / t_ours_valid,
        t_serde / t_ours_valid
    );
    println!(
        "| defective {:.1} MB: mcp_repair::repair | {:.0} MB/s |",
        mb(&defective),
        mb(&defective) / t_def
    );
    println!("| defective: complete elements exact | {exact} / {complete} (repaired array has {} elements, truncated={}) |", got.len(), repaired.truncated());
    println!(
        "| small defective responses (avg {:.1} KB, n={}) | {:.1} µs per response |",
        avg_len / 1e3,
        texts.len(),
        t_small * 1e6 / texts.len().max(1) as f64
    );
    println!(
        "| small non-truncated responses repaired exactly | {} / {} |",
        small_ok,
        small.len()
    );
}
