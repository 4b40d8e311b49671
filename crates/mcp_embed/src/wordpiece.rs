//! BERT's uncased WordPiece tokenizer, as the model's `tokenizer.json` describes it
//! (`BertNormalizer` with clean_text, handle_chinese_chars, lowercase and — because lowercase
//! is set and strip_accents is null — accent stripping; `BertPreTokenizer`; `WordPiece` with
//! `##` continuations, `[UNK]` and at most 100 characters per word).
//!
//! Read from the model's `vocab.txt` (one token per line, the line number is the id).

use std::collections::HashMap;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Longest word WordPiece splits; a longer one becomes `[UNK]` (as in BERT).
const MAX_WORD_CHARS: usize = 100;

#[derive(Debug)]
pub struct WordPiece {
    vocab: HashMap<String, u32>,
    pub unk: u32,
    pub cls: u32,
    pub sep: u32,
}

impl WordPiece {
    /// Parse a `vocab.txt`. Errors name what is missing.
    pub fn from_vocab(text: &str) -> Result<WordPiece, String> {
        let mut vocab = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let tok = line.trim_end_matches('\r');
            if !tok.is_empty() {
                vocab.entry(tok.to_string()).or_insert(i as u32);
            }
        }
        let id = |t: &str| {
            vocab
                .get(t)
                .copied()
                .ok_or_else(|| format!("vocab.txt has no {t} token"))
        };
        Ok(WordPiece {
            unk: id("[UNK]")?,
            cls: id("[CLS]")?,
            sep: id("[SEP]")?,
            vocab,
        })
    }

    pub fn len(&self) -> usize {
        self.vocab.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vocab.is_empty()
    }

    /// Token ids of `text` with `[CLS]` … `[SEP]`, at most `max_len` ids in all (the text is
    /// truncated, as sentence-transformers does at its max_seq_length).
    pub fn encode(&self, text: &str, max_len: usize) -> Vec<u32> {
        let max_len = max_len.max(2);
        let mut ids = vec![self.cls];
        'words: for word in pre_tokenize(&normalize(text)) {
            mcp_repair::guard::tick(word.len() as u32 + 1);
            for id in self.word_ids(&word) {
                if ids.len() + 1 >= max_len {
                    break 'words;
                }
                ids.push(id);
            }
        }
        ids.push(self.sep);
        ids
    }

    /// The pieces of one pre-token (a word or one punctuation character).
    fn word_ids(&self, word: &str) -> Vec<u32> {
        if word.chars().count() > MAX_WORD_CHARS {
            return vec![self.unk];
        }
        let mut out = Vec::new();
        let mut start = 0;
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while end > start {
                let piece = &word[start..end];
                let hit = if start == 0 {
                    self.vocab.get(piece)
                } else {
                    self.vocab.get(&format!("##{piece}"))
                };
                if let Some(&id) = hit {
                    found = Some(id);
                    break;
                }
                // step back one character
                end = word[..end]
                    .char_indices()
                    .next_back()
                    .map_or(start, |(i, _)| i);
            }
            match found {
                Some(id) => {
                    out.push(id);
                    start = end;
                }
                None => return vec![self.unk],
            }
        }
        out
    }
}

/// BertNormalizer: drop NUL, U+FFFD and control characters, whitespace to a space, spaces
/// around CJK ideographs, strip accents (NFD, drop combining marks), lowercase.
pub fn normalize(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' {
            continue;
        }
        if c.is_whitespace() {
            cleaned.push(' ');
        } else if c.is_control() || is_format(c) {
            continue;
        } else if is_cjk(c) {
            cleaned.push(' ');
            cleaned.push(c);
            cleaned.push(' ');
        } else {
            cleaned.push(c);
        }
    }
    let stripped: String = cleaned.nfd().filter(|c| !is_combining_mark(*c)).collect();
    stripped.to_lowercase()
}

/// BertPreTokenizer: split on whitespace; every punctuation character is a token of its own.
pub fn pre_tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        let mut cur = String::new();
        for c in word.chars() {
            if is_punctuation(c) {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                out.push(c.to_string());
            } else {
                cur.push(c);
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

/// BERT's punctuation: all non-alphanumeric ASCII printables, and Unicode punctuation. The
/// Unicode part is the ranges that hold the P* categories text actually uses (Latin-1
/// punctuation, General Punctuation, CJK and fullwidth punctuation).
fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    matches!(c,
        '\u{a1}' | '\u{a7}' | '\u{ab}' | '\u{b6}' | '\u{b7}' | '\u{bb}' | '\u{bf}'
        | '\u{37e}' | '\u{387}'
        | '\u{2010}'..='\u{2027}'
        | '\u{2030}'..='\u{205e}'
        | '\u{2308}'..='\u{230b}'
        | '\u{2329}' | '\u{232a}'
        | '\u{2768}'..='\u{2775}'
        | '\u{27c5}' | '\u{27c6}'
        | '\u{27e6}'..='\u{27ef}'
        | '\u{2e00}'..='\u{2e4f}'
        | '\u{3001}'..='\u{3003}'
        | '\u{3008}'..='\u{3011}'
        | '\u{3014}'..='\u{301f}'
        | '\u{ff01}'..='\u{ff0f}'
        | '\u{ff1a}'..='\u{ff20}'
        | '\u{ff3b}'..='\u{ff40}'
        | '\u{ff5b}'..='\u{ff65}')
}

/// Unicode format characters (Cf) BERT's cleaner drops: soft hyphen, zero-width characters,
/// bidi marks, BOM.
fn is_format(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// The CJK ideograph blocks BERT surrounds with spaces.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> WordPiece {
        let vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nun\n##aff\n##able\nta\n##rif\n.\n,\nstrasse\ngross\n##e\n";
        WordPiece::from_vocab(vocab).unwrap()
    }

    #[test]
    fn normalizes_like_bert() {
        assert_eq!(
            normalize("Tarifvertrag Über\tGRÖSSE\u{0}"),
            "tarifvertrag uber grosse"
        );
        assert_eq!(normalize("a\u{ad}b é"), "ab e");
    }

    #[test]
    fn punctuation_is_its_own_token() {
        assert_eq!(
            pre_tokenize("hallo, welt!"),
            vec!["hallo", ",", "welt", "!"]
        );
        assert_eq!(
            pre_tokenize("„lohn“ – 3%"),
            vec!["„", "lohn", "“", "–", "3", "%"]
        );
    }

    #[test]
    fn wordpiece_greedy_longest_match() {
        let wp = tiny();
        assert_eq!(wp.encode("unaffable", 64), vec![2, 5, 6, 7, 3]);
        assert_eq!(wp.encode("Tarif, the.", 64), vec![2, 8, 9, 11, 4, 10, 3]);
        // a word with an unknown piece is [UNK] as a whole
        assert_eq!(wp.encode("unx", 64), vec![2, 1, 3]);
        // truncation keeps [CLS] … [SEP]
        assert_eq!(wp.encode("the the the the", 4), vec![2, 4, 4, 3]);
    }
}
