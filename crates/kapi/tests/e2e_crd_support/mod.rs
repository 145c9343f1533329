//! Helpers of the custom-resource end-to-end tests: the Widget CRD (v1alpha1 storage with
//! `spec.label`, v1beta1 with `spec.displayName`), files, raw requests, polling.
#![allow(dead_code)]

use crate::e2e_support::{Kapi, json};
use std::io::Write;
use std::time::Duration;

pub const CRD: &str = "widgets.example.com";
pub const V1A1: &str = "/apis/example.com/v1alpha1/namespaces/default/widgets";
pub const V1B1: &str = "/apis/example.com/v1beta1/namespaces/default/widgets";

/// The Widget CRD; `storage` names the storage version, `alpha_served` whether v1alpha1 is
/// served, `with_alpha` whether v1alpha1 is listed at all.
pub fn widget_crd(storage: &str, alpha_served: bool, with_alpha: bool) -> String {
    let alpha = format!(
        r#"{{"name":"v1alpha1","served":{alpha_served},"storage":{},
  "subresources":{{"status":{{}},"scale":{{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}}}},
  "additionalPrinterColumns":[{{"name":"Label","type":"string","jsonPath":".spec.label"}},
                               {{"name":"Replicas","type":"integer","jsonPath":".spec.replicas"}}],
  "schema":{{"openAPIV3Schema":{{"type":"object","properties":{{
    "spec":{{"type":"object",
      "x-kubernetes-validations":[{{"rule":"self.replicas <= 10","message":"replicas must be at most 10"}}],
      "properties":{{"label":{{"type":"string","maxLength":10}},"replicas":{{"type":"integer","minimum":0,"default":1}}}}}},
    "status":{{"type":"object","properties":{{"ready":{{"type":"boolean"}},"replicas":{{"type":"integer"}}}}}}}}}}}}}},"#,
        storage == "v1alpha1"
    );
    format!(
        r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{{"name":"{CRD}"}},
"spec":{{"group":"example.com","scope":"Namespaced",
 "names":{{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList","shortNames":["wd"],"categories":["all"]}},
 "versions":[{}
  {{"name":"v1beta1","served":true,"storage":{},
   "subresources":{{"status":{{}}}},
   "schema":{{"openAPIV3Schema":{{"type":"object","properties":{{
     "spec":{{"type":"object","properties":{{"displayName":{{"type":"string"}},"replicas":{{"type":"integer"}}}}}},
     "status":{{"type":"object","properties":{{"ready":{{"type":"boolean"}}}}}}}}}}}}}}]}}}}"#,
        if with_alpha { alpha } else { String::new() },
        storage == "v1beta1"
    )
}

/// Writes `text` to a file in the data dir and returns its path.
pub fn file(kapi: &Kapi, name: &str, text: &str) -> String {
    let path = kapi.dir.path().join(name);
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
    path.display().to_string()
}

/// Applies the CRD and waits until it is Established. kubectl 1.32's `wait` fails at once
/// (`.status.conditions accessor error`) when it reads the CRD before the CRD controller
/// wrote any condition, so that case is asked again.
pub fn apply_crd(kapi: &Kapi, text: &str) {
    let path = file(kapi, "crd.json", text);
    kapi.kubectl_ok(&["apply", "-f", &path]);
    let crd = format!("crd/{CRD}");
    let args = ["wait", "--for=condition=Established", &crd, "--timeout=20s"];
    for _ in 0..50 {
        let out = kapi.kubectl(&args);
        if out.status.success() {
            return;
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("accessor error"), "kubectl wait failed: {err}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{crd} never had conditions");
}

pub async fn widget_kapi() -> Kapi {
    let kapi = Kapi::start().await;
    apply_crd(&kapi, &widget_crd("v1alpha1", true, true));
    kapi
}

pub fn get(path: &str) -> http::Request<Vec<u8>> {
    http::Request::get(path)
        .header("accept", "application/json")
        .body(Vec::new())
        .unwrap()
}

pub fn send(method: &str, path: &str, content_type: &str, body: &str) -> http::Request<Vec<u8>> {
    http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", content_type)
        .header("accept", "application/json")
        .body(body.as_bytes().to_vec())
        .unwrap()
}

/// GETs `path` until it answers `status` (the registry follows the CRD watch).
pub async fn wait_status(kapi: &Kapi, path: &str, status: u16) -> (u16, Vec<u8>) {
    let mut last = (0, Vec::new());
    for _ in 0..100 {
        let (s, _, body) = kapi.raw(get(path)).await;
        if s == status {
            return (s, body);
        }
        last = (s, body);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "{path}: wanted {status}, last {} {}",
        last.0,
        String::from_utf8_lossy(&last.1)
    );
}

pub fn crd_json(kapi: &Kapi) -> serde_json::Value {
    json(
        kapi.kubectl_ok(&["get", "crd", CRD, "-o", "json"])
            .as_bytes(),
    )
}

pub async fn stored_widgets(kapi: &Kapi) -> usize {
    let (s, _, body) = kapi.raw(get(V1B1)).await;
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&body));
    json(&body)["items"].as_array().unwrap().len()
}
