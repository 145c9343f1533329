//! OpenAPI schemas of the built-in kinds, with their fields, types and descriptions, in
//! OpenAPI v3 form (`#/components/schemas/…` references inside `allOf`, as kube-apiserver
//! writes them). `openapi_v2` rewrites them for Swagger 2.0. List fields carry the strategic
//! merge patch extensions (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`)
//! that the Go types declare, the same lists `handlers::strategic` merges, so that
//! client-side `kubectl apply` computes its patches from the server's schema.

use crate::openapi_schemas_hpa as hpa;
use serde_json::{Map, Value, json};

/// Prefix of a schema reference in a v3 document.
pub const REF_PREFIX: &str = "#/components/schemas/";

/// `meta/v1` model name prefix.
pub(crate) const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.";

/// A scalar of `type` with a description.
pub(crate) fn scalar(ty: &str, description: &str) -> Value {
    json!({"type": ty, "description": description})
}

/// A string field.
pub(crate) fn string(description: &str) -> Value {
    scalar("string", description)
}

/// A boolean field.
pub(crate) fn boolean(description: &str) -> Value {
    scalar("boolean", description)
}

/// An integer field of format `int32` or `int64`.
pub(crate) fn integer(format: &str, description: &str) -> Value {
    json!({"type": "integer", "format": format, "description": description})
}

/// A reference to another model, with the field's own description.
pub(crate) fn reference(model: &str, description: &str) -> Value {
    json!({"allOf": [{"$ref": format!("{REF_PREFIX}{model}")}], "description": description})
}

/// A `meta/v1` Time (RFC 3339 string).
pub(crate) fn time(description: &str) -> Value {
    reference(&format!("{META}Time"), description)
}

/// A map of strings.
pub(crate) fn string_map(description: &str) -> Value {
    json!({"type": "object", "additionalProperties": {"type": "string", "default": ""}, "description": description})
}

/// An array of `items`.
pub(crate) fn array(items: Value, description: &str) -> Value {
    json!({"type": "array", "items": items, "description": description})
}

/// An array of referenced models.
pub(crate) fn array_of(model: &str, description: &str) -> Value {
    array(
        json!({"allOf": [{"$ref": format!("{REF_PREFIX}{model}")}], "default": {}}),
        description,
    )
}

/// Marks a list field as merged by strategic merge patch (by `key` for lists of objects).
pub(crate) fn merged(mut field: Value, key: Option<&str>) -> Value {
    field["x-kubernetes-patch-strategy"] = json!("merge");
    if let Some(key) = key {
        field["x-kubernetes-patch-merge-key"] = json!(key);
        field["x-kubernetes-list-type"] = json!("map");
        field["x-kubernetes-list-map-keys"] = json!([key]);
    }
    field
}

/// An object model with properties (in the given order, kept sorted by the map).
pub(crate) fn object(description: &str, properties: Vec<(&str, Value)>) -> Value {
    let props: Map<String, Value> = properties
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    json!({"type": "object", "description": description, "properties": props})
}

/// A top-level kind: `apiVersion`, `kind`, `metadata` and the given fields, with its GVK.
pub(crate) fn kind(
    (group, version, kind): (&str, &str, &str),
    description: &str,
    mut properties: Vec<(&str, Value)>,
) -> Value {
    properties.push(("apiVersion", string("APIVersion defines the versioned schema of this representation of an object. Servers convert recognized schemas to the latest internal value.")));
    properties.push(("kind", string("Kind is the REST resource this object represents, in CamelCase. Servers infer it from the endpoint the client submits requests to.")));
    properties.push((
        "metadata",
        reference(&format!("{META}ObjectMeta"), "Standard object's metadata."),
    ));
    let mut schema = object(description, properties);
    schema["x-kubernetes-group-version-kind"] =
        json!([{"group": group, "kind": kind, "version": version}]);
    schema
}

/// The schema of a served built-in kind, `None` for kinds not known here.
pub fn builtin_schema(group: &str, version: &str, kind_name: &str) -> Option<Value> {
    let models = kind_models();
    let (_, schema) = models
        .into_iter()
        .find(|(gvk, _)| *gvk == (group, version, kind_name))?;
    Some(schema)
}

