//! A BERT encoder (sentence-transformers layout: `embeddings.*`, `encoder.layer.N.*`) read from
//! a `model.safetensors` file, with mean pooling and L2 normalization — the pipeline of
//! all-MiniLM-L6-v2 (`modules.json`: Transformer → Pooling(mean) → Normalize).
//!
//! Plain f32 arithmetic, one sequence at a time (so no padding and no attention mask are
//! needed: the result equals a padded batch with its mask). The crate is built with
//! opt-level 3 even in debug builds (root Cargo.toml).

use crate::safetensors::Tensors;
use crate::EmbedError;

/// The model's hyper-parameters (from its `config.json`).
#[derive(Clone, Debug)]
pub struct BertConfig {
    pub hidden: usize,
    pub heads: usize,
    pub layers: usize,
    pub intermediate: usize,
    pub max_positions: usize,
    pub vocab: usize,
    pub layer_norm_eps: f32,
}

impl BertConfig {
    /// Read the fields pg_mcp needs from `config.json`; only `"hidden_act": "gelu"` BERT
    /// models with absolute positions are accepted.
    pub fn from_json(text: &str) -> Result<BertConfig, EmbedError> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| EmbedError::Model(format!("config.json is not JSON: {e}")))?;
        let n = |k: &str| -> Result<usize, EmbedError> {
            v.get(k)
                .and_then(|x| x.as_u64())
                .filter(|n| *n > 0 && *n < 1 << 20)
                .map(|n| n as usize)
                .ok_or_else(|| {
                    EmbedError::Model(format!("config.json: {k} missing or out of range"))
                })
        };
        if v.get("hidden_act")
            .and_then(|x| x.as_str())
            .unwrap_or("gelu")
            != "gelu"
        {
            return Err(EmbedError::Model(
                "config.json: only hidden_act \"gelu\" is supported".into(),
            ));
        }
        if v.get("position_embedding_type")
            .and_then(|x| x.as_str())
            .unwrap_or("absolute")
            != "absolute"
        {
            return Err(EmbedError::Model(
                "config.json: only absolute position embeddings are supported".into(),
            ));
        }
        let cfg = BertConfig {
            hidden: n("hidden_size")?,
            heads: n("num_attention_heads")?,
            layers: n("num_hidden_layers")?,
            intermediate: n("intermediate_size")?,
            max_positions: n("max_position_embeddings")?,
            vocab: n("vocab_size")?,
            layer_norm_eps: v
                .get("layer_norm_eps")
                .and_then(|x| x.as_f64())
                .unwrap_or(1e-12) as f32,
        };
        if !cfg.hidden.is_multiple_of(cfg.heads) {
            return Err(EmbedError::Model(
                "config.json: hidden_size is not a multiple of num_attention_heads".into(),
            ));
        }
        Ok(cfg)
    }
}

struct Linear {
    w: Vec<f32>, // [out, in], PyTorch layout
    b: Vec<f32>,
    inp: usize,
    out: usize,
}

struct LayerNorm {
    w: Vec<f32>,
    b: Vec<f32>,
}

struct Layer {
    q: Linear,
    k: Linear,
    v: Linear,
    attn_out: Linear,
    attn_norm: LayerNorm,
    inter: Linear,
    output: Linear,
    out_norm: LayerNorm,
}

/// The loaded encoder.
pub struct Bert {
    pub cfg: BertConfig,
    word: Vec<f32>,
    pos: Vec<f32>,
    token_type: Vec<f32>,
    emb_norm: LayerNorm,
    layers: Vec<Layer>,
}

impl Bert {
    pub fn load(cfg: BertConfig, t: &Tensors) -> Result<Bert, EmbedError> {
        let h = cfg.hidden;
        let lin = |name: &str, out: usize, inp: usize| -> Result<Linear, EmbedError> {
            Ok(Linear {
                w: t.f32(&format!("{name}.weight"), &[out, inp])?,
                b: t.f32(&format!("{name}.bias"), &[out])?,
                inp,
                out,
            })
        };
        let norm = |name: &str| -> Result<LayerNorm, EmbedError> {
            Ok(LayerNorm {
                w: t.f32(&format!("{name}.weight"), &[h])?,
                b: t.f32(&format!("{name}.bias"), &[h])?,
            })
        };
        let mut layers = Vec::with_capacity(cfg.layers);
        for i in 0..cfg.layers {
            let p = format!("encoder.layer.{i}");
            layers.push(Layer {
                q: lin(&format!("{p}.attention.self.query"), h, h)?,
                k: lin(&format!("{p}.attention.self.key"), h, h)?,
                v: lin(&format!("{p}.attention.self.value"), h, h)?,
                attn_out: lin(&format!("{p}.attention.output.dense"), h, h)?,
                attn_norm: norm(&format!("{p}.attention.output.LayerNorm"))?,
                inter: lin(&format!("{p}.intermediate.dense"), cfg.intermediate, h)?,
                output: lin(&format!("{p}.output.dense"), h, cfg.intermediate)?,
                out_norm: norm(&format!("{p}.output.LayerNorm"))?,
            });
        }
        Ok(Bert {
            word: t.f32("embeddings.word_embeddings.weight", &[cfg.vocab, h])?,
            pos: t.f32(
                "embeddings.position_embeddings.weight",
                &[cfg.max_positions, h],
            )?,
            token_type: t.f32_rows("embeddings.token_type_embeddings.weight", h)?,
            emb_norm: norm("embeddings.LayerNorm")?,
            layers,
            cfg,
        })
    }

