//! Retrieval-quality metrics with binary relevance: `ranked` is the result list (best first),
//! `relevant` the ids that answer the question.

/// Share of the relevant ids found in the first `k` results.
pub fn recall_at<T: PartialEq>(ranked: &[T], relevant: &[T], k: usize) -> f64 {
    if relevant.is_empty() {
        return 0.0;
    }
    let hits = relevant
        .iter()
        .filter(|r| ranked.iter().take(k).any(|x| x == *r))
        .count();
    hits as f64 / relevant.len() as f64
}

/// 1 / rank of the first relevant result within the first `k`, else 0.
pub fn mrr_at<T: PartialEq>(ranked: &[T], relevant: &[T], k: usize) -> f64 {
    ranked
        .iter()
        .take(k)
        .position(|x| relevant.contains(x))
        .map_or(0.0, |i| 1.0 / (i as f64 + 1.0))
}

/// Normalized discounted cumulative gain at `k` (gain 1 per relevant result, log2 discount).
pub fn ndcg_at<T: PartialEq>(ranked: &[T], relevant: &[T], k: usize) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .filter(|(_, x)| relevant.contains(x))
        .map(|(i, _)| 1.0 / (i as f64 + 2.0).log2())
        .sum();
    let ideal: f64 = (0..relevant.len().min(k))
        .map(|i| 1.0 / (i as f64 + 2.0).log2())
        .sum();
    if ideal == 0.0 {
        0.0
    } else {
        dcg / ideal
    }
}