type Gvk = (&'static str, &'static str, &'static str);

fn kind_models() -> Vec<(Gvk, Value)> {
    let mut out = vec![
        (("", "v1", "ConfigMap"), configmap()),
        (("", "v1", "Secret"), secret()),
        (("", "v1", "Namespace"), namespace()),
        (("", "v1", "Event"), event()),
        (("coordination.k8s.io", "v1", "Lease"), lease()),
        (
            ("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
            crd(),
        ),
    ];
    out.extend(hpa::kinds());
    out
}

/// Every model that a built-in kind's schema refers to, by name.
pub fn shared_definitions() -> Map<String, Value> {
    let mut defs = Map::new();
    meta_definitions(&mut defs);
    core_definitions(&mut defs);
    hpa::definitions(&mut defs);
    defs
}

/// Adds to `schemas` every shared model its schemas refer to, transitively; a model present
/// in `schemas` under a shared name is replaced by the full one (e.g. a bare ObjectMeta).
pub fn add_referenced(schemas: &mut Map<String, Value>) {
    let shared = shared_definitions();
    let mut pending: Vec<String> = Vec::new();
    for schema in schemas.values() {
        collect_refs(schema, &mut pending);
    }
    let mut done = std::collections::HashSet::new();
    while let Some(name) = pending.pop() {
        if !done.insert(name.clone()) {
            continue;
        }
        if let Some(def) = shared.get(&name) {
            collect_refs(def, &mut pending);
            schemas.insert(name, def.clone());
        }
    }
}

fn collect_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref")
                && let Some(name) = r.strip_prefix(REF_PREFIX)
            {
                out.push(name.to_owned());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

fn meta_definitions(defs: &mut Map<String, Value>) {
    let m = |name: &str| format!("{META}{name}");
    defs.insert(m("Time"), json!({"type": "string", "format": "date-time", "description": "Time is a timestamp in RFC 3339 form, at second precision."}));
    defs.insert(m("MicroTime"), json!({"type": "string", "format": "date-time", "description": "MicroTime is a timestamp in RFC 3339 form, at microsecond precision."}));
    defs.insert(m("FieldsV1"), json!({"type": "object", "description": "FieldsV1 stores a set of fields as a JSON trie of `f:`, `k:`, `v:` and `i:` keys."}));
    defs.insert(m("ObjectMeta"), object("ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.", vec![
        ("name", string("Name is unique within a namespace. It is required when creating resources, unless generateName is set, and cannot be updated.")),
        ("generateName", string("GenerateName is an optional prefix the server uses to generate a unique name, when name is not set.")),
        ("namespace", string("Namespace defines the space within which each name must be unique. Empty means the default namespace; cluster-scoped objects have none.")),
        ("uid", string("UID is the unique in time and space value for this object, set by the server on create.")),
        ("resourceVersion", string("An opaque value that represents the internal version of this object, used for optimistic concurrency and watches.")),
        ("generation", integer("int64", "A sequence number representing a specific generation of the desired state, set by the system.")),
        ("creationTimestamp", time("The time at which the server created this object.")),
        ("deletionTimestamp", time("The time after which this resource will be deleted, set by the server when a graceful deletion is requested.")),
        ("deletionGracePeriodSeconds", integer("int64", "Seconds allowed for this object to terminate gracefully before it is removed from the system.")),
        ("labels", string_map("Map of string keys and values that can be used to organize and categorize objects; label selectors match them.")),
        ("annotations", string_map("An unstructured key value map of arbitrary metadata, not queryable.")),
        ("ownerReferences", merged(array_of(&m("OwnerReference"), "Objects this object depends on; when all owners are deleted, this object is garbage collected."), Some("uid"))),
        ("finalizers", merged(array(json!({"type": "string", "default": ""}), "Must be empty before the object is deleted from the registry; each entry identifies a component that will remove it."), None)),
        ("managedFields", array_of(&m("ManagedFieldsEntry"), "Maps workflow ids and versions to the set of fields managed by that workflow; maintained by the server.")),
    ]));
    defs.insert(m("OwnerReference"), object("OwnerReference identifies an owning object, in the same namespace as the owned one.", vec![
        ("apiVersion", string("API version of the referent.")),
        ("kind", string("Kind of the referent.")),
        ("name", string("Name of the referent.")),
        ("uid", string("UID of the referent.")),
        ("controller", boolean("If true, this reference points to the managing controller.")),
        ("blockOwnerDeletion", boolean("If true, the owner cannot be deleted from storage until this reference is removed (foreground deletion).")),
    ]));
    defs.insert(m("ManagedFieldsEntry"), object("ManagedFieldsEntry is a workflow id, a set of fields and the API version of the resource when they were set.", vec![
        ("manager", string("Identifier of the workflow managing these fields.")),
        ("operation", string("The operation that created this entry: Apply or Update.")),
        ("apiVersion", string("API version of the fields in fieldsV1.")),
        ("time", time("When these fields were set (for Update), or last applied (for Apply).")),
        ("fieldsType", string("Format of the fields: FieldsV1.")),
        ("fieldsV1", reference(&m("FieldsV1"), "The set of fields managed, in FieldsV1 form.")),
        ("subresource", string("Name of the subresource used to update the object, empty for the main resource.")),
    ]));
    defs.insert(m("LabelSelector"), object("A label query over a set of resources; requirements are ANDed. An empty selector matches everything.", vec![
        ("matchLabels", string_map("Map of {key,value} pairs, each equivalent to an In requirement with a single value.")),
        ("matchExpressions", array_of(&m("LabelSelectorRequirement"), "A list of label selector requirements.")),
    ]));
    defs.insert(m("LabelSelectorRequirement"), object("A selector requirement: a key, an operator and values.", vec![
        ("key", string("The label key the selector applies to.")),
        ("operator", string("The relationship of the key to the values: In, NotIn, Exists or DoesNotExist.")),
        ("values", array(json!({"type": "string", "default": ""}), "Values for In and NotIn; empty for Exists and DoesNotExist.")),
    ]));
    defs.insert("io.k8s.apimachinery.pkg.api.resource.Quantity".into(), json!({"type": "string", "description": "Quantity is a fixed-point number, such as 100m, 1.5Gi or 2e3."}));
}

fn core_definitions(defs: &mut Map<String, Value>) {
    let c = |name: &str| format!("io.k8s.api.core.v1.{name}");
    defs.insert(
        c("NamespaceSpec"),
        object(
            "NamespaceSpec describes the attributes of a Namespace.",
            vec![(
                "finalizers",
                array(
                    json!({"type": "string", "default": ""}),
                    "Values that must be empty before the namespace is removed from storage.",
                ),
            )],
        ),
    );
    defs.insert(
        c("NamespaceStatus"),
        object(
            "NamespaceStatus is the observed state of a Namespace.",
            vec![
                (
                    "phase",
                    string("The current lifecycle phase of the namespace: Active or Terminating."),
                ),
                (
                    "conditions",
                    merged(
                        array_of(
                            &c("NamespaceCondition"),
                            "The latest available observations of the namespace's state.",
                        ),
                        Some("type"),
                    ),
                ),
            ],
        ),
    );
    defs.insert(
        c("NamespaceCondition"),
        object(
            "NamespaceCondition is one observation of a namespace's state.",
            vec![
                ("type", string("Type of namespace controller condition.")),
                (
                    "status",
                    string("Status of the condition: True, False or Unknown."),
                ),
                (
                    "lastTransitionTime",
                    time("Last time the condition changed status."),
                ),
                (
                    "reason",
                    string("Machine-readable reason for the last transition."),
                ),
                (
                    "message",
                    string("Human-readable message about the last transition."),
                ),
            ],
        ),
    );
    defs.insert(c("ObjectReference"), object("ObjectReference carries enough information to inspect or modify the referred object.", vec![
        ("kind", string("Kind of the referent.")),
        ("namespace", string("Namespace of the referent.")),
        ("name", string("Name of the referent.")),
        ("uid", string("UID of the referent.")),
        ("apiVersion", string("API version of the referent.")),
        ("resourceVersion", string("Specific resourceVersion to which this reference is made, if any.")),
        ("fieldPath", string("A path to a piece of the object instead of the whole object, e.g. spec.containers{name}.")),
    ]));
    defs.insert(
        c("EventSource"),
        object(
            "EventSource names the component and host that reported an event.",
            vec![
                (
                    "component",
                    string("Component from which the event is generated."),
                ),
                ("host", string("Node name on which the event is generated.")),
            ],
        ),
    );
    defs.insert(
        c("EventSeries"),
        object(
            "EventSeries describes a series of events that keep happening.",
            vec![
                (
                    "count",
                    integer(
                        "int32",
                        "Number of occurrences in this series up to the last heartbeat time.",
                    ),
                ),
                (
                    "lastObservedTime",
                    reference(
                        &format!("{META}MicroTime"),
                        "Time of the last occurrence observed.",
                    ),
                ),
            ],
        ),
    );
    defs.insert("io.k8s.coordination.v1.LeaseSpec".into(), object("LeaseSpec is the specification of a Lease.", vec![
        ("holderIdentity", string("The identity of the holder of the current lease.")),
        ("leaseDurationSeconds", integer("int32", "Duration that candidates wait before forcibly acquiring the lease, measured from the last renewTime.")),
        ("acquireTime", reference(&format!("{META}MicroTime"), "When the current lease was acquired.")),
        ("renewTime", reference(&format!("{META}MicroTime"), "When the current holder last updated the lease.")),
        ("leaseTransitions", integer("int32", "The number of transitions of a lease between holders.")),
        ("strategy", string("The strategy for picking the leader for coordinated leader election.")),
        ("preferredHolder", string("The signal to the current holder that another holder is preferred.")),
    ]));
}

fn configmap() -> Value {
    kind(
        ("", "v1", "ConfigMap"),
        "ConfigMap holds configuration data for pods to consume.",
        vec![
            (
                "data",
                string_map(
                    "Data contains the configuration data: UTF-8 values by key, keys of alphanumerics, '-', '_' or '.'; keys may not also appear in binaryData.",
                ),
            ),
            (
                "binaryData",
                json!({"type": "object", "additionalProperties": {"type": "string", "format": "byte"}, "description": "BinaryData contains binary values (base64 in JSON) by key; keys may not also appear in data."}),
            ),
            (
                "immutable",
                boolean(
                    "Immutable, if true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified).",
                ),
            ),
        ],
    )
}

fn secret() -> Value {
    kind(
        ("", "v1", "Secret"),
        "Secret holds secret data of a certain type. The total bytes of the values in the data field must be less than 1 MiB.",
        vec![
            (
                "data",
                json!({"type": "object", "additionalProperties": {"type": "string", "format": "byte"}, "description": "Data contains the secret data, base64-encoded values by key."}),
            ),
            (
                "stringData",
                string_map(
                    "stringData allows specifying non-binary secret data in string form; merged into data on write, never output when reading.",
                ),
            ),
            (
                "type",
                string(
                    "Used to facilitate programmatic handling of secret data, e.g. Opaque or kubernetes.io/tls.",
                ),
            ),
            (
                "immutable",
                boolean(
                    "Immutable, if true, ensures that data stored in the Secret cannot be updated.",
                ),
            ),
        ],
    )
}

fn namespace() -> Value {
    kind(
        ("", "v1", "Namespace"),
        "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
        vec![
            (
                "spec",
                reference(
                    "io.k8s.api.core.v1.NamespaceSpec",
                    "Spec defines the behavior of the Namespace.",
                ),
            ),
            (
                "status",
                reference(
                    "io.k8s.api.core.v1.NamespaceStatus",
                    "Status describes the current status of a Namespace.",
                ),
            ),
        ],
    )
}

fn event() -> Value {
    let micro = format!("{META}MicroTime");
    kind(
        ("", "v1", "Event"),
        "Event is a report of an event somewhere in the cluster.",
        vec![
            (
                "involvedObject",
                reference(
                    "io.k8s.api.core.v1.ObjectReference",
                    "The object that this event is about.",
                ),
            ),
            (
                "reason",
                string(
                    "Short, machine understandable string that gives the reason for the transition into the object's current status.",
                ),
            ),
            (
                "message",
                string("A human-readable description of the status of this operation."),
            ),
            (
                "source",
                reference(
                    "io.k8s.api.core.v1.EventSource",
                    "The component reporting this event.",
                ),
            ),
            (
                "firstTimestamp",
                time("The time at which the event was first recorded."),
            ),
            (
                "lastTimestamp",
                time("The time at which the most recent occurrence of this event was recorded."),
            ),
            (
                "count",
                integer("int32", "The number of times this event has occurred."),
            ),
            ("type", string("Type of this event (Normal, Warning).")),
            (
                "eventTime",
                reference(&micro, "Time when this Event was first observed."),
            ),
            (
                "series",
                reference(
                    "io.k8s.api.core.v1.EventSeries",
                    "Data about the Event series this event represents, if any.",
                ),
            ),
            (
                "action",
                string("What action was taken or failed regarding the involved object."),
            ),
            (
                "related",
                reference(
                    "io.k8s.api.core.v1.ObjectReference",
                    "Optional secondary object for more complex actions.",
                ),
            ),
            (
                "reportingComponent",
                string("Name of the controller that emitted this Event."),
            ),
            (
                "reportingInstance",
                string("ID of the controller instance."),
            ),
        ],
    )
}

fn lease() -> Value {
    kind(
        ("coordination.k8s.io", "v1", "Lease"),
        "Lease defines a lease concept.",
        vec![(
            "spec",
            reference(
                "io.k8s.coordination.v1.LeaseSpec",
                "spec contains the specification of the Lease.",
            ),
        )],
    )
}

fn crd() -> Value {
    let preserve = |d: &str| json!({"type": "object", "description": d, "x-kubernetes-preserve-unknown-fields": true});
    kind(
        ("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
        "CustomResourceDefinition represents a resource that should be exposed on the API server.",
        vec![
            (
                "spec",
                object(
                    "spec describes how the user wants the resources to appear.",
                    vec![
                        (
                            "group",
                            string("The API group of the defined custom resource."),
                        ),
                        (
                            "names",
                            preserve("The resource and kind names for the custom resource."),
                        ),
                        (
                            "scope",
                            string(
                                "Whether the defined custom resource is cluster- or namespace-scoped: Cluster or Namespaced.",
                            ),
                        ),
                        (
                            "versions",
                            array(
                                preserve(
                                    "A version of the custom resource: name, served, storage, schema, subresources, printer columns.",
                                ),
                                "The list of all API versions of the defined custom resource.",
                            ),
                        ),
                        (
                            "conversion",
                            preserve("Defines conversion settings for the CRD."),
                        ),
                        (
                            "preserveUnknownFields",
                            boolean(
                                "Deprecated: fields not in the schema are kept in storage when true.",
                            ),
                        ),
                    ],
                ),
            ),
            (
                "status",
                preserve("status indicates the actual state of the CustomResourceDefinition."),
            ),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reference_of_a_builtin_kind_resolves() {
        for (gvk, schema) in kind_models() {
            let mut schemas = Map::new();
            schemas.insert("kind".into(), schema);
            add_referenced(&mut schemas);
            let mut refs = Vec::new();
            schemas.values().for_each(|s| collect_refs(s, &mut refs));
            for r in refs {
                assert!(schemas.contains_key(&r), "{gvk:?} refers to missing {r}");
            }
        }
    }

    #[test]
    fn owner_references_merge_by_uid() {
        let defs = shared_definitions();
        let owners = &defs[&format!("{META}ObjectMeta")]["properties"]["ownerReferences"];
        assert_eq!(owners["x-kubernetes-patch-strategy"], "merge");
        assert_eq!(owners["x-kubernetes-patch-merge-key"], "uid");
    }
}
