//! Reader of the safetensors format: 8 bytes little-endian header length, a JSON header
//! `{name: {dtype, shape, data_offsets: [begin, end]}}`, then the raw little-endian data.
//! Every offset and shape is checked against the file before it is used.

use crate::EmbedError;
use std::collections::HashMap;

/// Largest header accepted (the format's own limit is 100 MB).
const MAX_HEADER: u64 = 100 * 1024 * 1024;

struct Entry {
    dtype: String,
    shape: Vec<usize>,
    begin: usize,
    end: usize,
}

/// A parsed file: its bytes and the tensor table.
pub struct Tensors {
    data: Vec<u8>,
    base: usize,
    entries: HashMap<String, Entry>,
}

impl Tensors {
    pub fn parse(data: Vec<u8>) -> Result<Tensors, EmbedError> {
        let bad = |m: &str| EmbedError::Model(format!("model.safetensors: {m}"));
        if data.len() < 8 {
            return Err(bad("file too short"));
        }
        let mut len8 = [0u8; 8];
        len8.copy_from_slice(&data[..8]);
        let n = u64::from_le_bytes(len8);
        if n > MAX_HEADER || n as usize > data.len() - 8 {
            return Err(bad("header length out of range"));
        }
        let base = 8 + n as usize;
        let header: serde_json::Value = serde_json::from_slice(&data[8..base])
            .map_err(|e| bad(&format!("header is not JSON: {e}")))?;
        let obj = header
            .as_object()
            .ok_or_else(|| bad("header is not an object"))?;
        let mut entries = HashMap::new();
        for (name, v) in obj {
            if name == "__metadata__" {
                continue;
            }
            let dtype = v
                .get("dtype")
                .and_then(|d| d.as_str())
                .unwrap_or_default()
                .to_string();
            let numbers = |key: &str| -> Vec<usize> {
                v.get(key)
                    .and_then(|s| s.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_u64())
                            .map(|x| x as usize)
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let (shape, offs) = (numbers("shape"), numbers("data_offsets"));
            if offs.len() != 2 || offs[0] > offs[1] || offs[1] > data.len() - base {
                return Err(bad(&format!("tensor {name}: data offsets out of range")));
            }
            entries.insert(
                name.clone(),
                Entry {
                    dtype,
                    shape,
                    begin: offs[0],
                    end: offs[1],
                },
            );
        }
        Ok(Tensors {
            data,
            base,
            entries,
        })
    }

    /// An F32 tensor of exactly `shape`, copied out.
    pub fn f32(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, EmbedError> {
        let e = self.entry(name)?;
        if e.shape != shape {
            return Err(EmbedError::Model(format!(
                "model.safetensors: tensor {name} has shape {:?}, expected {shape:?}",
                e.shape
            )));
        }
        self.read(name, e)
    }

    /// An F32 matrix with rows of `width` (any number of rows, at least one).
    pub fn f32_rows(&self, name: &str, width: usize) -> Result<Vec<f32>, EmbedError> {
        let e = self.entry(name)?;
        if e.shape.len() != 2 || e.shape[1] != width || e.shape[0] == 0 {
            return Err(EmbedError::Model(format!(
                "model.safetensors: tensor {name} has shape {:?}, expected [_, {width}]",
                e.shape
            )));
        }
        self.read(name, e)
    }

    fn entry(&self, name: &str) -> Result<&Entry, EmbedError> {
        self.entries
            .get(name)
            .ok_or_else(|| EmbedError::Model(format!("model.safetensors has no tensor {name}")))
    }

    fn read(&self, name: &str, e: &Entry) -> Result<Vec<f32>, EmbedError> {
        if e.dtype != "F32" {
            return Err(EmbedError::Model(format!(
                "model.safetensors: tensor {name} is {}, only F32 is supported",
                e.dtype
            )));
        }
        let count: usize = e.shape.iter().product();
        if e.end - e.begin != count * 4 {
            return Err(EmbedError::Model(format!(
                "model.safetensors: tensor {name}: data size does not match its shape"
            )));
        }
        let bytes = &self.data[self.base + e.begin..self.base + e.end];
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut v = (header.len() as u64).to_le_bytes().to_vec();
        v.extend_from_slice(header.as_bytes());
        v.extend_from_slice(data);
        v
    }

    #[test]
    fn reads_f32_and_checks_everything() {
        let data: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let t = Tensors::parse(file(
            r#"{"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}"#,
            &data,
        ))
        .unwrap();
        assert_eq!(t.f32("a", &[2, 2]).unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
        assert!(t.f32("a", &[4]).is_err());
        assert!(t.f32("b", &[4]).is_err());
        assert!(Tensors::parse(file(
            r#"{"a":{"dtype":"F32","shape":[8],"data_offsets":[0,32]}}"#,
            &data
        ))
        .is_err());
        assert!(Tensors::parse(vec![255; 8]).is_err());
        assert!(Tensors::parse(file("not json", &[])).is_err());
    }
}
