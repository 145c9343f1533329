//! The field labels of the built-in kinds beyond `metadata.name` and `metadata.namespace`:
//! what `fieldSelector` may name per kind, as each kind's `GetAttrs` and its v1 field-label
//! conversion in kube-apiserver allow (any other label is a 400 `field label not
//! supported`). A label whose field is absent reads Go's zero value.

/// A field label and the path of object keys it reads.
pub type FieldPath = (&'static str, Vec<&'static str>);

/// The field labels of a built-in resource, with the zero values of the non-string ones.
pub fn field_labels(
    group: &str,
    plural: &str,
) -> (Vec<FieldPath>, Vec<(&'static str, &'static str)>) {
    match (group, plural) {
        ("", "pods") => (
            vec![
                ("spec.nodeName", vec!["spec", "nodeName"]),
                ("spec.restartPolicy", vec!["spec", "restartPolicy"]),
                ("spec.schedulerName", vec!["spec", "schedulerName"]),
                (
                    "spec.serviceAccountName",
                    vec!["spec", "serviceAccountName"],
                ),
                ("spec.hostNetwork", vec!["spec", "hostNetwork"]),
                ("status.phase", vec!["status", "phase"]),
                ("status.podIP", vec!["status", "podIP"]),
                (
                    "status.nominatedNodeName",
                    vec!["status", "nominatedNodeName"],
                ),
            ],
            vec![("spec.hostNetwork", "false")],
        ),
        ("", "nodes") => (
            vec![("spec.unschedulable", vec!["spec", "unschedulable"])],
            vec![("spec.unschedulable", "false")],
        ),
        ("", "replicationcontrollers") | ("apps", "replicasets") => (
            vec![("status.replicas", vec!["status", "replicas"])],
            vec![("status.replicas", "0")],
        ),
        ("batch", "jobs") => (
            vec![("status.successful", vec!["status", "succeeded"])],
            vec![("status.successful", "0")],
        ),
        ("", "secrets") => (vec![("type", vec!["type"])], Vec::new()),
        ("", "events") => (event_fields(), Vec::new()),
        ("certificates.k8s.io", "certificatesigningrequests") => (
            vec![("spec.signerName", vec!["spec", "signerName"])],
            Vec::new(),
        ),
        _ => (Vec::new(), Vec::new()),
    }
}

/// Core Events' labels (`pkg/registry/core/event` `ToSelectableFields`).
fn event_fields() -> Vec<FieldPath> {
    vec![
        ("involvedObject.kind", vec!["involvedObject", "kind"]),
        (
            "involvedObject.namespace",
            vec!["involvedObject", "namespace"],
        ),
        ("involvedObject.name", vec!["involvedObject", "name"]),
        ("involvedObject.uid", vec!["involvedObject", "uid"]),
        (
            "involvedObject.apiVersion",
            vec!["involvedObject", "apiVersion"],
        ),
        (
            "involvedObject.resourceVersion",
            vec!["involvedObject", "resourceVersion"],
        ),
        (
            "involvedObject.fieldPath",
            vec!["involvedObject", "fieldPath"],
        ),
        ("reason", vec!["reason"]),
        ("reportingComponent", vec!["reportingComponent"]),
        ("source", vec!["source", "component"]),
        ("type", vec!["type"]),
    ]
}
