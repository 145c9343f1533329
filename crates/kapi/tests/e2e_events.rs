//! Events over both of their APIs, end to end: events.k8s.io/v1 and core/v1 are one
//! resource stored as core/v1 (as kube-apiserver stores them), so an Event written through
//! either reads back through the other with its fields renamed; the strict rules of
//! events.k8s.io/v1 refuse what upstream refuses, and nothing is stored then.

mod e2e_support;

use e2e_support::{Kapi, json};
use k8s_openapi::api::core::v1::Event as CoreEvent;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, PostParams};
use serde_json::json;

fn structured(name: &str) -> serde_json::Value {
    json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "eventTime": "2026-12-02T10:00:00.000000Z",
        "reportingController": "example.com/widget-operator",
        "reportingInstance": "widget-operator-0",
        "action": "Reconcile", "reason": "Synced", "type": "Normal",
        "regarding": {"apiVersion": "example.com/v1", "kind": "Widget",
            "namespace": "default", "name": "w1"},
        "note": "widget w1 synced"})
}

#[tokio::test]
async fn a_structured_event_reads_back_through_core_v1_with_core_field_names() {
    let kapi = Kapi::start().await;
    let client = kapi.client().await;
    let events: Api<Event> = Api::namespaced(client.clone(), "default");
    let ev: Event = serde_json::from_value(structured("synced")).unwrap();
    events.create(&PostParams::default(), &ev).await.unwrap();

    let core: Api<CoreEvent> = Api::namespaced(client, "default");
    let got = core.get("synced").await.unwrap();
    assert_eq!(got.involved_object.name.as_deref(), Some("w1"));
    assert_eq!(got.message.as_deref(), Some("widget w1 synced"));
    assert_eq!(
        got.reporting_component.as_deref(),
        Some("example.com/widget-operator")
    );
    assert_eq!(got.action.as_deref(), Some("Reconcile"));
}

#[tokio::test]
async fn a_core_event_reads_back_through_events_k8s_io_with_deprecated_fields() {
    let kapi = Kapi::start().await;
    let body = json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "started"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "p"},
        "reason": "Started", "message": "container started", "type": "Normal",
        "count": 3, "source": {"component": "kubelet"},
        "firstTimestamp": "2026-12-02T10:00:00Z", "lastTimestamp": "2026-12-02T10:05:00Z"});
    let req = http::Request::post("/api/v1/namespaces/default/events")
        .header("content-type", "application/json")
        .body(body.to_string().into_bytes())
        .unwrap();
    let (status, _, created) = kapi.raw(req).await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&created));

    let req = http::Request::get("/apis/events.k8s.io/v1/namespaces/default/events/started")
        .body(Vec::new())
        .unwrap();
    let (status, _, got) = kapi.raw(req).await;
    assert_eq!(status, 200);
    let got = json(&got);
    assert_eq!(got["apiVersion"], "events.k8s.io/v1");
    assert_eq!(got["regarding"]["name"], "p");
    assert_eq!(got["note"], "container started");
    assert_eq!(got["deprecatedCount"], 3);
    assert_eq!(got["deprecatedSource"]["component"], "kubelet");
    assert_eq!(got["deprecatedFirstTimestamp"], "2026-12-02T10:00:00Z");
    assert!(got.get("message").is_none(), "{got}");
}

#[tokio::test]
async fn kubectl_lists_structured_events_beside_core_ones() {
    let kapi = Kapi::start().await;
    let events: Api<Event> = Api::namespaced(kapi.client().await, "default");
    let ev: Event = serde_json::from_value(structured("listed")).unwrap();
    events.create(&PostParams::default(), &ev).await.unwrap();
    let core = kapi.kubectl_ok(&["get", "events", "-o", "name"]);
    assert!(core.contains("event/listed"), "{core}");
    let structured = kapi.kubectl_ok(&["get", "events.v1.events.k8s.io", "-o", "name"]);
    assert!(
        structured.contains("event.events.k8s.io/listed"),
        "{structured}"
    );
}

#[tokio::test]
async fn a_structured_event_without_event_time_is_422_and_stores_nothing() {
    let kapi = Kapi::start().await;
    let mut body = structured("timeless");
    body.as_object_mut().unwrap().remove("eventTime");
    body["type"] = json!("Odd");
    let req = http::Request::post("/apis/events.k8s.io/v1/namespaces/default/events")
        .header("content-type", "application/json")
        .body(body.to_string().into_bytes())
        .unwrap();
    let (status, _, answer) = kapi.raw(req).await;
    assert_eq!(status, 422);
    let answer = json(&answer);
    assert_eq!(answer["reason"], "Invalid");
    assert_eq!(
        answer["message"],
        "Event.events.k8s.io \"timeless\" is invalid: [eventTime: Required value, type: Invalid value: \"\": has invalid value: Odd]"
    );
    let req = http::Request::get("/api/v1/namespaces/default/events/timeless")
        .body(Vec::new())
        .unwrap();
    assert_eq!(kapi.raw(req).await.0, 404);
}

#[tokio::test]
async fn a_structured_update_may_not_change_the_note() {
    let kapi = Kapi::start().await;
    let events: Api<Event> = Api::namespaced(kapi.client().await, "default");
    let ev: Event = serde_json::from_value(structured("fixed")).unwrap();
    let mut created = events.create(&PostParams::default(), &ev).await.unwrap();
    created.note = Some("rewritten".into());
    let err = events
        .replace("fixed", &PostParams::default(), &created)
        .await
        .unwrap_err();
    let kube::Error::Api(status) = err else {
        panic!("{err}")
    };
    assert_eq!(status.code, 422);
    assert!(
        status.message.contains("message: Invalid value"),
        "{}",
        status.message
    );
    assert_eq!(
        events.get("fixed").await.unwrap().note.as_deref(),
        Some("widget w1 synced")
    );
}
