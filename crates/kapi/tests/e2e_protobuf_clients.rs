//! The built-in workload, networking and RBAC kinds as a client-go client configured for
//! protobuf (`ContentType: application/vnd.kubernetes.protobuf`) writes and watches them
//! (issue 13): bodies in the `k8s\0` envelope both ways, the objects kube-apiserver 1.36.2
//! stored (`testdata/golden/*.pb`) sent back as a user's manifest and answered with the
//! same protobuf bytes once server-set values are masked, and a protobuf watch that replays
//! ADDED, MODIFIED and DELETED with the kind's messages.

mod e2e_support;

use e2e_support::Kapi;
use kapi_machinery::runtime::{Object, Scheme};
use kapi_machinery::schema::{GroupVersion, GroupVersionKind};
use kapi_machinery::serializer::protobuf::{read_unknown_message, write_unknown_message};
use kapi_testsupport::golden::golden_path;
use prost::Message;
use serde_json::{Value, json};

const PB: &str = "application/vnd.kubernetes.protobuf";

/// A golden kind: its file stem, group version, kind and collection path in `golden`.
struct Golden {
    stem: &'static str,
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    collection: &'static str,
}

const DEPLOYMENT: Golden = Golden {
    stem: "deployment",
    group: "apps",
    version: "v1",
    kind: "Deployment",
    collection: "/apis/apps/v1/namespaces/golden/deployments",
};
const POD: Golden = Golden {
    stem: "pod",
    group: "",
    version: "v1",
    kind: "Pod",
    collection: "/api/v1/namespaces/golden/pods",
};
const SERVICE: Golden = Golden {
    stem: "service",
    group: "",
    version: "v1",
    kind: "Service",
    collection: "/api/v1/namespaces/golden/services",
};
const JOB: Golden = Golden {
    stem: "job",
    group: "batch",
    version: "v1",
    kind: "Job",
    collection: "/apis/batch/v1/namespaces/golden/jobs",
};
const ROLE: Golden = Golden {
    stem: "role",
    group: "rbac.authorization.k8s.io",
    version: "v1",
    kind: "Role",
    collection: "/apis/rbac.authorization.k8s.io/v1/namespaces/golden/roles",
};

impl Golden {
    fn gvk(&self) -> GroupVersionKind {
        GroupVersion::new(self.group, self.version).with_kind(self.kind)
    }

    fn api_version(&self) -> String {
        self.gvk().group_version().to_string()
    }

    /// The object kube-apiserver stored, decoded from its protobuf golden.
    fn stored(&self, scheme: &Scheme) -> Box<dyn Object> {
        let bytes = std::fs::read(golden_path(&format!("{}.pb", self.stem))).unwrap();
        decode(scheme, &self.gvk(), &bytes)
    }

    /// The golden as a user's manifest: what the server set in metadata, the Job's
    /// generated selector and uid labels, the Service's allocated IPs and all status gone.
    fn manifest(&self, scheme: &Scheme) -> Value {
        let mut v = self.stored(scheme).to_json_value().unwrap();
        let md = v["metadata"].as_object_mut().unwrap();
        for k in [
            "uid",
            "resourceVersion",
            "generation",
            "creationTimestamp",
            "managedFields",
        ] {
            md.remove(k);
        }
        if self.kind == "Job" {
            md.remove("labels");
            let spec = v["spec"].as_object_mut().unwrap();
            spec.remove("selector");
            spec.remove("manualSelector");
            spec["template"]["metadata"]
                .as_object_mut()
                .unwrap()
                .remove("labels");
        }
        if self.kind == "Service" {
            let spec = v["spec"].as_object_mut().unwrap();
            spec.remove("clusterIP");
            spec.remove("clusterIPs");
        }
        if let Some(o) = v.as_object_mut() {
            o.remove("status");
        }
        v
    }
}

/// An object of `gvk` from a protobuf body (`k8s\0` + `runtime.Unknown`).
fn decode(scheme: &Scheme, gvk: &GroupVersionKind, body: &[u8]) -> Box<dyn Object> {
    assert_eq!(&body[..4], b"k8s\0", "the protobuf envelope's magic");
    let unknown = read_unknown_message(&body[4..]).unwrap();
    let mut obj = scheme.new_object(gvk).unwrap();
    obj.decode_protobuf(&unknown.raw).unwrap();
    obj
}

