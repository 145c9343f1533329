//! Content negotiation and discovery against kube-apiserver's goldens: Table columns,
//! PartialObjectMetadata, YAML, protobuf objects and watch frames, aggregated and legacy
//! discovery, 304 on a matching ETag.

mod e2e_support;

use e2e_support::{Kapi, json};
use kapi_testsupport::golden::golden;
use serde_json::Value;

const CFG: &str = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","labels":{"app":"web","tier":"front"},"annotations":{"note":"golden"}},"data":{"empty":"","level":"3","mode":"fast"},"binaryData":{"blob":"AAEC"}}"#;

async fn with_cfg() -> Kapi {
    let kapi = Kapi::start_without_root_ca().await;
    kapi.kubectl_ok(&["create", "namespace", "golden"]);
    let req = http::Request::post("/api/v1/namespaces/golden/configmaps")
        .header("content-type", "application/json")
        .body(CFG.as_bytes().to_vec())
        .unwrap();
    assert_eq!(kapi.raw(req).await.0, 201);
    kapi
}

fn get(path: &str, accept: &str) -> http::Request<Vec<u8>> {
    http::Request::get(path)
        .header("accept", accept)
        .body(Vec::new())
        .unwrap()
}

#[tokio::test]
async fn table_has_kubectls_configmap_columns_and_cells() {
    let kapi = with_cfg().await;
    let accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
    let (status, _, body) = kapi
        .raw(get(
            "/api/v1/namespaces/golden/configmaps?limit=500",
            accept,
        ))
        .await;
    assert_eq!(status, 200);
    let table = json(&body);
    let want = golden("configmap-table.json");
    assert_eq!(table["kind"], "Table");
    assert_eq!(table["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(table["columnDefinitions"], want["columnDefinitions"]);
    let cells = &table["rows"][0]["cells"];
    assert_eq!(
        (&cells[0], &cells[1]),
        (&want["rows"][0]["cells"][0], &want["rows"][0]["cells"][1])
    );
    assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
}

#[tokio::test]
async fn partial_object_metadata_matches_the_golden_without_server_fields() {
    let kapi = with_cfg().await;
    let accept = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io";
    let (status, _, body) = kapi
        .raw(get("/api/v1/namespaces/golden/configmaps/cfg", accept))
        .await;
    assert_eq!(status, 200);
    let mask = |mut v: Value| {
        let m = v["metadata"].as_object_mut().unwrap();
        for k in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "managedFields",
        ] {
            m.remove(k);
        }
        v
    };
    assert_eq!(
        mask(json(&body)),
        mask(golden("configmap-partial-metadata.json"))
    );
}

#[tokio::test]
async fn partial_object_metadata_of_a_list_is_406() {
    let kapi = with_cfg().await;
    let accept = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io";
    let (status, _, _) = kapi
        .raw(get("/api/v1/namespaces/golden/configmaps", accept))
        .await;
    assert_eq!(status, 406);
}

#[tokio::test]
async fn yaml_output_has_the_goldens_data() {
    let kapi = with_cfg().await;
    let (status, headers, body) = kapi
        .raw(get(
            "/api/v1/namespaces/golden/configmaps/cfg",
            "application/yaml",
        ))
        .await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "application/yaml");
    let text = String::from_utf8(body).unwrap();
    for line in [
        "  blob: AAEC",
        "  empty: \"\"",
        "  level: \"3\"",
        "  mode: fast",
        "kind: ConfigMap",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "{line:?} missing in\n{text}"
        );
    }
}

#[tokio::test]
async fn protobuf_get_answers_the_k8s_envelope() {
    let kapi = with_cfg().await;
    let pb = "application/vnd.kubernetes.protobuf";
    let (status, headers, body) = kapi
        .raw(get("/api/v1/namespaces/golden/configmaps/cfg", pb))
        .await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], pb);
    assert_eq!(&body[..4], b"k8s\0");
    let golden_pb = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/golden/configmap.pb"
    ))
    .unwrap();
    assert_eq!(&body[..22], &golden_pb[..22], "same envelope and type meta");
}

#[tokio::test]
async fn protobuf_watch_is_length_delimited_frames() {
    let kapi = with_cfg().await;
    let pb = "application/vnd.kubernetes.protobuf";
    let path = "/api/v1/namespaces/golden/configmaps?watch=true&resourceVersion=0&timeoutSeconds=1";
    let (status, headers, body) = kapi.raw(get(path, pb)).await;
    assert_eq!(status, 200);
    assert_eq!(
        headers["content-type"],
        "application/vnd.kubernetes.protobuf;stream=watch"
    );
    let len = u32::from_be_bytes(body[..4].try_into().unwrap()) as usize;
    assert_eq!(body.len(), 4 + len, "one ADDED frame for the one object");
    assert_eq!(&body[4..11], b"\x0a\x05ADDED");
}

