//! Key-space arithmetic shared by both backends: the end of a prefix range.

/// The smallest key greater than every key starting with `prefix` (etcd's "range end"),
/// or `None` when the prefix is empty or all 0xff, meaning "to the end of the key space".
pub fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::prefix_end;

    #[test]
    fn prefix_end_increments_last_byte() {
        assert_eq!(
            prefix_end(b"/registry/pods/"),
            Some(b"/registry/pods0".to_vec())
        );
    }

    #[test]
    fn prefix_end_drops_trailing_ff_bytes() {
        assert_eq!(prefix_end(&[b'a', 0xff, 0xff]), Some(vec![b'b']));
    }

    #[test]
    fn prefix_end_of_empty_prefix_is_unbounded() {
        assert_eq!(prefix_end(b""), None);
        assert_eq!(prefix_end(&[0xff]), None);
    }
}
