//! events.k8s.io/v1 Event ⇄ core/v1 Event. Both are one resource (`/registry/events`,
//! stored as core/v1, as kube-apiserver stores them): the structured Event renames
//! core's fields (`involvedObject` is `regarding`, `message` is `note`,
//! `reportingComponent` is `reportingController`) and keeps the old ones as `deprecated*`.

use super::types::{Event, EventSeries};
use crate::core::v1 as core;

/// The core/v1 form of a structured Event.
pub fn to_core(e: Event) -> core::Event {
    core::Event {
        kind: String::new(),
        api_version: String::new(),
        metadata: e.metadata,
        involved_object: e.regarding,
        reason: e.reason,
        message: e.note,
        source: e.deprecated_source,
        first_timestamp: e.deprecated_first_timestamp,
        last_timestamp: e.deprecated_last_timestamp,
        count: e.deprecated_count,
        r#type: e.r#type,
        event_time: e.event_time,
        series: e.series.map(|s| core::EventSeries {
            count: s.count,
            last_observed_time: s.last_observed_time,
        }),
        action: e.action,
        related: e.related,
        reporting_component: e.reporting_controller,
        reporting_instance: e.reporting_instance,
    }
}

/// The structured form of a core/v1 Event.
pub fn from_core(e: core::Event) -> Event {
    Event {
        kind: String::new(),
        api_version: String::new(),
        metadata: e.metadata,
        event_time: e.event_time,
        series: e.series.map(|s| EventSeries {
            count: s.count,
            last_observed_time: s.last_observed_time,
        }),
        reporting_controller: e.reporting_component,
        reporting_instance: e.reporting_instance,
        action: e.action,
        reason: e.reason,
        regarding: e.involved_object,
        related: e.related,
        note: e.message,
        r#type: e.r#type,
        deprecated_source: e.source,
        deprecated_first_timestamp: e.first_timestamp,
        deprecated_last_timestamp: e.last_timestamp,
        deprecated_count: e.count,
    }
}
