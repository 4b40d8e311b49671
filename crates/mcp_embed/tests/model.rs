//! The shipped model (scripts/setup.sh installs it; PG_MCP_MODEL_DIR overrides the place).
//! These tests fail when it is missing: the local kind is the default of the demo and tests.

use mcp_embed::{cosine, default_model_dir, fingerprint, LocalModel};
use std::sync::OnceLock;

fn model() -> &'static LocalModel {
    static M: OnceLock<LocalModel> = OnceLock::new();
    M.get_or_init(|| {
        LocalModel::load(&default_model_dir())
            .unwrap_or_else(|e| panic!("{e} (run scripts/setup.sh to install the model)"))
    })
}

#[test]
fn loads_and_embeds_unit_vectors() {
    let m = model();
    assert_eq!(m.dimension(), 384);
    assert_eq!(m.fingerprint, fingerprint(&default_model_dir()).unwrap());
    assert!(m.fingerprint.starts_with("local:sha256:"));
    let v = m.embed(&["Tarifvertrag", ""]);
    for x in &v {
        assert_eq!(x.len(), 384);
        let norm: f32 = x.iter().map(|a| a * a).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "{norm}");
    }
    // deterministic
    assert_eq!(m.embed(&["Tarifvertrag"])[0], v[0]);
}

#[test]
fn tokenizer_matches_bert_uncased() {
    let m = model();
    // ids from the model's own vocab.txt: [CLS]=101, [SEP]=102; "hello"=7592, ","=1010, "world"=2088
    assert_eq!(
        m.token_ids("Hello, WORLD"),
        vec![101, 7592, 1010, 2088, 102]
    );
    // long inputs are truncated to max_seq_length (256) with [SEP] last
    let long = "wort ".repeat(1000);
    let ids = m.token_ids(&long);
    assert_eq!(ids.len(), 256);
    assert_eq!(*ids.last().unwrap(), 102);
}

#[test]
fn similar_meaning_scores_higher() {
    let m = model();
    let v = m.embed(&[
        "How many days of vacation do employees get?",
        "Employees are entitled to 30 days of paid holiday per year.",
        "The notice period is six weeks to the end of the quarter.",
        "Wie viele Urlaubstage haben Beschäftigte?",
        "Beschäftigte haben Anspruch auf 30 Urlaubstage im Jahr.",
        "Die Kündigungsfrist beträgt sechs Wochen zum Quartalsende.",
    ]);
    let (en_good, en_bad) = (cosine(&v[0], &v[1]), cosine(&v[0], &v[2]));
    assert!(en_good > en_bad + 0.2, "{en_good} vs {en_bad}");
    let (de_good, de_bad) = (cosine(&v[3], &v[4]), cosine(&v[3], &v[5]));
    assert!(de_good > de_bad, "{de_good} vs {de_bad}");
}

#[test]
fn broken_model_files_are_errors() {
    let dir = std::env::temp_dir().join(format!("mcp_embed_broken_{}", std::process::id()));
    std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
    let src = default_model_dir();
    for f in [
        "config.json",
        "vocab.txt",
        "sentence_bert_config.json",
        "modules.json",
        "1_Pooling/config.json",
    ] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    // missing weights
    let e = LocalModel::load(&dir).unwrap_err().to_string();
    assert!(e.contains("model.safetensors"), "{e}");
    // truncated weights
    std::fs::write(dir.join("model.safetensors"), b"\x10\0\0\0\0\0\0\0{}").unwrap();
    assert!(LocalModel::load(&dir).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}
