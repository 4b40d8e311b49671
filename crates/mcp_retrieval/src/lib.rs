//! Retrieval logic of pg_mcp, without pgrx:
//!
//! * [`chunk_text`]: split a document into chunks of at most `max_tokens` tokens with
//!   `overlap` tokens shared between neighbours, on paragraph, sentence and word boundaries
//!   (the `text-splitter` crate; Markdown structure for `format = "markdown"`). Tokens are
//!   counted with the tokenizer the chat loop budgets with (`mcp_llm::budget`, cl100k_base).
//! * [`rrf`]: reciprocal rank fusion of ranked lists (hybrid search).
//! * [`metrics`]: recall@k, MRR@k and nDCG@k for the retrieval-quality table.

pub mod metrics;

use mcp_llm::{CountTokens, TokenCounter};
use text_splitter::{ChunkConfig, ChunkSizer, MarkdownSplitter, TextSplitter};

/// The encoding chunks are measured in (the chat loop's counter for OpenAI-family models).
pub const CHUNK_ENCODING_MODEL: &str = "gpt-4";

/// Largest `max_tokens` accepted.
pub const MAX_CHUNK_TOKENS: usize = 8192;

/// Input formats of [`chunk_text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Markdown,
}

impl Format {
    pub fn parse(s: &str) -> Result<Format, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "text" | "plain" | "text/plain" => Ok(Format::Text),
            "markdown" | "md" | "text/markdown" => Ok(Format::Markdown),
            other => Err(format!(
                "format \"{other}\" is not supported: use 'text' or 'markdown'"
            )),
        }
    }
}

/// One chunk: its place in the document, its text and its size in tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// 0-based position in the document.
    pub position: usize,
    /// Byte offset of the chunk in the document.
    pub offset: usize,
    pub text: String,
    pub tokens: usize,
}

#[derive(Clone)]
struct Sizer(TokenCounter);

impl ChunkSizer for Sizer {
    fn size(&self, chunk: &str) -> usize {
        self.0.count_text(chunk)
    }
}

/// Split `body` into chunks of at most `max_tokens` tokens (cl100k_base), neighbours sharing up
/// to `overlap` tokens. Splits happen at the highest semantic level that fits: paragraphs, then
/// sentences, then words; a single word longer than `max_tokens` is the only thing ever cut
/// (at grapheme boundaries). Chunks are trimmed; an empty or blank body has no chunks.
pub fn chunk_text(
    body: &str,
    max_tokens: usize,
    overlap: usize,
    format: Format,
) -> Result<Vec<Chunk>, String> {
    if max_tokens == 0 || max_tokens > MAX_CHUNK_TOKENS {
        return Err(format!(
            "max_tokens must be between 1 and {MAX_CHUNK_TOKENS}"
        ));
    }
    if overlap >= max_tokens {
        return Err("overlap must be smaller than max_tokens".into());
    }
    let counter = TokenCounter::for_model(CHUNK_ENCODING_MODEL);
    let config = ChunkConfig::new(max_tokens)
        .with_sizer(Sizer(counter))
        .with_overlap(overlap)
        .map_err(|e| e.to_string())?;
    let spans = |it: &mut dyn Iterator<Item = (usize, &str)>| {
        it.map(|(o, t)| (o, o + t.len())).collect::<Vec<_>>()
    };
    // One splitter, reused for every window.
    enum Splitter {
        Text(TextSplitter<Sizer>),
        Markdown(MarkdownSplitter<Sizer>),
    }
    let splitter = match format {
        Format::Text => Splitter::Text(TextSplitter::new(config)),
        Format::Markdown => Splitter::Markdown(MarkdownSplitter::new(config)),
    };
    let split = |text: &str| -> Vec<(usize, usize)> {
        match &splitter {
            Splitter::Text(s) => spans(&mut s.chunk_indices(text)),
            Splitter::Markdown(s) => spans(&mut s.chunk_indices(text)),
        }
    };
    let pieces: Vec<(usize, &str)> = windowed(body, max_tokens, split)
        .into_iter()
        .map(|(a, b)| (a, &body[a..b]))
        .collect();
    Ok(pieces
        .into_iter()
        .filter(|(_, t)| !t.trim().is_empty())
        .enumerate()
        .map(|(position, (offset, t))| Chunk {
            position,
            offset,
            text: t.to_string(),
            tokens: counter.count_text(t),
        })
        .collect())
}

