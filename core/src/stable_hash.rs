//! The state's stable 64-bit hash (`state/facts.py` `stable_hash`): BLAKE2b with an 8-byte
//! digest over the tokens joined by U+001F, read big-endian. Path and state keys are written to
//! state files, so this must give exactly the Python value for the same tokens.

use blake2::digest::consts::U8;
use blake2::{Blake2b, Digest};

/// `stable_hash(tokens)` of already valid UTF-8 tokens (Rust strings hold no lone surrogates,
/// so Python's `encode("utf-8", "replace")` changes nothing).
pub fn stable_hash<'a>(tokens: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut hasher = Blake2b::<U8>::new();
    for (i, token) in tokens.into_iter().enumerate() {
        if i > 0 {
            hasher.update(b"\x1f");
        }
        hasher.update(token.as_bytes());
    }
    u64::from_be_bytes(hasher.finalize().into())
}

/// `stable_hash` of tokens already joined by U+001F.
pub fn stable_hash_joined(joined: &str) -> u64 {
    u64::from_be_bytes(Blake2b::<U8>::digest(joined.as_bytes()).into())
}

#[cfg(test)]
mod tests {
    use super::stable_hash;

    #[test]
    fn empty_and_joined_tokens_differ() {
        assert_ne!(stable_hash([]), stable_hash(["", ""]));
        assert_eq!(stable_hash(["a", "b"]), stable_hash(["a\x1fb"]));
        assert_eq!(stable_hash(["a", "b"]), super::stable_hash_joined("a\x1fb"));
    }
}