    /// The mean-pooled, L2-normalized sentence vector of `ids` (already with [CLS]/[SEP], at
    /// most `max_positions` long).
    pub fn embed_ids(&self, ids: &[u32]) -> Vec<f32> {
        let h = self.cfg.hidden;
        let n = ids.len().min(self.cfg.max_positions);
        if n == 0 {
            return vec![0.0; h];
        }
        let mut x = vec![0f32; n * h];
        for (i, &id) in ids[..n].iter().enumerate() {
            let id = (id as usize).min(self.cfg.vocab - 1);
            let row = &mut x[i * h..(i + 1) * h];
            let w = &self.word[id * h..(id + 1) * h];
            let p = &self.pos[i * h..(i + 1) * h];
            let tt = &self.token_type[..h];
            for j in 0..h {
                row[j] = w[j] + p[j] + tt[j];
            }
        }
        self.layer_norm(&mut x, &self.emb_norm);
        for layer in &self.layers {
            x = self.layer(x, n, layer);
        }
        // mean pooling over all tokens, then L2 normalization
        let mut out = vec![0f32; h];
        for i in 0..n {
            for j in 0..h {
                out[j] += x[i * h + j];
            }
        }
        for v in &mut out {
            *v /= n as f32;
        }
        normalize(&mut out);
        out
    }

    fn layer(&self, x: Vec<f32>, n: usize, l: &Layer) -> Vec<f32> {
        let h = self.cfg.hidden;
        let heads = self.cfg.heads;
        let d = h / heads;
        let q = linear(&x, n, &l.q);
        let k = linear(&x, n, &l.k);
        let v = linear(&x, n, &l.v);
        let scale = 1.0 / (d as f32).sqrt();
        let mut ctx = vec![0f32; n * h];
        let mut scores = vec![0f32; n];
        for hd in 0..heads {
            let off = hd * d;
            for i in 0..n {
                mcp_repair::guard::tick((n * d) as u32);
                let qi = &q[i * h + off..i * h + off + d];
                let mut max = f32::NEG_INFINITY;
                for (j, s) in scores.iter_mut().enumerate() {
                    let kj = &k[j * h + off..j * h + off + d];
                    *s = dot(qi, kj) * scale;
                    max = max.max(*s);
                }
                let mut sum = 0f32;
                for s in scores.iter_mut() {
                    *s = (*s - max).exp();
                    sum += *s;
                }
                let c = &mut ctx[i * h + off..i * h + off + d];
                for (j, s) in scores.iter().enumerate() {
                    let p = s / sum;
                    let vj = &v[j * h + off..j * h + off + d];
                    for t in 0..d {
                        c[t] += p * vj[t];
                    }
                }
            }
        }
        let mut a = linear(&ctx, n, &l.attn_out);
        for (ai, xi) in a.iter_mut().zip(&x) {
            *ai += xi;
        }
        self.layer_norm(&mut a, &l.attn_norm);
        let mut inter = linear(&a, n, &l.inter);
        for v in &mut inter {
            *v = gelu(*v);
        }
        let mut o = linear(&inter, n, &l.output);
        for (oi, ai) in o.iter_mut().zip(&a) {
            *oi += ai;
        }
        self.layer_norm(&mut o, &l.out_norm);
        o
    }

    fn layer_norm(&self, x: &mut [f32], ln: &LayerNorm) {
        let h = self.cfg.hidden;
        let eps = self.cfg.layer_norm_eps;
        for row in x.chunks_exact_mut(h) {
            let mean = row.iter().sum::<f32>() / h as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
            let inv = 1.0 / (var + eps).sqrt();
            for ((v, w), b) in row.iter_mut().zip(&ln.w).zip(&ln.b) {
                *v = (*v - mean) * inv * w + b;
            }
        }
    }
}

/// `x · Wᵀ + b` for `n` rows.
fn linear(x: &[f32], n: usize, l: &Linear) -> Vec<f32> {
    let mut y = vec![0f32; n * l.out];
    for o in 0..l.out {
        mcp_repair::guard::tick((n * l.inp) as u32);
        let w = &l.w[o * l.inp..(o + 1) * l.inp];
        let b = l.b[o];
        for i in 0..n {
            y[i * l.out + o] = dot(&x[i * l.inp..(i + 1) * l.inp], w) + b;
        }
    }
    y
}

/// Dot product with eight independent sums (the compiler vectorizes it).
#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut s: f32 = acc.iter().sum();
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// BERT's exact GELU, `x · Φ(x)`, with erf from Abramowitz–Stegun 7.1.26 (|error| < 1.5e-7).
pub(crate) fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x / std::f32::consts::SQRT_2))
}

fn erf(x: f32) -> f32 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs() as f64;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    sign * y as f32
}

/// Scale to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in v {
            *x /= norm;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_and_gelu() {
        assert!((erf(0.5) - 0.520_499_9).abs() < 1e-6);
        assert!((erf(-1.5) + 0.966_105_1).abs() < 1e-6);
        assert!((gelu(1.0) - 0.841_344_7).abs() < 1e-6);
        assert_eq!(gelu(0.0), 0.0);
    }

    #[test]
    fn dot_handles_remainders() {
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let b = vec![1f32; 19];
        assert_eq!(dot(&a, &b), 171.0);
    }
}
