//! OpenAPI schemas of the core/v1, coordination/v1 and apiextensions/v1 kinds (see
//! `openapi_schema_builders` for the helpers and conventions).

use crate::openapi_schema_builders::{
    META, array, array_of, boolean, integer, kind, merged, object, reference, string, string_map,
    time,
};
use serde_json::{Map, Value, json};

/// The models core/v1 and coordination/v1 kinds refer to.
pub(crate) fn definitions(defs: &mut Map<String, Value>) {
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

/// The configmap kind.
pub(crate) fn configmap() -> Value {
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

/// The secret kind.
pub(crate) fn secret() -> Value {
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

/// The namespace kind.
pub(crate) fn namespace() -> Value {
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

/// The event kind.
pub(crate) fn event() -> Value {
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

/// The lease kind.
pub(crate) fn lease() -> Value {
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

/// The crd kind.
pub(crate) fn crd() -> Value {
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