/// Bytes of the first window per `max_tokens` (a 512-token chunk of German prose is 2-2.5 KB:
/// a window holds several chunks).
const WINDOW_BYTES_PER_TOKEN: usize = 24;
const MIN_WINDOW_BYTES: usize = 4096;

/// Run `split` (which returns chunk spans of the text it is given) over `body` a window at a
/// time. The splitter measures candidate texts up to the whole rest of the text it is given,
/// so on a long text without paragraph or sentence breaks (one endless line of words, a
/// megabyte without a space, deeply nested Markdown) one call costs O(n²) in token counting:
/// 32 s for 1 MB without a space. A window bounds that: all chunks of a window but its last are
/// kept (they end before the window does), and the next window starts where that last chunk
/// started. A window that yields fewer than two chunks is doubled. For a body shorter than the
/// first window this is exactly one call of the splitter.
fn windowed(
    body: &str,
    max_tokens: usize,
    split: impl Fn(&str) -> Vec<(usize, usize)>,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut window = (max_tokens * WINDOW_BYTES_PER_TOKEN).max(MIN_WINDOW_BYTES);
    while start < body.len() {
        let mut end = (start + window).min(body.len());
        while !body.is_char_boundary(end) {
            end += 1;
        }
        let spans = split(&body[start..end]);
        if end == body.len() {
            out.extend(spans.into_iter().map(|(a, b)| (start + a, start + b)));
            break;
        }
        match spans.as_slice() {
            [.., (next, _)] if spans.len() >= 2 && *next > 0 => {
                let next = *next;
                out.extend(
                    spans[..spans.len() - 1]
                        .iter()
                        .map(|&(a, b)| (start + a, start + b)),
                );
                start += next;
                window = (max_tokens * WINDOW_BYTES_PER_TOKEN).max(MIN_WINDOW_BYTES);
            }
            _ => window = window.saturating_mul(2),
        }
    }
    out
}

/// The `k` of reciprocal rank fusion (Cormack et al. 2009): a document at rank r (1-based) in
/// one list contributes 1 / (RRF_K + r).
pub const RRF_K: f64 = 60.0;

/// The contextual header of a document's chunks: its title and the given metadata values, in
/// order, empty ones left out, joined by " | "; `None` when nothing is left. In a corpus of
/// many agreements sharing the same clauses, a chunk such as "§ 9 Urlaub. 30 Arbeitstage"
/// names neither branch nor region: the header does.
pub fn chunk_header(title: Option<&str>, values: &[&str]) -> Option<String> {
    let parts: Vec<&str> = title
        .into_iter()
        .chain(values.iter().copied())
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join(" | "))
}

/// What is embedded and indexed for a chunk: the header, a blank line, the chunk's text.
pub fn with_header(header: Option<&str>, text: &str) -> String {
    match header {
        Some(h) => format!("{h}\n\n{text}"),
        None => text.to_string(),
    }
}

/// Fuse ranked lists of ids (best first) by reciprocal rank; ties keep the order in which an id
/// was first seen (earlier list first). Returns (id, score), best first.
pub fn rrf<T: Clone + PartialEq>(lists: &[Vec<T>], k: f64) -> Vec<(T, f64)> {
    let mut out: Vec<(T, f64)> = Vec::new();
    for list in lists {
        for (rank, id) in list.iter().enumerate() {
            let add = 1.0 / (k + rank as f64 + 1.0);
            match out.iter_mut().find(|(x, _)| x == id) {
                Some((_, s)) => *s += add,
                None => out.push((id.clone(), add)),
            }
        }
    }
    // stable sort: equal scores keep first-seen order
    out.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
    out
}

#[cfg(test)]
mod tests;