/// A change is encoded once per event for every watcher with the same output (issue 19):
/// watchers of the same changes in JSON, protobuf and as a Table each still get their own
/// representation, and each event type its own frame.
#[tokio::test]
async fn watchers_of_the_same_changes_in_json_protobuf_and_table_each_get_their_own_frames() {
    let kapi = with_cfg().await;
    let list = "/api/v1/namespaces/golden/configmaps";
    let (_, _, body) = kapi.raw(get(list, "application/json")).await;
    let rv = json(&body)["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    let create = http::Request::post(list)
        .header("content-type", "application/json")
        .body(br#"{"metadata":{"name":"second"},"data":{"a":"1"}}"#.to_vec())
        .unwrap();
    assert_eq!(kapi.raw(create).await.0, 201);
    let patch = http::Request::patch(format!("{list}/second"))
        .header("content-type", "application/merge-patch+json")
        .body(br#"{"data":{"a":"2"}}"#.to_vec())
        .unwrap();
    assert_eq!(kapi.raw(patch).await.0, 200);
    let delete = http::Request::delete(format!("{list}/second"))
        .body(Vec::new())
        .unwrap();
    assert_eq!(kapi.raw(delete).await.0, 200);
    // The three changes come from the watch cache's history (the watch starts at `rv`).
    let path = format!("{list}?watch=true&resourceVersion={rv}&timeoutSeconds=1");
    let table = "application/json;as=Table;v=v1;g=meta.k8s.io";
    let pb = "application/vnd.kubernetes.protobuf";
    let (j, t, p) = tokio::join!(
        kapi.raw(get(&path, "application/json")),
        kapi.raw(get(&path, table)),
        kapi.raw(get(&path, pb)),
    );
    let lines = |body: &[u8]| -> Vec<Value> {
        body.split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(json)
            .collect()
    };
    let objects = lines(&j.2);
    let types: Vec<&str> = objects
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["ADDED", "MODIFIED", "DELETED"]);
    assert!(objects.iter().all(|e| e["object"]["kind"] == "ConfigMap"));
    assert_eq!(objects[1]["object"]["data"]["a"], "2");
    let tables = lines(&t.2);
    assert_eq!(tables.len(), 3);
    assert!(
        tables.iter().all(|e| e["object"]["kind"] == "Table"),
        "{tables:?}"
    );
    assert_eq!(tables[2]["type"], "DELETED");
    assert_eq!(
        p.1["content-type"],
        "application/vnd.kubernetes.protobuf;stream=watch"
    );
    let mut frames = Vec::new();
    let mut rest = &p.2[..];
    while rest.len() >= 4 {
        let len = u32::from_be_bytes(rest[..4].try_into().unwrap()) as usize;
        frames.push(&rest[4..4 + len]);
        rest = &rest[4 + len..];
    }
    assert_eq!(frames.len(), 3);
    assert!(frames[0].starts_with(b"\x0a\x05ADDED"));
    assert!(frames[1].starts_with(b"\x0a\x08MODIFIED"));
    assert!(frames[2].starts_with(b"\x0a\x07DELETED"));
    // A second JSON watcher gets the same bytes as the first.
    let again = kapi.raw(get(&path, "application/json")).await;
    assert_eq!(again.2, j.2);
}

#[tokio::test]
async fn json_watch_with_send_initial_events_ends_initial_state_with_a_bookmark() {
    let kapi = with_cfg().await;
    let path = "/api/v1/namespaces/golden/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1";
    let (status, headers, body) = kapi.raw(get(path, "application/json")).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "application/json");
    let events: Vec<Value> = body
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(json)
        .collect();
    assert_eq!(events[0]["type"], "ADDED");
    assert_eq!(events[0]["object"]["metadata"]["name"], "cfg");
    assert_eq!(events[1]["type"], "BOOKMARK");
    assert_eq!(
        events[1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
        "true"
    );
}

fn resource<'a>(doc: &'a Value, group: &str, version: &str, name: &str) -> &'a Value {
    doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["metadata"]["name"].as_str().unwrap_or("") == group)
        .flat_map(|i| i["versions"].as_array().unwrap())
        .filter(|v| v["version"] == version)
        .flat_map(|v| v["resources"].as_array().unwrap())
        .find(|r| r["resource"] == name)
        .unwrap_or_else(|| panic!("{group}/{version} {name} missing"))
}

#[tokio::test]
async fn aggregated_discovery_matches_kube_apiserver_for_served_resources() {
    let kapi = Kapi::start().await;
    let accept =
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    let (status, headers, body) = kapi.raw(get("/api", accept)).await;
    assert_eq!(status, 200);
    assert_eq!(
        headers["content-type"],
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    );
    let core = json(&body);
    let want = golden("discovery-api-aggregated.json");
    for r in ["configmaps", "secrets", "events", "namespaces"] {
        assert_eq!(
            resource(&core, "", "v1", r),
            resource(&want, "", "v1", r),
            "{r}"
        );
    }
    let (_, _, body) = kapi.raw(get("/apis", accept)).await;
    let apis = json(&body);
    let want = golden("discovery-apis-aggregated.json");
    for (g, v, r) in [
        ("autoscaling", "v2", "horizontalpodautoscalers"),
        ("autoscaling", "v1", "horizontalpodautoscalers"),
        ("coordination.k8s.io", "v1", "leases"),
        ("apiextensions.k8s.io", "v1", "customresourcedefinitions"),
    ] {
        assert_eq!(
            resource(&apis, g, v, r),
            resource(&want, g, v, r),
            "{g}/{v} {r}"
        );
    }
}

