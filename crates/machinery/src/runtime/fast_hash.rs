//! A small, fast, non-cryptographic hasher for the Scheme's registration tables.
//!
//! The tables are filled at start-up from code (types, GVKs, conversion pairs), never from
//! request input, so hash flooding cannot grow them; lookups only probe. SipHash (std's
//! default) cost tens of nanoseconds per GVK lookup on the conversion path; this is a
//! multiply-rotate hash over 8-byte words, in the style of rustc's FxHasher.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// Multiply-rotate hasher over 8-byte words.
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher {
    hash: u64,
}

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.add(i as u64);
        self.add((i >> 64) as u64);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // The multiply leaves the best-mixed bits at the top; hashbrown picks buckets
        // from the low ones.
        self.hash.rotate_left(26)
    }
}

/// The builder of [`FastHasher`]s.
pub(crate) type FastBuild = BuildHasherDefault<FastHasher>;
/// A `HashMap` with [`FastHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, FastBuild>;
/// A `HashSet` with [`FastHasher`].
pub(crate) type FastSet<K> = HashSet<K, FastBuild>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash_of(v: impl Hash) -> u64 {
        FastBuild::default().hash_one(v)
    }

    #[test]
    fn fast_hash_distinguishes_strings_differing_in_the_tail() {
        assert_ne!(hash_of("autoscaling/v1"), hash_of("autoscaling/v2"));
    }

    #[test]
    fn fast_hash_is_deterministic() {
        assert_eq!(hash_of(("apps", "v1")), hash_of(("apps", "v1")));
    }
}
