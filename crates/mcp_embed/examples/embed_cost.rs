//! Cost per text of the two shipped local models, side by side in one run (benches/embed/run.sh):
//! load time, ms per text (queries and passages of the demo's kind), and the process's
//! resident memory before and after loading (private anonymous vs file-backed, from
//! /proc/self/status). One thread, as inside a backend.
//!
//!   cargo run --release -p mcp_embed --example embed_cost [N]

use mcp_embed::{default_e5_dir, default_model_dir, InputType, LocalModel};
use std::time::Instant;

fn rss() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = |k: &str| {
        s.lines()
            .find(|l| l.starts_with(k))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    (kb("RssAnon:"), kb("RssFile:"))
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(40);
    let queries = [
        "Wie viele Urlaubstage habe ich in der bayerischen Metallindustrie?",
        "Kündigungsfrist in der Probezeit",
        "Welcher Tarifvertrag gilt für mich?",
        "Zuschläge für Nachtarbeit",
    ];
    let passage =
        "Die regelmäßige wöchentliche Arbeitszeit beträgt 35 Stunden. Beschäftigte haben \
        Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr. Für Mehrarbeit wird ein Zuschlag von \
        25 Prozent gezahlt, für Nachtarbeit zwischen 22 und 6 Uhr ein Zuschlag von 25 Prozent und \
        für Arbeit an Sonntagen ein Zuschlag von 70 Prozent. Die Kündigungsfrist beträgt in den \
        ersten sechs Monaten zwei Wochen, danach einen Monat zum Monatsende.";
    println!("| model | load ms | query ms/text | passage ms/text (~120 words) | pieces (query / passage) | RssAnon MB | RssFile MB |");
    println!("|---|---|---|---|---|---|---|");
    for (name, dir) in [
        ("all-MiniLM-L6-v2 (f32)", default_model_dir()),
        ("multilingual-e5-small (q4)", default_e5_dir()),
    ] {
        let (a0, f0) = rss();
        let t = Instant::now();
        let m = LocalModel::load(&dir).unwrap_or_else(|e| panic!("{e}"));
        let load = t.elapsed().as_secs_f64() * 1000.0;
        m.embed_as(&[queries[0]], InputType::Query); // warm
        let t = Instant::now();
        for i in 0..n {
            m.embed_as(&[queries[i % queries.len()]], InputType::Query);
        }
        let q = t.elapsed().as_secs_f64() * 1000.0 / n as f64;
        let t = Instant::now();
        for _ in 0..n.div_ceil(4) {
            m.embed_as(&[passage], InputType::Passage);
        }
        let p = t.elapsed().as_secs_f64() * 1000.0 / n.div_ceil(4) as f64;
        let (a1, f1) = rss();
        println!(
            "| {name} | {load:.0} | {q:.1} | {p:.1} | {} / {} | {:.1} | {:.1} |",
            m.token_ids_as(queries[0], InputType::Query).len(),
            m.token_ids_as(passage, InputType::Passage).len(),
            (a1 as f64 - a0 as f64) / 1024.0,
            (f1 as f64 - f0 as f64) / 1024.0
        );
        drop(m);
    }
}
