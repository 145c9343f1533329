//! OpenAPI schemas of the `meta/v1` models every kind refers to (see `openapi_schemas`).

use crate::openapi_schema_builders::{
    META, array, array_of, boolean, integer, merged, object, reference, string, string_map, time,
};
use serde_json::{Map, Value, json};

/// The `meta/v1` models (ObjectMeta and what it refers to), LabelSelector and Quantity.
pub(crate) fn definitions(defs: &mut Map<String, Value>) {
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
