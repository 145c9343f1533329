//! Every built-in kind against upstream's own fixtures (k8s.io/api `testdata/HEAD` at
//! v0.36.2, every field set): the protobuf bytes decode and encode again byte for byte,
//! the JSON decodes strictly (no unknown field) and encodes again to the same document,
//! and both forms decode to the same object.

use kapi_machinery::runtime::{Object, Scheme};
use kapi_machinery::schema::{GroupVersion, GroupVersionKind};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testdata/head-1.36.2")
}

/// `apps.v1.Deployment` → apps/v1 Deployment; `core.v1.Pod` → v1 Pod.
fn gvk_of(stem: &str) -> GroupVersionKind {
    let mut parts: Vec<&str> = stem.split('.').collect();
    let kind = parts.pop().unwrap_or_default();
    let version = parts.pop().unwrap_or_default();
    let group = parts.join(".");
    let group = if group == "core" {
        String::new()
    } else {
        group
    };
    GroupVersion::new(&group, version).with_kind(kind)
}

fn scheme() -> Scheme {
    kapi_api::new_scheme().unwrap()
}

/// The fixtures of kinds the scheme registers (the option kinds such as PodLogOptions
/// are not kinds of a resource and are left out), with their GVKs.
fn kinds(scheme: &Scheme) -> Vec<(String, GroupVersionKind)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".json") else {
            continue;
        };
        let gvk = gvk_of(stem);
        let typed = scheme
            .new_object(&gvk)
            .map(|o| o.object_meta().is_some() || o.list_meta().is_some())
            .unwrap_or(false);
        if typed {
            out.push((stem.to_owned(), gvk));
        }
    }
    out.sort();
    out
}

fn decode_pb(scheme: &Scheme, gvk: &GroupVersionKind, body: &[u8]) -> Box<dyn Object> {
    assert_eq!(&body[..4], b"k8s\0");
    let unknown = kapi_machinery::serializer::protobuf::read_unknown_message(&body[4..]).unwrap();
    let mut obj = scheme.new_object(gvk).unwrap();
    obj.decode_protobuf(&unknown.raw).unwrap();
    obj
}

#[test]
fn every_served_kind_has_an_upstream_fixture() {
    let scheme = scheme();
    let found = kinds(&scheme);
    // 86 fixtures of the served group versions; 17 are option and meta kinds
    // (PodLogOptions, DeleteOptions, Status, WatchEvent, …) that are no resource's kind.
    assert_eq!(found.len(), 69, "{found:?}");
    for kind in [
        "Pod",
        "Deployment",
        "Role",
        "EndpointSlice",
        "FlowSchema",
        "ResourceClaim",
    ] {
        assert!(
            found.iter().any(|(_, g)| g.kind == kind),
            "{kind} has no fixture"
        );
    }
}

#[test]
fn a_pod_fixture_decodes_every_nested_form() {
    let scheme = scheme();
    let gvk = gvk_of("core.v1.Pod");
    let body = std::fs::read(fixtures().join("core.v1.Pod.pb")).unwrap();
    let pod = decode_pb(&scheme, &gvk, &body);
    let pod = pod.downcast_ref::<kapi_api::core::v1::Pod>().unwrap();
    let volume = &pod.spec.volumes[0];
    // VolumeSource is inline: JSON flattens it, protobuf nests it as field 2.
    assert!(volume.host_path.is_some() && volume.config_map.is_some());
    let container = &pod.spec.containers.as_ref().unwrap()[0];
    assert!(!container.ports.is_empty());
    assert!(!container.resources.limits.is_empty());
}

#[test]
fn protobuf_fixtures_reencode_byte_for_byte() {
    let scheme = scheme();
    let mut failures = Vec::new();
    for (stem, gvk) in kinds(&scheme) {
        let body = std::fs::read(fixtures().join(format!("{stem}.pb"))).unwrap();
        let unknown =
            kapi_machinery::serializer::protobuf::read_unknown_message(&body[4..]).unwrap();
        let obj = decode_pb(&scheme, &gvk, &body);
        let mut out = Vec::new();
        obj.encode_protobuf(&mut out).unwrap();
        if out != unknown.raw {
            failures.push(format!(
                "{stem}: {} bytes vs {}",
                out.len(),
                unknown.raw.len()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "re-encoded bytes differ:\n{}",
        failures.join("\n")
    );
}

#[test]
fn json_fixtures_decode_strictly_and_reencode_to_the_same_document() {
    let scheme = scheme();
    let mut failures = Vec::new();
    for (stem, gvk) in kinds(&scheme) {
        let body = std::fs::read(fixtures().join(format!("{stem}.json"))).unwrap();
        let mut obj = scheme.new_object(&gvk).unwrap();
        let unknown = obj.decode_json(&body, true).unwrap();
        if !unknown.is_empty() {
            failures.push(format!("{stem}: unknown fields {unknown:?}"));
            continue;
        }
        let want: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let got = obj.to_json_value().unwrap();
        if got != want {
            failures.push(format!("{stem}: {}", first_difference(&want, &got, "")));
        }
    }
    assert!(
        failures.is_empty(),
        "JSON differs:\n{}",
        failures.join("\n")
    );
}

#[test]
fn protobuf_and_json_fixtures_are_the_same_object() {
    let scheme = scheme();
    let mut failures = Vec::new();
    for (stem, gvk) in kinds(&scheme) {
        let pb = std::fs::read(fixtures().join(format!("{stem}.pb"))).unwrap();
        let json = std::fs::read(fixtures().join(format!("{stem}.json"))).unwrap();
        let mut from_pb = decode_pb(&scheme, &gvk, &pb).to_json_value().unwrap();
        let mut obj = scheme.new_object(&gvk).unwrap();
        obj.decode_json(&json, false).unwrap();
        let mut from_json = obj.to_json_value().unwrap();
        for v in [&mut from_pb, &mut from_json] {
            if let Some(m) = v.as_object_mut() {
                m.remove("apiVersion");
                m.remove("kind");
            }
        }
        if from_pb != from_json {
            failures.push(format!(
                "{stem}: {}",
                first_difference(&from_json, &from_pb, "")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "forms differ:\n{}",
        failures.join("\n")
    );
}

fn first_difference(want: &serde_json::Value, got: &serde_json::Value, path: &str) -> String {
    use serde_json::Value;
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                match b.get(k) {
                    None => return format!("{path}.{k} missing (want {v})"),
                    Some(w) if w != v => return first_difference(v, w, &format!("{path}.{k}")),
                    _ => {}
                }
            }
            for k in b.keys() {
                if !a.contains_key(k) {
                    return format!("{path}.{k} unexpected ({})", b[k]);
                }
            }
            format!("{path}: ?")
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if x != y {
                    return first_difference(x, y, &format!("{path}[{i}]"));
                }
            }
            format!("{path}: ?")
        }
        _ => format!("{path}: want {want}, got {got}"),
    }
}
