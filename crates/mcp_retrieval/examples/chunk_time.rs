//! Time of `chunk_text` on large inputs without paragraph or sentence breaks (the
//! hostile inputs of the attack corpus). Not a test; prints one line per input:
//! `cargo run --release -p mcp_retrieval --example chunk_time [max_tokens (512)]`
//! (overlap max_tokens / 8).
use mcp_retrieval::{chunk_text, Format};
use std::time::Instant;

fn main() {
    let max: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(512);
    let cases: Vec<(&str, String, Format)> = vec![
        ("words 1MB", "Wort ".repeat(200_000), Format::Text),
        (
            "sentences 1MB",
            "Das ist ein Satz mit Worten. ".repeat(35_000),
            Format::Text,
        ),
        (
            "paragraphs 1MB",
            "Das ist ein Satz. Noch einer.\n\n".repeat(33_000),
            Format::Text,
        ),
        ("x 1MB", "x".repeat(1_000_000), Format::Text),
        ("x 100kB", "x".repeat(100_000), Format::Text),
        (
            "md quote 200kB",
            format!("{}x", "> ".repeat(100_000)),
            Format::Markdown,
        ),
        (
            "md quote 20kB",
            format!("{}x", "> ".repeat(10_000)),
            Format::Markdown,
        ),
        (
            "md list 200kB",
            format!("{}x", "- ".repeat(100_000)),
            Format::Markdown,
        ),
        (
            "md headings 1MB",
            "# Titel\n\nText mit Worten.\n\n".repeat(30_000),
            Format::Markdown,
        ),
    ];
    for (name, body, f) in cases {
        let t = Instant::now();
        let r = chunk_text(&body, max, max / 8, f).map(|c| c.len());
        println!("{name}: {r:?} in {:?}", t.elapsed());
    }
}