/// `value` as client-go sends it: the kind's message in the `k8s\0` envelope.
fn encode(scheme: &Scheme, g: &Golden, value: &Value) -> Vec<u8> {
    let mut obj = scheme.new_object(&g.gvk()).unwrap();
    obj.decode_json_value(value.clone()).unwrap();
    let mut msg = Vec::new();
    obj.encode_protobuf(&mut msg).unwrap();
    let mut body = b"k8s\0".to_vec();
    write_unknown_message(&g.api_version(), g.kind, &msg, "", "", &mut body);
    body
}

/// The object with what differs per server and per run replaced by fixed words: its uid
/// (wherever it occurs, as in a Job's labels), resourceVersion, timestamps, managedFields,
/// and a Service's allocated IPs.
fn masked(obj: &dyn Object) -> Value {
    let v = obj.to_json_value().unwrap();
    let uid = v["metadata"]["uid"].as_str().unwrap_or_default().to_owned();
    let text = v.to_string().replace(&uid, "UID");
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let md = v["metadata"].as_object_mut().unwrap();
    md.insert("resourceVersion".into(), json!("RV"));
    md.insert("creationTimestamp".into(), json!("2000-01-01T00:00:00Z"));
    md.remove("managedFields");
    if let Some(spec) = v.get_mut("spec").and_then(Value::as_object_mut)
        && spec.contains_key("clusterIP")
    {
        spec.insert("clusterIP".into(), json!("IP"));
        spec.insert("clusterIPs".into(), json!(["IP"]));
    }
    v
}

/// The protobuf bytes of a masked object: what is compared with the golden's.
fn masked_protobuf(scheme: &Scheme, gvk: &GroupVersionKind, obj: &dyn Object) -> Vec<u8> {
    let mut again = scheme.new_object(gvk).unwrap();
    again.decode_json_value(masked(obj)).unwrap();
    let mut out = Vec::new();
    again.encode_protobuf(&mut out).unwrap();
    out
}

fn request(method: &str, path: &str, content_type: &str, body: Vec<u8>) -> http::Request<Vec<u8>> {
    http::Request::builder()
        .method(method)
        .uri(path)
        .header("accept", PB)
        .header("content-type", content_type)
        .body(body)
        .unwrap()
}

async fn kapi_with_golden_namespace() -> Kapi {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "namespace", "golden"]);
    kapi
}

/// POSTs the golden as a manifest in protobuf; the created object, decoded from the
/// protobuf answer.
async fn create(kapi: &Kapi, scheme: &Scheme, g: &Golden) -> Box<dyn Object> {
    let body = encode(scheme, g, &g.manifest(scheme));
    let (status, headers, resp) = kapi.raw(request("POST", g.collection, PB, body)).await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&resp));
    assert_eq!(headers["content-type"], PB);
    decode(scheme, &g.gvk(), &resp)
}

/// The created object's protobuf bytes, masked, are the golden's (kube-apiserver's
/// defaults, field order, empty structs) — the test of one kind.
async fn created_equals_golden(g: &Golden) {
    let scheme = kapi_api::new_scheme().unwrap();
    let kapi = kapi_with_golden_namespace().await;
    let created = create(&kapi, &scheme, g).await;
    let mut golden = g.stored(&scheme);
    if g.kind == "Pod" {
        // The golden Pod's status is kube-apiserver's and its clock's (no scheduler ran):
        // the objects are compared without it.
        golden = strip_status(&scheme, g, golden.as_ref());
    }
    let created = if g.kind == "Pod" {
        strip_status(&scheme, g, created.as_ref())
    } else {
        created
    };
    let want = masked_protobuf(&scheme, &g.gvk(), golden.as_ref());
    let got = masked_protobuf(&scheme, &g.gvk(), created.as_ref());
    assert_eq!(
        got,
        want,
        "{}: the created object differs from kube-apiserver's:\n got {}\nwant {}",
        g.kind,
        masked(created.as_ref()),
        masked(golden.as_ref())
    );
}

fn strip_status(scheme: &Scheme, g: &Golden, obj: &dyn Object) -> Box<dyn Object> {
    let mut v = obj.to_json_value().unwrap();
    v.as_object_mut().unwrap().remove("status");
    let mut out = scheme.new_object(&g.gvk()).unwrap();
    out.decode_json_value(v).unwrap();
    out
}

#[tokio::test]
async fn a_deployment_created_in_protobuf_is_kube_apiservers_deployment() {
    created_equals_golden(&DEPLOYMENT).await;
}

