//! Reading and writing `metadata` of objects held as JSON values.

use serde_json::{Map, Value};

/// `metadata` of `obj`, if it is an object.
pub fn meta(obj: &Value) -> Option<&Map<String, Value>> {
    obj.get("metadata").and_then(Value::as_object)
}

/// `metadata` of `obj`, created when missing (`obj` must be a JSON object).
pub fn meta_mut(obj: &mut Value) -> &mut Map<String, Value> {
    if !obj.is_object() {
        *obj = Value::Object(Map::new());
    }
    let map = obj.as_object_mut().expect("made an object above");
    let m = map
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !m.is_object() {
        *m = Value::Object(Map::new());
    }
    m.as_object_mut().expect("made an object above")
}

/// A string field of `metadata`; empty when absent.
pub fn meta_str<'a>(obj: &'a Value, key: &str) -> &'a str {
    meta(obj)
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// Sets (or, with `None`, removes) a field of `metadata`.
pub fn set_meta(obj: &mut Value, key: &str, value: Option<Value>) {
    let m = meta_mut(obj);
    match value {
        Some(v) => {
            m.insert(key.to_owned(), v);
        }
        None => {
            m.remove(key);
        }
    }
}

/// `metadata.name`.
pub fn name(obj: &Value) -> &str {
    meta_str(obj, "name")
}

/// `metadata.namespace`.
pub fn namespace(obj: &Value) -> &str {
    meta_str(obj, "namespace")
}

/// `metadata.resourceVersion`.
pub fn resource_version(obj: &Value) -> &str {
    meta_str(obj, "resourceVersion")
}

/// `metadata.labels` as pairs.
pub fn labels(obj: &Value) -> Vec<(&str, &str)> {
    meta(obj)
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .map(|l| {
            l.iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.as_str(), v)))
                .collect()
        })
        .unwrap_or_default()
}

/// `metadata.finalizers`.
pub fn finalizers(obj: &Value) -> Vec<String> {
    meta(obj)
        .and_then(|m| m.get("finalizers"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `metadata.finalizers` holds `finalizer`.
pub fn has_finalizer(obj: &Value, finalizer: &str) -> bool {
    finalizers(obj).iter().any(|f| f == finalizer)
}

/// Appends `finalizer` to `metadata.finalizers` unless it is there (a field that is not a list
/// becomes one); whether it added it. An `obj` that is not a JSON object is left alone.
pub fn add_finalizer(obj: &mut Value, finalizer: &str) -> bool {
    let mut list = finalizers(obj);
    if !obj.is_object() || list.iter().any(|f| f == finalizer) {
        return false;
    }
    list.push(finalizer.to_owned());
    set_meta(obj, "finalizers", Some(serde_json::json!(list)));
    true
}

/// Removes `finalizer` from `metadata.finalizers` (an empty list stays, as upstream's
/// controllers leave it); whether it was there.
pub fn remove_finalizer(obj: &mut Value, finalizer: &str) -> bool {
    let before = finalizers(obj);
    let kept: Vec<&String> = before.iter().filter(|f| *f != finalizer).collect();
    let removed = kept.len() != before.len();
    set_meta(obj, "finalizers", Some(serde_json::json!(kept)));
    removed
}

/// A top-level string field such as `apiVersion` or `kind`.
pub fn top_str<'a>(obj: &'a Value, key: &str) -> &'a str {
    obj.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Follows a path of object keys.
pub fn nested<'a>(obj: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(obj, |v, k| v.get(*k))
}

/// Now, as Kubernetes writes timestamps (RFC 3339, seconds, `Z`).
pub fn now_rfc3339() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A random version-4 UUID.
pub fn new_uid() -> String {
    use ring::rand::SecureRandom;
    let mut b = [0u8; 16];
    // A failing system RNG leaves zeros; uids stay unique through the revision-based names.
    let _ = ring::rand::SystemRandom::new().fill(&mut b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// `n` random lower-case alphanumerics (no vowels, as Kubernetes' generateName suffix).
pub fn random_suffix(n: usize) -> String {
    use ring::rand::SecureRandom;
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut b = vec![0u8; n];
    let _ = ring::rand::SystemRandom::new().fill(&mut b);
    b.iter()
        .map(|x| ALPHABET[*x as usize % ALPHABET.len()] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_uid_has_uuid_v4_shape() {
        let u = new_uid();
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
    }

    #[test]
    fn meta_mut_creates_metadata() {
        let mut v = serde_json::json!({"kind": "X"});
        meta_mut(&mut v).insert("name".into(), "a".into());
        assert_eq!(name(&v), "a");
    }

    #[test]
    fn adding_a_finalizer_appends_it_once() {
        let mut v = serde_json::json!({"metadata": {"finalizers": ["a"]}});
        assert!(add_finalizer(&mut v, "b"));
        assert!(!add_finalizer(&mut v, "b"));
        assert_eq!(v["metadata"]["finalizers"], serde_json::json!(["a", "b"]));
        assert!(has_finalizer(&v, "b"));
    }

    #[test]
    fn adding_a_finalizer_creates_metadata_and_the_list() {
        let mut v = serde_json::json!({"kind": "X"});
        assert!(add_finalizer(&mut v, "f"));
        assert_eq!(v["metadata"]["finalizers"], serde_json::json!(["f"]));
    }

    #[test]
    fn removing_the_finalizer_keeps_the_others() {
        let mut v = serde_json::json!({"metadata": {"finalizers": ["a", "f", "b"]}});
        assert!(remove_finalizer(&mut v, "f"));
        assert_eq!(v["metadata"]["finalizers"], serde_json::json!(["a", "b"]));
        assert!(!remove_finalizer(&mut v, "f"));
    }
}
