//! Text embeddings for pg_mcp's retrieval. No pgrx.
//!
//! * [`LocalModel`]: a sentence-transformers BERT model (the project ships all-MiniLM-L6-v2,
//!   384 dimensions) loaded from its files on disk — `config.json`, `model.safetensors`,
//!   `vocab.txt`, `sentence_bert_config.json`, `1_Pooling/config.json`, `modules.json` — and run
//!   in pure Rust: WordPiece tokenizer ([`wordpiece`]), encoder ([`bert`]), mean pooling, L2
//!   normalization. Nothing is downloaded.
//! * [`openai`]: the `/v1/embeddings` request body and the checked parse of the answer; the
//!   HTTP exchange itself is the chat loop's client (crates/mcp_http), driven by the host.
//!
//! Long computations call `mcp_repair::guard::tick`, so a host that installs interrupt hooks
//! (pg_mcp does) can cancel an embedding run.

pub mod bert;
pub mod openai;
pub mod safetensors;
pub mod wordpiece;

use sha2::{Digest, Sha256};
use std::fmt;
use std::path::Path;

/// What can go wrong while embedding.
#[derive(Debug, Clone, PartialEq)]
pub enum EmbedError {
    /// The model files are missing or malformed.
    Model(String),
    /// The embedding server failed or answered something unusable.
    Server(String),
    /// A vector of another dimension than the registered one.
    Dimension { got: usize, expected: usize },
}

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmbedError::Model(m) | EmbedError::Server(m) => f.write_str(m),
            EmbedError::Dimension { got, expected } => write!(
                f,
                "the embedding model returned vectors of dimension {got}, but {expected} is registered"
            ),
        }
    }
}

impl std::error::Error for EmbedError {}

/// A loaded local model.
pub struct LocalModel {
    bert: bert::Bert,
    tokenizer: wordpiece::WordPiece,
    /// Tokens per text, [CLS] and [SEP] included (sentence_bert_config.json max_seq_length).
    pub max_seq_len: usize,
    normalize: bool,
    /// `local:sha256:<hex>` of model.safetensors, config.json and vocab.txt.
    pub fingerprint: String,
}

impl fmt::Debug for LocalModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LocalModel({}, dim {})",
            self.fingerprint,
            self.dimension()
        )
    }
}

fn read(dir: &Path, name: &str) -> Result<Vec<u8>, EmbedError> {
    std::fs::read(dir.join(name))
        .map_err(|e| EmbedError::Model(format!("cannot read {}: {e}", dir.join(name).display())))
}

fn read_text(dir: &Path, name: &str) -> Result<String, EmbedError> {
    String::from_utf8(read(dir, name)?)
        .map_err(|_| EmbedError::Model(format!("{name} is not UTF-8")))
}

/// The fingerprint of the model files in `dir` (what a collection records and the RAG gate
/// compares): SHA-256 over config.json, vocab.txt and model.safetensors.
pub fn fingerprint(dir: &Path) -> Result<String, EmbedError> {
    Ok(fingerprint_of(&[
        &read(dir, "config.json")?,
        &read(dir, "vocab.txt")?,
        &read(dir, "model.safetensors")?,
    ]))
}

fn fingerprint_of(files: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for bytes in files {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    format!("local:sha256:{}", hex(&h.finalize()))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl LocalModel {
    /// Load the model in `dir`.
    pub fn load(dir: &Path) -> Result<LocalModel, EmbedError> {
        let cfg = bert::BertConfig::from_json(&read_text(dir, "config.json")?)?;
        let st: serde_json::Value =
            serde_json::from_str(&read_text(dir, "sentence_bert_config.json")?)
                .map_err(|e| EmbedError::Model(format!("sentence_bert_config.json: {e}")))?;
        let max_seq_len = st
            .get("max_seq_length")
            .and_then(|v| v.as_u64())
            .map_or(cfg.max_positions, |v| v as usize)
            .clamp(2, cfg.max_positions);
        let pooling: serde_json::Value =
            serde_json::from_str(&read_text(dir, "1_Pooling/config.json")?)
                .map_err(|e| EmbedError::Model(format!("1_Pooling/config.json: {e}")))?;
        if pooling
            .get("pooling_mode_mean_tokens")
            .and_then(|v| v.as_bool())
            != Some(true)
        {
            return Err(EmbedError::Model(
                "only mean pooling is supported (1_Pooling/config.json)".into(),
            ));
        }
        if pooling
            .get("word_embedding_dimension")
            .and_then(|v| v.as_u64())
            != Some(cfg.hidden as u64)
        {
            return Err(EmbedError::Model(
                "1_Pooling/config.json: word_embedding_dimension differs from hidden_size".into(),
            ));
        }
        let normalize = read_text(dir, "modules.json")?.contains("models.Normalize");
        let tokenizer = wordpiece::WordPiece::from_vocab(&read_text(dir, "vocab.txt")?)
            .map_err(EmbedError::Model)?;
        if tokenizer.len() > cfg.vocab {
            return Err(EmbedError::Model(
                "vocab.txt has more tokens than config.json's vocab_size".into(),
            ));
        }
        let raw = read(dir, "model.safetensors")?;
        let fingerprint = fingerprint_of(&[
            read_text(dir, "config.json")?.as_bytes(),
            read_text(dir, "vocab.txt")?.as_bytes(),
            &raw,
        ]);
        let tensors = safetensors::Tensors::parse(raw)?;
        let bert = bert::Bert::load(cfg, &tensors)?;
        Ok(LocalModel {
            bert,
            tokenizer,
            max_seq_len,
            normalize,
            fingerprint,
        })
    }

    pub fn dimension(&self) -> usize {
        self.bert.cfg.hidden
    }

    /// Word pieces of `text` the model sees ([CLS]/[SEP] included, truncated).
    pub fn token_ids(&self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text, self.max_seq_len)
    }

    /// One vector per text.
    pub fn embed(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        texts
            .iter()
            .map(|t| {
                let mut v = self.bert.embed_ids(&self.token_ids(t));
                if self.normalize {
                    bert::normalize(&mut v);
                }
                v
            })
            .collect()
    }
}

/// Cosine similarity of two vectors of equal length.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

/// Directory of the shipped model (scripts/setup.sh installs it there); tests and benchmarks
/// use it when present. `PG_MCP_MODEL_DIR` overrides it.
pub fn default_model_dir() -> std::path::PathBuf {
    std::env::var_os("PG_MCP_MODEL_DIR")
        .map(Into::into)
        .unwrap_or_else(|| "/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2".into())
}
