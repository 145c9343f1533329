//! Loading the golden kube-apiserver responses in `testdata/golden/` at the repository root.
#![allow(dead_code)]

use std::path::Path;

/// The bytes of a golden file.
pub fn golden_bytes(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/golden")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A golden JSON file as a value.
pub fn golden_json(name: &str) -> serde_json::Value {
    serde_json::from_slice(&golden_bytes(name)).unwrap()
}

/// The object message inside a golden protobuf body (the `raw` of the Unknown envelope).
pub fn golden_raw(name: &str) -> Vec<u8> {
    let body = golden_bytes(name);
    assert_eq!(&body[..4], b"k8s\0", "{name} lacks the protobuf magic");
    kapi_machinery::serializer::protobuf::read_unknown_message(&body[4..])
        .unwrap()
        .raw
}