#[tokio::test]
async fn a_pod_created_in_protobuf_is_kube_apiservers_pod() {
    created_equals_golden(&POD).await;
}

#[tokio::test]
async fn a_service_created_in_protobuf_is_kube_apiservers_service() {
    created_equals_golden(&SERVICE).await;
}

#[tokio::test]
async fn a_job_created_in_protobuf_is_kube_apiservers_job() {
    created_equals_golden(&JOB).await;
}

#[tokio::test]
async fn a_role_created_in_protobuf_is_kube_apiservers_role() {
    created_equals_golden(&ROLE).await;
}

/// A protobuf PUT of the read object with one more label: 200, the label stored, the
/// Deployment's generation unchanged (metadata only) and its resourceVersion new.
#[tokio::test]
async fn a_protobuf_update_of_a_deployment_changes_it_and_keeps_its_generation() {
    let scheme = kapi_api::new_scheme().unwrap();
    let kapi = kapi_with_golden_namespace().await;
    let created = create(&kapi, &scheme, &DEPLOYMENT).await;
    let mut v = created.to_json_value().unwrap();
    v["metadata"]["labels"]["tier"] = json!("front");
    let path = format!("{}/web", DEPLOYMENT.collection);
    let (status, _, resp) = kapi
        .raw(request("PUT", &path, PB, encode(&scheme, &DEPLOYMENT, &v)))
        .await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&resp));
    let updated = decode(&scheme, &DEPLOYMENT.gvk(), &resp);
    let md = updated.object_meta().unwrap();
    assert_eq!(md.labels.get("tier").map(String::as_str), Some("front"));
    assert_eq!(md.generation, 1);
    assert_ne!(
        md.resource_version,
        created.object_meta().unwrap().resource_version
    );
}

/// A protobuf PUT with a stale resourceVersion is a 409 Conflict (in protobuf, as the
/// client asked) and the stored object keeps its labels.
#[tokio::test]
async fn a_stale_protobuf_update_is_a_conflict_and_changes_nothing() {
    let scheme = kapi_api::new_scheme().unwrap();
    let kapi = kapi_with_golden_namespace().await;
    let created = create(&kapi, &scheme, &DEPLOYMENT).await;
    let path = format!("{}/web", DEPLOYMENT.collection);
    let mut v = created.to_json_value().unwrap();
    v["metadata"]["labels"]["tier"] = json!("front");
    let first = kapi
        .raw(request("PUT", &path, PB, encode(&scheme, &DEPLOYMENT, &v)))
        .await;
    assert_eq!(first.0, 200);
    v["metadata"]["labels"]["tier"] = json!("back");
    let (status, headers, resp) = kapi
        .raw(request("PUT", &path, PB, encode(&scheme, &DEPLOYMENT, &v)))
        .await;
    assert_eq!(status, 409);
    assert_eq!(headers["content-type"], PB);
    let status_obj = decode(
        &scheme,
        &GroupVersion::new("", "v1").with_kind("Status"),
        &resp,
    )
    .to_json_value()
    .unwrap();
    assert_eq!(status_obj["reason"], "Conflict");
    let (_, _, now) = kapi.raw(request("GET", &path, PB, Vec::new())).await;
    let now = decode(&scheme, &DEPLOYMENT.gvk(), &now);
    assert_eq!(
        now.object_meta()
            .unwrap()
            .labels
            .get("tier")
            .map(String::as_str),
        Some("front")
    );
}

/// (type, object) of each frame of a protobuf watch body: 4-byte big-endian lengths, each
/// a `WatchEvent` whose object is the kind in the `k8s\0` envelope.
fn watch_events(scheme: &Scheme, gvk: &GroupVersionKind, body: &[u8]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut rest = body;
    while rest.len() >= 4 {
        let len = u32::from_be_bytes(rest[..4].try_into().unwrap()) as usize;
        let frame = &rest[4..4 + len];
        rest = &rest[4 + len..];
        let event = kapi_machinery::meta::v1::WatchEvent::decode(frame).unwrap();
        let obj = decode(scheme, gvk, &event.object.raw);
        out.push((event.type_, obj.to_json_value().unwrap()));
    }
    assert!(rest.is_empty(), "a partial frame at the end");
    out
}

