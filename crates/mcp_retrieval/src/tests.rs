use super::*;
use crate::metrics::*;

fn count(t: &str) -> usize {
    TokenCounter::for_model(CHUNK_ENCODING_MODEL).count_text(t)
}

const GERMAN: &str = "Der Tarifvertrag gilt für alle Beschäftigten der Metall- und Elektroindustrie in Bayern. \
Die wöchentliche Arbeitszeit beträgt 35 Stunden. Auszubildende erhalten im ersten Ausbildungsjahr 1.100 Euro.\n\n\
Urlaub: Beschäftigte haben Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr. Zusätzlich wird ein Urlaubsgeld gezahlt. \
Die Höhe des Urlaubsgeldes richtet sich nach dem Monatsentgelt.\n\n\
Kündigungsfristen: Die Kündigungsfrist beträgt sechs Wochen zum Quartalsende. Nach fünf Jahren Betriebszugehörigkeit \
verlängert sie sich auf drei Monate.";

/// Every chunk boundary sits between words: the chunk's first and last characters are not
/// glued to a letter of the body outside it.
fn assert_word_boundaries(body: &str, chunks: &[Chunk]) {
    for c in chunks {
        assert_eq!(
            &body[c.offset..c.offset + c.text.len()],
            c.text,
            "offset of chunk {}",
            c.position
        );
        let before = body[..c.offset].chars().next_back();
        let after = body[c.offset + c.text.len()..].chars().next();
        let first = c.text.chars().next().unwrap();
        let last = c.text.chars().next_back().unwrap();
        assert!(
            !(before.is_some_and(char::is_alphanumeric) && first.is_alphanumeric()),
            "chunk {} starts inside a word: {:?}",
            c.position,
            c.text
        );
        assert!(
            !(after.is_some_and(char::is_alphanumeric) && last.is_alphanumeric()),
            "chunk {} ends inside a word: {:?}",
            c.position,
            c.text
        );
    }
}

#[test]
fn chunks_respect_the_token_limit_and_word_boundaries() {
    for max in [8usize, 12, 20, 40, 64] {
        let chunks = chunk_text(GERMAN, max, 0, Format::Text).unwrap();
        assert!(chunks.len() > 1, "max {max}");
        for c in &chunks {
            assert!(
                c.tokens <= max,
                "chunk of {} tokens > {max}: {:?}",
                c.tokens,
                c.text
            );
            assert_eq!(c.tokens, count(&c.text));
        }
        assert_word_boundaries(GERMAN, &chunks);
        let positions: Vec<usize> = chunks.iter().map(|c| c.position).collect();
        assert_eq!(positions, (0..chunks.len()).collect::<Vec<_>>());
        // without overlap the chunks cover the body in order, nothing lost
        let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        let joined: String = chunks.iter().map(|c| squeeze(&c.text)).collect();
        assert_eq!(joined, squeeze(GERMAN));
    }
}

#[test]
fn paragraphs_are_kept_whole_when_they_fit() {
    let chunks = chunk_text(GERMAN, 60, 0, Format::Text).unwrap();
    // the first paragraph fits: it is one chunk and ends where the paragraph ends
    assert!(
        chunks[0].text.ends_with("1.100 Euro."),
        "{:?}",
        chunks[0].text
    );
    // sentence level: no chunk ends in the middle of a sentence here
    for c in &chunks {
        assert!(c.text.ends_with('.'), "{:?}", c.text);
    }
}

#[test]
fn neighbours_overlap() {
    let chunks = chunk_text(GERMAN, 24, 8, Format::Text).unwrap();
    assert!(chunks.len() > 2);
    let mut overlapping = 0;
    for w in chunks.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        assert!(b.offset > a.offset, "chunks advance");
        assert!(b.tokens <= 24);
        if b.offset < a.offset + a.text.len() {
            overlapping += 1;
            let shared = &GERMAN[b.offset..a.offset + a.text.len()];
            assert!(count(shared) <= 8 + 1, "overlap {shared:?}");
        }
    }
    assert!(overlapping > 0, "no neighbours overlapped: {chunks:?}");
    assert_word_boundaries(GERMAN, &chunks);
    // no overlap requested: no chunk starts before the previous one ended
    let plain = chunk_text(GERMAN, 24, 0, Format::Text).unwrap();
    for w in plain.windows(2) {
        assert!(w[1].offset >= w[0].offset + w[0].text.len());
    }
}

#[test]
fn markdown_splits_at_headings() {
    let md = "# Entgelt\n\nDas Monatsentgelt der Entgeltgruppe 5 beträgt 3.200 Euro.\n\n# Urlaub\n\nDer Urlaub beträgt 30 Tage im Jahr.\n";
    let chunks = chunk_text(md, 30, 0, Format::Markdown).unwrap();
    assert_eq!(chunks.len(), 2, "{chunks:?}");
    assert!(chunks[0].text.starts_with("# Entgelt"));
    assert!(chunks[1].text.starts_with("# Urlaub"));
}