#[tokio::test]
async fn aggregated_discovery_answers_304_to_a_matching_etag() {
    let kapi = Kapi::start().await;
    let accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    let (_, headers, _) = kapi.raw(get("/apis", accept)).await;
    let etag = headers["etag"].to_str().unwrap().to_owned();
    let req = http::Request::get("/apis")
        .header("accept", accept)
        .header("if-none-match", etag)
        .body(Vec::new())
        .unwrap();
    assert_eq!(kapi.raw(req).await.0, 304);
}

#[tokio::test]
async fn legacy_group_version_discovery_matches_kube_apiserver() {
    let kapi = Kapi::start().await;
    let (status, _, body) = kapi
        .raw(get("/apis/autoscaling/v2", "application/json"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(json(&body), golden("discovery-autoscaling-v2.json"));
    let (_, _, body) = kapi.raw(get("/api/v1", "application/json")).await;
    let v1 = json(&body);
    let want = golden("discovery-api-v1.json");
    let find = |doc: &Value, name: &str| {
        doc["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .cloned()
    };
    for r in [
        "configmaps",
        "namespaces",
        "namespaces/status",
        "namespaces/finalize",
        "secrets",
        "events",
    ] {
        assert_eq!(find(&v1, r), find(&want, r), "{r}");
    }
}

#[tokio::test]
async fn list_items_equal_the_objects_read_one_by_one() {
    let kapi = with_cfg().await;
    let (_, _, list) = kapi
        .raw(get(
            "/api/v1/namespaces/golden/configmaps",
            "application/json",
        ))
        .await;
    let list = json(&list);
    assert_eq!(list["kind"], "ConfigMapList");
    let item = &list["items"][0];
    let (_, _, one) = kapi
        .raw(get(
            "/api/v1/namespaces/golden/configmaps/cfg",
            "application/json",
        ))
        .await;
    assert_eq!(item, &json(&one));
}

#[tokio::test]
async fn protobuf_list_has_the_list_type_meta_of_the_golden() {
    let kapi = with_cfg().await;
    let pb = "application/vnd.kubernetes.protobuf";
    let (status, headers, body) = kapi
        .raw(get("/api/v1/namespaces/golden/configmaps", pb))
        .await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], pb);
    let golden_pb = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/golden/configmap-list.pb"
    ))
    .unwrap();
    assert_eq!(
        &body[..26],
        &golden_pb[..26],
        "envelope and v1/ConfigMapList type meta"
    );
}

/// The JSON list of the same revision, decoded into the typed list and encoded as protobuf:
/// what a protobuf list was built as before issue 19.
fn json_list_as_protobuf(json_list: &[u8]) -> Vec<u8> {
    let scheme = std::sync::Arc::new(kapi_api::new_scheme().unwrap());
    let factory = kapi_machinery::serializer::CodecFactory::new(scheme);
    let decoded = factory
        .universal_deserializer()
        .decode(json_list, None, None)
        .unwrap();
    let protobuf = factory
        .serializer_for_media_type("application/vnd.kubernetes.protobuf")
        .unwrap()
        .serializer
        .clone();
    protobuf.encode_to_vec(decoded.object.as_ref()).unwrap()
}

/// A protobuf list is joined from each object's protobuf message (kept by the watch cache
/// after the first list, issue 19), and is byte for byte the typed list of the same revision
/// encoded as protobuf — unpaged, paged (continue, remainingItemCount) and served again from
/// the kept messages.
#[tokio::test]
async fn a_protobuf_list_is_the_json_list_of_the_same_revision_encoded_byte_for_byte() {
    let kapi = with_cfg().await;
    for i in 0..4 {
        let body = format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"more-{i}","labels":{{"n":"{i}"}}}},"data":{{"k":"{i}"}}}}"#
        );
        let req = http::Request::post("/api/v1/namespaces/golden/configmaps")
            .header("content-type", "application/json")
            .body(body.into_bytes())
            .unwrap();
        assert_eq!(kapi.raw(req).await.0, 201);
    }
    let pb = "application/vnd.kubernetes.protobuf";
    for query in ["", "?limit=2"] {
        let path = format!("/api/v1/namespaces/golden/configmaps{query}");
        let (status, _, first) = kapi.raw(get(&path, pb)).await;
        assert_eq!(status, 200);
        let (_, _, again) = kapi.raw(get(&path, pb)).await;
        let (_, _, json_list) = kapi.raw(get(&path, "application/json")).await;
        assert_eq!(first, json_list_as_protobuf(&json_list), "list{query}");
        assert_eq!(again, first, "list{query} from the kept messages");
    }
}