/// What an informer of a client-go protobuf client sees: after a list, a watch from its
/// resourceVersion replays the Deployment's create, its update and its deletion (the
/// deletion sent with protobuf DeleteOptions) as protobuf frames of Deployments.
#[tokio::test]
async fn a_protobuf_watch_replays_a_deployments_create_update_and_delete() {
    let scheme = kapi_api::new_scheme().unwrap();
    let kapi = kapi_with_golden_namespace().await;
    let (status, _, list) = kapi
        .raw(request("GET", DEPLOYMENT.collection, PB, Vec::new()))
        .await;
    assert_eq!(status, 200);
    let list_gvk = GroupVersion::new("apps", "v1").with_kind("DeploymentList");
    let list_rv = decode(&scheme, &list_gvk, &list)
        .list_meta()
        .unwrap()
        .resource_version
        .clone();

    let created = create(&kapi, &scheme, &DEPLOYMENT).await;
    let path = format!("{}/web", DEPLOYMENT.collection);
    let mut v = created.to_json_value().unwrap();
    v["spec"]["replicas"] = json!(3);
    let (status, _, _) = kapi
        .raw(request("PUT", &path, PB, encode(&scheme, &DEPLOYMENT, &v)))
        .await;
    assert_eq!(status, 200);
    let options = kapi_machinery::meta::v1::DeleteOptions {
        propagation_policy: Some("Background".into()),
        ..Default::default()
    };
    let mut body = b"k8s\0".to_vec();
    write_unknown_message(
        "v1",
        "DeleteOptions",
        &options.encode_to_vec(),
        "",
        "",
        &mut body,
    );
    let (status, _, resp) = kapi.raw(request("DELETE", &path, PB, body)).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&resp));

    let watch = format!(
        "{}?watch=true&resourceVersion={list_rv}&timeoutSeconds=1",
        DEPLOYMENT.collection
    );
    let (status, headers, body) = kapi.raw(request("GET", &watch, PB, Vec::new())).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], format!("{PB};stream=watch"));
    let events = watch_events(&scheme, &DEPLOYMENT.gvk(), &body);
    let seen: Vec<(&str, i64)> = events
        .iter()
        .map(|(t, o)| (t.as_str(), o["spec"]["replicas"].as_i64().unwrap_or(-1)))
        .collect();
    assert_eq!(
        seen,
        [("ADDED", 2), ("MODIFIED", 3), ("DELETED", 3)],
        "{events:?}"
    );
    for (_, o) in &events {
        assert_eq!(o["metadata"]["name"], "web");
        assert_eq!(
            o["spec"]["template"]["spec"]["containers"][0]["image"],
            "nginx:1.27"
        );
    }
}

/// kube-apiserver negotiates an error like any object (`ErrorNegotiated`): a client that
/// accepts protobuf reads a 404 as a protobuf `Status`, one that accepts YAML reads YAML.
#[tokio::test]
async fn errors_are_answered_in_the_accepted_representation() {
    let scheme = kapi_api::new_scheme().unwrap();
    let kapi = kapi_with_golden_namespace().await;
    let path = format!("{}/missing", DEPLOYMENT.collection);
    let (status, headers, body) = kapi.raw(request("GET", &path, PB, Vec::new())).await;
    assert_eq!(status, 404);
    assert_eq!(headers["content-type"], PB);
    let status_obj = decode(
        &scheme,
        &GroupVersion::new("", "v1").with_kind("Status"),
        &body,
    )
    .to_json_value()
    .unwrap();
    assert_eq!(status_obj["reason"], "NotFound");
    assert_eq!(status_obj["code"], 404);
    assert_eq!(
        status_obj["message"],
        "deployments.apps \"missing\" not found"
    );

    let yaml = http::Request::get(&path)
        .header("accept", "application/yaml")
        .body(Vec::new())
        .unwrap();
    let (status, headers, body) = kapi.raw(yaml).await;
    assert_eq!(status, 404);
    assert_eq!(headers["content-type"], "application/yaml");
    let text = String::from_utf8(body).unwrap();
    assert!(text.contains("reason: NotFound"), "{text}");
}

/// A `Table` request's error cannot be a Table: it is JSON, as kube writes errors whose
/// `Accept` names only transforms.
#[tokio::test]
async fn an_error_of_a_table_request_is_json() {
    let kapi = kapi_with_golden_namespace().await;
    let path = format!("{}/missing", DEPLOYMENT.collection);
    let req = http::Request::get(&path)
        .header("accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
        .body(Vec::new())
        .unwrap();
    let (status, headers, _) = kapi.raw(req).await;
    assert_eq!(status, 404);
    assert_eq!(headers["content-type"], "application/json");
}
