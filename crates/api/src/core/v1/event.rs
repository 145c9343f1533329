//! core/v1 Event, EventList and the references they carry.

use crate::meta::{ListMeta, MicroTime, ObjectMeta, Time};
use crate::serde_util::{is_zero_i32, null_default};
use serde::{Deserialize, Serialize};

/// An Event: a report of something that happened to an object (core/v1 `Event`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// TypeMeta `kind`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub kind: String,
    /// TypeMeta `apiVersion`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub api_version: String,
    /// Standard object metadata.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    /// The object this event is about.
    #[serde(default, deserialize_with = "null_default")]
    pub involved_object: ObjectReference,
    /// Short machine-readable reason.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub reason: String,
    /// Human-readable description.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub message: String,
    /// The component reporting the event.
    #[serde(default, deserialize_with = "null_default")]
    pub source: EventSource,
    /// When the event was first recorded.
    #[serde(default, deserialize_with = "null_default")]
    pub first_timestamp: Time,
    /// When the event was last recorded.
    #[serde(default, deserialize_with = "null_default")]
    pub last_timestamp: Time,
    /// How many times it happened.
    #[serde(
        default,
        skip_serializing_if = "is_zero_i32",
        deserialize_with = "null_default"
    )]
    pub count: i32,
    /// `Normal` or `Warning`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub r#type: String,
    /// When the event was first observed (microseconds).
    #[serde(default, deserialize_with = "null_default")]
    pub event_time: MicroTime,
    /// The series this event belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<EventSeries>,
    /// The action taken or failed.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub action: String,
    /// A secondary object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related: Option<ObjectReference>,
    /// The controller that emitted the event (JSON `reportingComponent`).
    #[serde(
        rename = "reportingComponent",
        default,
        deserialize_with = "null_default"
    )]
    pub reporting_controller: String,
    /// The controller instance that emitted the event.
    #[serde(default, deserialize_with = "null_default")]
    pub reporting_instance: String,
}
crate::proto_message!(Event {
    metadata: msg_maps = 1,
    involved_object: msg = 2,
    reason: string = 3,
    message: string = 4,
    source: msg = 5,
    first_timestamp: msg = 6,
    last_timestamp: msg = 7,
    count: int32 = 8,
    r#type: string = 9,
    event_time: msg = 10,
    series: opt_msg = 11,
    action: string = 12,
    related: opt_msg = 13,
    reporting_controller: string = 14,
    reporting_instance: string = 15,
});

/// `EventSource`: the component and host an event came from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventSource {
    /// The component.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub component: String,
    /// The node.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub host: String,
}
crate::proto_message!(EventSource {
    component: string = 1,
    host: string = 2
});

/// `EventSeries`: how often an event repeated.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventSeries {
    /// Occurrences so far.
    #[serde(
        default,
        skip_serializing_if = "is_zero_i32",
        deserialize_with = "null_default"
    )]
    pub count: i32,
    /// Time of the last occurrence.
    #[serde(default, deserialize_with = "null_default")]
    pub last_observed_time: MicroTime,
}
crate::proto_message!(EventSeries {
    count: int32 = 1,
    last_observed_time: msg = 2
});

/// `ObjectReference`: enough to find an object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectReference {
    /// Kind of the referent.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub kind: String,
    /// Namespace of the referent.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub namespace: String,
    /// Name of the referent.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub name: String,
    /// UID of the referent.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub uid: String,
    /// API version of the referent.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub api_version: String,
    /// Resource version the reference is about.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub resource_version: String,
    /// The part of the object meant.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub field_path: String,
}
crate::proto_message!(ObjectReference {
    kind: string = 1,
    namespace: string = 2,
    name: string = 3,
    uid: string = 4,
    api_version: string = 5,
    resource_version: string = 6,
    field_path: string = 7,
});

/// `EventList`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventList {
    /// TypeMeta `kind`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub kind: String,
    /// TypeMeta `apiVersion`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub api_version: String,
    /// Standard list metadata.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ListMeta,
    /// The events.
    #[serde(default, deserialize_with = "null_default")]
    pub items: Vec<Event>,
}
crate::proto_message!(EventList {
    metadata: msg_maps = 1,
    items: msgs_maps = 2
});
