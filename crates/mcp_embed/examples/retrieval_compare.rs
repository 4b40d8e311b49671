//! Vector-only retrieval on the blind tariff set: all-MiniLM-L6-v2 against
//! multilingual-e5-small, each with and without a title header on the chunks.
//! Corpus tests/quality/corpus/tarif_corpus.jsonl (96 agreements sharing the clause
//! vocabulary), questions tests/quality/questions/tarif_retrieval.tsv; chunks as mcp.ingest
//! cuts them with the collection defaults (200 tokens, overlap 32); a document scores with its
//! best chunk; MRR@10 and hit@1 over the questions. Queries are embedded as queries, chunks as
//! passages (E5's prefixes). The title header is `<title>\n\n<chunk>`.
//!
//!   cargo run --release -p mcp_embed --example retrieval_compare [ROOT [minilm|e5]]

use mcp_embed::{cosine, default_e5_dir, default_model_dir, InputType, LocalModel};

fn main() {
    let root = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let only = std::env::args().nth(2);
    let corpus =
        std::fs::read_to_string(format!("{root}/tests/quality/corpus/tarif_corpus.jsonl")).unwrap();
    let docs: Vec<serde_json::Value> = corpus
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let qs_text = std::fs::read_to_string(format!(
        "{root}/tests/quality/questions/tarif_retrieval.tsv"
    ))
    .unwrap();
    let questions: Vec<(String, String)> = qs_text
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains('\t'))
        .map(|l| {
            let (q, d) = l.split_once('\t').unwrap();
            (q.to_string(), d.trim().to_string())
        })
        .collect();
    // (document index, chunk text)
    let mut chunks: Vec<(usize, String)> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let body = d["body"].as_str().unwrap();
        for c in mcp_retrieval::chunk_text(body, 200, 32, mcp_retrieval::Format::Text).unwrap() {
            chunks.push((i, c.text));
        }
    }
    eprintln!(
        "{} documents, {} chunks, {} questions",
        docs.len(),
        chunks.len(),
        questions.len()
    );
    println!("| model | title header | MRR@10 | hit@1 |");
    println!("|---|---|---|---|");
    for (name, dir) in [
        ("all-MiniLM-L6-v2", default_model_dir()),
        ("multilingual-e5-small", default_e5_dir()),
    ] {
        let key = if name.contains("MiniLM") {
            "minilm"
        } else {
            "e5"
        };
        if only.as_deref().is_some_and(|o| o != key) {
            continue;
        }
        let m = LocalModel::load(&dir).unwrap_or_else(|e| panic!("{e}"));
        let qv: Vec<Vec<f32>> = questions
            .iter()
            .map(|(q, _)| m.embed_as(&[q.as_str()], InputType::Query).remove(0))
            .collect();
        for title in [false, true] {
            let cv: Vec<Vec<f32>> = chunks
                .iter()
                .map(|(d, t)| {
                    let text = if title {
                        format!("{}\n\n{t}", docs[*d]["title"].as_str().unwrap_or_default())
                    } else {
                        t.clone()
                    };
                    m.embed_as(&[text.as_str()], InputType::Passage).remove(0)
                })
                .collect();
            let (mut mrr, mut hit1) = (0.0, 0.0);
            for (qi, (_, want)) in questions.iter().enumerate() {
                let mut best = vec![f32::NEG_INFINITY; docs.len()];
                for ((d, _), v) in chunks.iter().zip(&cv) {
                    best[*d] = best[*d].max(cosine(&qv[qi], v));
                }
                let mut order: Vec<usize> = (0..docs.len()).collect();
                order.sort_by(|a, b| best[*b].partial_cmp(&best[*a]).unwrap());
                if let Some(r) = order
                    .iter()
                    .take(10)
                    .position(|&d| docs[d]["uri"].as_str() == Some(want.as_str()))
                {
                    mrr += 1.0 / (r + 1) as f64;
                    if r == 0 {
                        hit1 += 1.0;
                    }
                }
            }
            let n = questions.len() as f64;
            println!(
                "| {name} | {} | {:.3} | {:.3} |",
                if title { "yes" } else { "no" },
                mrr / n,
                hit1 / n
            );
        }
    }
}
