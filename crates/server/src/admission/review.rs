//! The `AdmissionRequest` of a write as JSON: what a webhook's AdmissionReview carries and
//! what admission CEL reads as `request`.

use crate::authn::User;
use kapi_registry::rest::admission::{AdmissionRequest, Operation};
use serde_json::{Value, json};

/// The group, version and resource (or kind) a webhook or policy sees the write as: the
/// request's own, or an equivalent version it registered for (`matchPolicy: Equivalent`).
#[derive(Debug, Clone)]
pub struct SeenAs {
    /// API group.
    pub group: String,
    /// Version.
    pub version: String,
    /// Resource (plural).
    pub resource: String,
    /// Kind.
    pub kind: String,
}

/// The group and version of the request's kind: a view subresource's own (a `scale`
/// write's kind is autoscaling/v1 Scale, whatever the resource's group), else the
/// resource's.
pub fn kind_group_version<'a>(
    r: &AdmissionRequest<'a>,
    group: &'a str,
    version: &'a str,
) -> (&'a str, &'a str) {
    if r.subresource == Some("scale") && r.kind == "Scale" {
        ("autoscaling", "v1")
    } else {
        (group, version)
    }
}

impl SeenAs {
    /// The write as the request made it.
    pub fn requested(r: &AdmissionRequest<'_>) -> Self {
        Self {
            group: r.group.to_owned(),
            version: r.version.to_owned(),
            resource: r.resource.to_owned(),
            kind: r.kind.to_owned(),
        }
    }
}

/// The `request` of an AdmissionReview (`uid` given), with `object` and `oldObject`.
pub fn request_json(
    uid: &str,
    r: &AdmissionRequest<'_>,
    seen: &SeenAs,
    user: Option<&User>,
    obj: Option<&Value>,
    old: Option<&Value>,
) -> Value {
    let (kg, kv) = kind_group_version(r, &seen.group, &seen.version);
    let kind = json!({"group": kg, "version": kv, "kind": seen.kind});
    let resource = json!({"group": seen.group, "version": seen.version, "resource": seen.resource});
    let (rkg, rkv) = kind_group_version(r, r.group, r.version);
    let request_kind = json!({"group": rkg, "version": rkv, "kind": r.kind});
    let request_resource = json!({"group": r.group, "version": r.version, "resource": r.resource});
    let options_kind = match r.operation {
        Operation::Create => "CreateOptions",
        Operation::Update => "UpdateOptions",
        Operation::Delete => "DeleteOptions",
    };
    let mut request = json!({
        "uid": uid,
        "kind": kind,
        "resource": resource,
        "requestKind": request_kind,
        "requestResource": request_resource,
        "name": r.name,
        "operation": r.operation.as_str(),
        "userInfo": user.map_or_else(|| json!({}), User::info_json),
        "object": obj.cloned().unwrap_or(Value::Null),
        "oldObject": old.cloned().unwrap_or(Value::Null),
        "dryRun": r.dry_run,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": options_kind},
    });
    if let Some(ns) = r.namespace {
        request["namespace"] = json!(ns);
    }
    if let Some(sub) = r.subresource {
        request["subResource"] = json!(sub);
        request["requestSubResource"] = json!(sub);
    }
    request
}

/// The CEL variables of admission (`object`, `oldObject`, `request`, and
/// `namespaceObject` when given): a DELETE has no `object`, a CREATE no `oldObject`.
pub fn cel_variables(
    request: &Value,
    namespace: Option<&Value>,
) -> kapi_apiextensions::cel::Variables {
    let mut vars = kapi_apiextensions::cel::Variables::new();
    vars.set("object", &request["object"]);
    vars.set("oldObject", &request["oldObject"]);
    let mut req = request.clone();
    if let Some(m) = req.as_object_mut() {
        m.remove("object");
        m.remove("oldObject");
    }
    vars.set("request", &req);
    vars.set("namespaceObject", namespace.unwrap_or(&Value::Null));
    vars
}