#[test]
fn bad_arguments_and_empty_bodies() {
    assert!(chunk_text("x", 0, 0, Format::Text).is_err());
    assert!(chunk_text("x", 10, 10, Format::Text).is_err());
    assert!(chunk_text("x", MAX_CHUNK_TOKENS + 1, 0, Format::Text).is_err());
    assert!(chunk_text("", 10, 0, Format::Text).unwrap().is_empty());
    assert!(chunk_text(" \n\n ", 10, 0, Format::Text)
        .unwrap()
        .is_empty());
    assert_eq!(Format::parse("Markdown").unwrap(), Format::Markdown);
    assert!(Format::parse("pdf").is_err());
}

#[test]
fn rrf_fuses_by_reciprocal_rank() {
    let fused = rrf(&[vec!["a", "b", "c"], vec!["c", "b", "d"]], RRF_K);
    let ids: Vec<&str> = fused.iter().map(|(id, _)| *id).collect();
    // c: ranks 3 and 1, b: ranks 2 and 2; 1/61 + 1/63 > 2/62 (convexity)
    let score = |id: &str| fused.iter().find(|(x, _)| *x == id).unwrap().1;
    assert!((score("b") - 2.0 / 62.0).abs() < 1e-12);
    assert!((score("c") - (1.0 / 63.0 + 1.0 / 61.0)).abs() < 1e-12);
    assert_eq!(ids, vec!["c", "b", "a", "d"]);
}

#[test]
fn metrics() {
    let ranked = [1, 2, 3, 4];
    assert_eq!(recall_at(&ranked, &[2, 9], 7), 0.5);
    assert_eq!(mrr_at(&ranked, &[3], 10), 1.0 / 3.0);
    assert_eq!(mrr_at(&ranked, &[9], 10), 0.0);
    assert!((ndcg_at(&ranked, &[1], 10) - 1.0).abs() < 1e-12);
    assert!((ndcg_at(&ranked, &[2], 10) - 1.0 / 3f64.log2()).abs() < 1e-12);
}

#[test]
fn long_texts_are_split_in_windows_with_the_same_chunks() {
    // Text longer than one window (512 tokens: 12 KB): the windowed result equals the splitter
    // over the whole text.
    let para = "Die regelmäßige wöchentliche Arbeitszeit beträgt 35 Stunden. Beschäftigte haben Anspruch auf 30 Arbeitstage Urlaub. ";
    let body: String = (0..400)
        .map(|i| {
            if i % 7 == 6 {
                format!("{para}\n\n")
            } else {
                para.to_string()
            }
        })
        .collect();
    assert!(body.len() > 40_000);
    for (max, overlap) in [(512, 64), (100, 0), (64, 16)] {
        let got = chunk_text(&body, max, overlap, Format::Text).unwrap();
        let whole: Vec<(usize, String)> = {
            let config = ChunkConfig::new(max)
                .with_sizer(Sizer(TokenCounter::for_model(CHUNK_ENCODING_MODEL)))
                .with_overlap(overlap)
                .unwrap();
            TextSplitter::new(config)
                .chunk_indices(&body)
                .filter(|(_, t)| !t.trim().is_empty())
                .map(|(o, t)| (o, t.to_string()))
                .collect()
        };
        let got: Vec<(usize, String)> = got.into_iter().map(|c| (c.offset, c.text)).collect();
        assert_eq!(got, whole, "max {max} overlap {overlap}");
    }
}

#[test]
fn texts_without_breaks_are_chunked_in_windows() {
    // Text without a space, and words without a sentence end, several windows long: every
    // chunk within the limit, the whole text covered in order (the time it takes is measured
    // by the chunk_time example: 1 MB without a space 32 s before windows, 2.9 s after).
    for body in ["x".repeat(300_000), "Wort ".repeat(60_000)] {
        let chunks = chunk_text(&body, 512, 64, Format::Text).unwrap();
        assert!(chunks.iter().all(|c| c.tokens <= 512));
        assert_eq!(chunks.first().unwrap().offset, 0);
        let last = chunks.last().unwrap();
        assert_eq!(last.offset + last.text.len(), body.trim_end().len());
        for w in chunks.windows(2) {
            assert!(w[1].offset > w[0].offset && w[1].offset <= w[0].offset + w[0].text.len());
        }
    }
}

#[test]
fn chunk_header_joins_title_and_values_and_skips_empty_ones() {
    assert_eq!(
        crate::chunk_header(Some("MTV Metall – Bayern"), &["Bayern", " ", "Metall"]).as_deref(),
        Some("MTV Metall – Bayern | Bayern | Metall")
    );
    assert_eq!(
        crate::chunk_header(None, &["Sachsen"]).as_deref(),
        Some("Sachsen")
    );
    assert_eq!(crate::chunk_header(Some("  "), &[]), None);
    assert_eq!(
        crate::with_header(Some("T"), "§ 9 Urlaub"),
        "T\n\n§ 9 Urlaub"
    );
    assert_eq!(crate::with_header(None, "§ 9 Urlaub"), "§ 9 Urlaub");
}
