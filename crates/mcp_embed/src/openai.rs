//! The OpenAI-compatible `/v1/embeddings` wire format (OpenAI, Azure's v1 surface, Ollama,
//! vLLM, llama.cpp): the request body and the checked parse of the answer.

use crate::EmbedError;
use serde_json::{json, Value};

/// Body of `POST {base_url}/embeddings` for `texts`.
pub fn request_body(model: &str, texts: &[&str]) -> String {
    json!({"model": model, "input": texts, "encoding_format": "float"}).to_string()
}

/// The vectors of a successful answer, in input order, each checked to have `dimension`
/// finite components; exactly `expected` of them.
pub fn parse_response(
    body: &str,
    expected: usize,
    dimension: usize,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    let v: Value = serde_json::from_str(body)
        .map_err(|_| EmbedError::Server("the embedding server's answer is not JSON".into()))?;
    if let Some(err) = v.get("error") {
        let msg = err
            .get("message")
            .and_then(|m| m.as_str())
            .or_else(|| err.as_str())
            .unwrap_or("(no message)");
        return Err(EmbedError::Server(format!(
            "the embedding server answered with an error: {}",
            clip(msg, 300)
        )));
    }
    let data = v.get("data").and_then(|d| d.as_array()).ok_or_else(|| {
        EmbedError::Server("the embedding server's answer has no data array".into())
    })?;
    if data.len() != expected {
        return Err(EmbedError::Server(format!(
            "the embedding server returned {} vectors for {expected} texts",
            data.len()
        )));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (pos, item) in data.iter().enumerate() {
        let index = item
            .get("index")
            .and_then(|i| i.as_u64())
            .map_or(pos, |i| i as usize);
        let emb = item
            .get("embedding")
            .and_then(|e| e.as_array())
            .ok_or_else(|| {
                EmbedError::Server("an item of the answer has no embedding array".into())
            })?;
        if emb.len() != dimension {
            return Err(EmbedError::Dimension {
                got: emb.len(),
                expected: dimension,
            });
        }
        let mut vec = Vec::with_capacity(dimension);
        for x in emb {
            match x.as_f64() {
                Some(f) if f.is_finite() => vec.push(f as f32),
                _ => {
                    return Err(EmbedError::Server(
                        "an embedding holds a value that is not a finite number".into(),
                    ))
                }
            }
        }
        match out.get_mut(index) {
            Some(slot @ None) => *slot = Some(vec),
            _ => {
                return Err(EmbedError::Server(format!(
                    "the answer's index {index} is out of range or repeated"
                )))
            }
        }
    }
    Ok(out.into_iter().flatten().collect())
}

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_and_parse() {
        let b: Value = serde_json::from_str(&request_body("m", &["a", "b"])).unwrap();
        assert_eq!(b["input"], json!(["a", "b"]));
        let ok = r#"{"data":[{"index":1,"embedding":[0,1]},{"index":0,"embedding":[1,0]}]}"#;
        assert_eq!(
            parse_response(ok, 2, 2).unwrap(),
            vec![vec![1.0, 0.0], vec![0.0, 1.0]]
        );
        assert!(matches!(
            parse_response(ok, 2, 3),
            Err(EmbedError::Dimension {
                got: 2,
                expected: 3
            })
        ));
        assert!(parse_response(ok, 3, 2).is_err());
        assert!(parse_response(r#"{"error":{"message":"bad key"}}"#, 1, 2)
            .unwrap_err()
            .to_string()
            .contains("bad key"));
        assert!(parse_response(
            r#"{"data":[{"index":0,"embedding":[0,1]},{"index":0,"embedding":[1,0]}]}"#,
            2,
            2
        )
        .is_err());
        assert!(parse_response("<html>", 1, 2).is_err());
    }
}
