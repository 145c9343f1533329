//! The generated workload kinds against kube-apiserver 1.36.2's own responses (Pod,
//! Service, Deployment, Job, Role as it stored and served them, defaults applied):
//! protobuf re-encodes byte for byte, and JSON encodes to the very bytes it sent.

mod support;

use kapi_machinery::runtime::Scheme;
use kapi_machinery::schema::GroupVersion;
use support::{golden_bytes, golden_raw};

const CASES: &[(&str, &str, &str, &str)] = &[
    ("pod", "", "v1", "Pod"),
    ("service", "", "v1", "Service"),
    ("deployment", "apps", "v1", "Deployment"),
    ("job", "batch", "v1", "Job"),
    ("role", "rbac.authorization.k8s.io", "v1", "Role"),
];

fn check(name: &str, group: &str, version: &str, kind: &str) {
    let scheme: Scheme = kapi_api::new_scheme().unwrap();
    let gvk = GroupVersion::new(group, version).with_kind(kind);
    let raw = golden_raw(&format!("{name}.pb"));
    let mut obj = scheme.new_object(&gvk).unwrap();
    obj.decode_protobuf(&raw).unwrap();
    let mut pb = Vec::new();
    obj.encode_protobuf(&mut pb).unwrap();
    assert_eq!(pb, raw, "{name}.pb: re-encoded bytes differ");

    obj.set_group_version_kind(&gvk);
    let mut json = Vec::new();
    obj.encode_json(&mut json, false).unwrap();
    let want = golden_bytes(&format!("{name}.json"));
    let want = want.strip_suffix(b"\n").unwrap_or(&want);
    assert_eq!(
        String::from_utf8_lossy(&json),
        String::from_utf8_lossy(want),
        "{name}.json: the protobuf object encodes to other JSON bytes"
    );
}

#[test]
fn pod_golden_matches_in_both_forms() {
    let (n, g, v, k) = CASES[0];
    check(n, g, v, k);
}

#[test]
fn service_golden_matches_in_both_forms() {
    let (n, g, v, k) = CASES[1];
    check(n, g, v, k);
}

#[test]
fn deployment_golden_matches_in_both_forms() {
    let (n, g, v, k) = CASES[2];
    check(n, g, v, k);
}

#[test]
fn job_golden_matches_in_both_forms() {
    let (n, g, v, k) = CASES[3];
    check(n, g, v, k);
}

#[test]
fn role_golden_matches_in_both_forms() {
    let (n, g, v, k) = CASES[4];
    check(n, g, v, k);
}
