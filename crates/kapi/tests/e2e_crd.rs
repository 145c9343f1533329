//! Custom resources end to end (issue 5): a Widget CRD with v1alpha1 (storage, `spec.label`)
//! and v1beta1 (`spec.displayName`), strategy None, served by a real kapi to kubectl and the
//! `kube` crate: conditions, storedVersions, the whole version lifecycle, bad input (422/400/
//! 415/406, nothing stored), Table columns, discovery names, deletion of a CRD's objects.

mod e2e_support;

mod e2e_crd_support;

use e2e_crd_support::*;
use e2e_support::{Kapi, json};
use kapi_testsupport::golden::golden;

#[tokio::test]
async fn crd_create_sets_conditions_and_stored_versions() {
    let kapi = widget_kapi().await;
    let crd = crd_json(&kapi);
    let conds = crd["status"]["conditions"].as_array().unwrap();
    let find = |t: &str| conds.iter().find(|c| c["type"] == t).unwrap().clone();
    assert_eq!(find("NamesAccepted")["status"], "True");
    assert_eq!(find("NamesAccepted")["reason"], "NoConflicts");
    assert_eq!(find("Established")["reason"], "InitialNamesAccepted");
    assert_eq!(
        crd["status"]["storedVersions"],
        serde_json::json!(["v1alpha1"])
    );
    assert_eq!(
        crd["status"]["acceptedNames"]["shortNames"],
        serde_json::json!(["wd"])
    );
}

#[tokio::test]
async fn crd_whose_names_conflict_is_not_accepted() {
    let kapi = widget_kapi().await;
    let other = widget_crd("v1alpha1", true, true)
        .replace(CRD, "gadgets.example.com")
        .replace(r#""plural":"widgets""#, r#""plural":"gadgets""#)
        .replace(r#""singular":"widget""#, r#""singular":"gadget""#)
        .replace(r#""shortNames":["wd"]"#, r#""shortNames":["gd"]"#);
    let path = file(&kapi, "gadgets.json", &other);
    kapi.kubectl_ok(&["create", "-f", &path]);
    kapi.kubectl_ok(&[
        "wait",
        "--for=condition=NamesAccepted=False",
        "crd/gadgets.example.com",
        "--timeout=20s",
    ]);
    let (s, _) = wait_status(
        &kapi,
        "/apis/example.com/v1alpha1/namespaces/default/gadgets",
        404,
    )
    .await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn version_lifecycle_keeps_every_object_readable() {
    let kapi = widget_kapi().await;
    // An unknown field sent with client-side validation off is pruned.
    let w1 = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w1"},"spec":{"label":"a","junk":"x"}}"#;
    let p1 = file(&kapi, "w1.json", w1);
    kapi.kubectl_ok(&["create", "--validate=false", "-f", &p1]);
    let got = json(
        kapi.kubectl_ok(&["get", "widgets.v1alpha1.example.com", "w1", "-o", "json"])
            .as_bytes(),
    );
    assert_eq!(
        got["spec"],
        serde_json::json!({"label": "a", "replicas": 1})
    );
    // Written through v1beta1, read through both (None: only apiVersion changes, pruning).
    let w2 = r#"{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"w2"},"spec":{"displayName":"B"}}"#;
    let p2 = file(&kapi, "w2.json", w2);
    kapi.kubectl_ok(&["create", "-f", &p2]);
    let w1b = json(
        kapi.kubectl_ok(&["get", "widgets.v1beta1.example.com", "w1", "-o", "json"])
            .as_bytes(),
    );
    assert_eq!(w1b["apiVersion"], "example.com/v1beta1");
    assert_eq!(w1b["spec"], serde_json::json!({"replicas": 1}));
    // Storage switched to v1beta1: storedVersions keeps v1alpha1.
    apply_crd(&kapi, &widget_crd("v1beta1", true, true));
    assert_eq!(
        crd_json(&kapi)["status"]["storedVersions"],
        serde_json::json!(["v1alpha1", "v1beta1"])
    );
    // v1alpha1 unserved: 404 there, v1beta1 still serves both objects.
    apply_crd(&kapi, &widget_crd("v1beta1", false, true));
    let (_, body) = wait_status(&kapi, V1A1, 404).await;
    assert_eq!(String::from_utf8_lossy(&body).trim(), "404 page not found");
    assert_eq!(stored_widgets(&kapi).await, 2);
    // Removing v1alpha1 from spec.versions is refused while it is in storedVersions.
    let path = file(
        &kapi,
        "crd-no-alpha.json",
        &widget_crd("v1beta1", false, false),
    );
    let out = kapi.kubectl(&["apply", "-f", &path]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("must remain in spec.versions until a storage migration ensures no data remains persisted in v1alpha1 and removes v1alpha1 from status.storedVersions"),
        "{err}"
    );
    // Pruned through /status, the removal succeeds and both objects still read.
    kapi.kubectl_ok(&[
        "patch",
        "crd",
        CRD,
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"storedVersions":["v1beta1"]}}"#,
    ]);
    assert_eq!(
        crd_json(&kapi)["status"]["storedVersions"],
        serde_json::json!(["v1beta1"])
    );
    kapi.kubectl_ok(&["apply", "-f", &path]);
    for name in ["w1", "w2"] {
        let got = json(
            kapi.kubectl_ok(&["get", "widgets", name, "-o", "json"])
                .as_bytes(),
        );
        assert_eq!(got["apiVersion"], "example.com/v1beta1");
    }
}

#[tokio::test]
async fn table_output_has_the_printer_columns() {
    let kapi = widget_kapi().await;
    kapi.kubectl_ok(&["create", "-f", &file(&kapi, "w.json", r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w"},"spec":{"label":"blue","replicas":3}}"#)]);
    // v1beta1 (no columns) is the preferred version; ask for v1alpha1's table.
    let out = kapi.kubectl_ok(&["get", "widgets.v1alpha1.example.com"]);
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(header, vec!["NAME", "LABEL", "REPLICAS"]);
    let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(row, vec!["w", "blue", "3"]);
}

#[tokio::test]
async fn discovery_matches_kube_apiserver() {
    let kapi = widget_kapi().await;
    let (s, _, body) = kapi.raw(get("/apis/example.com/v1alpha1")).await;
    assert_eq!(s, 200);
    let mut got = json(&body);
    let mut want = golden("discovery-group-version.json");
    // The golden CRD's group is golden.example.com, so its hash differs.
    for doc in [&mut got, &mut want] {
        doc["groupVersion"] = serde_json::Value::Null;
        doc["resources"][0]["storageVersionHash"] = serde_json::Value::Null;
    }
    assert_eq!(got, want);
}

#[tokio::test]
async fn status_subresource_changes_only_status() {
    let kapi = widget_kapi().await;
    let w = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w"},"spec":{"label":"a"}}"#;
    let (s, _, _) = kapi.raw(send("POST", V1A1, "application/json", w)).await;
    assert_eq!(s, 201);
    let patch = r#"{"spec":{"label":"changed"},"status":{"ready":true}}"#;
    let (s, _, body) = kapi
        .raw(send(
            "PATCH",
            &format!("{V1A1}/w/status"),
            "application/merge-patch+json",
            patch,
        ))
        .await;
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&body));
    let v = json(&body);
    assert_eq!(v["status"]["ready"], true);
    assert_eq!(v["spec"]["label"], "a");
}

#[tokio::test]
async fn deprecated_version_answers_with_a_warning() {
    let kapi = Kapi::start().await;
    let crd = widget_crd("v1alpha1", true, true).replacen(
        r#""served":true,"storage":true,"#,
        r#""served":true,"storage":true,"deprecated":true,"#,
        1,
    );
    apply_crd(&kapi, &crd);
    let (_, headers, _) = kapi.raw(get(V1A1)).await;
    let w = headers.get("warning").unwrap().to_str().unwrap();
    assert_eq!(w, r#"299 - "example.com/v1alpha1 Widget is deprecated""#);
}

#[tokio::test]
async fn deleting_the_crd_deletes_its_objects_then_the_crd() {
    let kapi = widget_kapi().await;
    let w = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w"},"spec":{}}"#;
    let (s, _, _) = kapi.raw(send("POST", V1A1, "application/json", w)).await;
    assert_eq!(s, 201);
    kapi.kubectl_ok(&["delete", "crd", CRD, "--timeout=30s"]);
    assert!(!kapi.kubectl(&["get", "crd", CRD]).status.success());
    // Recreated, the resource starts empty: the old objects are gone from storage.
    apply_crd(&kapi, &widget_crd("v1alpha1", true, true));
    wait_status(&kapi, V1A1, 200).await;
    let (_, _, body) = kapi.raw(get(V1A1)).await;
    assert_eq!(json(&body)["items"], serde_json::json!([]));
}

#[tokio::test]
async fn a_terminating_crd_waits_for_its_objects_finalizers_and_refuses_creates_with_405() {
    let kapi = widget_kapi().await;
    let held = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"held","finalizers":["example.com/hold"]},"spec":{}}"#;
    let (s, _, _) = kapi.raw(send("POST", V1A1, "application/json", held)).await;
    assert_eq!(s, 201);
    kapi.kubectl_ok(&["delete", "crd", CRD, "--wait=false"]);
    kapi.kubectl_ok(&[
        "wait",
        "--for=condition=Terminating=True",
        &format!("crd/{CRD}"),
        "--timeout=20s",
    ]);
    // Still served, so the finalizer can be removed; nothing new is created.
    let late = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"late"},"spec":{}}"#;
    let (s, _, body) = kapi.raw(send("POST", V1A1, "application/json", late)).await;
    let status = json(&body);
    assert_eq!(s, 405, "{status}");
    assert_eq!(status["reason"], "MethodNotAllowed");
    assert_eq!(
        status["message"],
        "create not allowed while custom resource definition is terminating"
    );
    assert_eq!(status["details"]["group"], "example.com");
    assert_eq!(status["details"]["kind"], "widgets");
    let crd = crd_json(&kapi);
    let terminating = crd["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "Terminating")
        .cloned()
        .unwrap();
    assert_eq!(terminating["reason"], "InstanceDeletionInProgress");
    kapi.kubectl_ok(&[
        "patch",
        "widget",
        "held",
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ]);
    kapi.kubectl_ok(&[
        "wait",
        "--for=delete",
        &format!("crd/{CRD}"),
        "--timeout=20s",
    ]);
}

#[tokio::test]
async fn field_selector_on_a_selectable_field() {
    let kapi = Kapi::start().await;
    let crd = widget_crd("v1alpha1", true, true).replacen(
        r#""subresources""#,
        r#""selectableFields":[{"jsonPath":".spec.label"}],"subresources""#,
        1,
    );
    apply_crd(&kapi, &crd);
    for (n, l) in [("a", "red"), ("b", "blue")] {
        let w = format!(
            r#"{{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{{"name":"{n}"}},"spec":{{"label":"{l}"}}}}"#
        );
        let (s, _, _) = kapi.raw(send("POST", V1A1, "application/json", &w)).await;
        assert_eq!(s, 201);
    }
    let (s, _, body) = kapi
        .raw(get(&format!("{V1A1}?fieldSelector=spec.label%3Dblue")))
        .await;
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&body));
    let names: Vec<String> = json(&body)["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, vec!["b"]);
}

#[tokio::test]
async fn scale_subresource_reads_and_writes_spec_replicas() {
    let kapi = widget_kapi().await;
    let w = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w1"},"spec":{"replicas":3}}"#;
    let (s, _, _) = kapi.raw(send("POST", V1A1, "application/json", w)).await;
    assert_eq!(s, 201);
    let (s, _, body) = kapi.raw(get(&format!("{V1A1}/w1/scale"))).await;
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&body));
    let scale = json(&body);
    let want = golden("cr-scale.json");
    for k in ["apiVersion", "kind", "spec", "status"] {
        assert_eq!(scale[k], want[k], "{k}");
    }
    kapi.kubectl_ok(&[
        "scale",
        "widgets.v1alpha1.example.com",
        "w1",
        "--replicas=5",
    ]);
    let got = json(
        kapi.kubectl_ok(&["get", "widgets.v1alpha1.example.com", "w1", "-o", "json"])
            .as_bytes(),
    );
    assert_eq!(got["spec"]["replicas"], 5);
    assert_eq!(got["metadata"]["generation"], 2);
    let bad = r#"{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1"},"spec":{"replicas":-1}}"#;
    let (s, _, _) = kapi
        .raw(send(
            "PUT",
            &format!("{V1A1}/w1/scale"),
            "application/json",
            bad,
        ))
        .await;
    assert_eq!(s, 422);
}

/// resourceVersion of a Widget after a no-op `kubectl replace` (get, then put back).
fn replace_unchanged(kapi: &Kapi, name: &str) -> (String, String) {
    let before = kapi.kubectl_ok(&["get", "widgets.v1beta1.example.com", name, "-o", "json"]);
    let rv = json(before.as_bytes())["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = file(kapi, &format!("{name}-replace.json"), &before);
    let after = kapi.kubectl_ok(&["replace", "-f", &path, "-o", "json"]);
    let new_rv = json(after.as_bytes())["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    (rv, new_rv)
}

#[tokio::test]
async fn unchanged_update_rewrites_only_objects_stored_in_an_old_version() {
    let kapi = widget_kapi().await;
    let old = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"old"},"spec":{}}"#;
    kapi.kubectl_ok(&["create", "-f", &file(&kapi, "old.json", old)]);
    // The first replace records kubectl-replace in managedFields (a real change).
    replace_unchanged(&kapi, "old");
    apply_crd(&kapi, &widget_crd("v1beta1", true, true));
    let new = r#"{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"new"},"spec":{}}"#;
    kapi.kubectl_ok(&["create", "-f", &file(&kapi, "new.json", new)]);
    replace_unchanged(&kapi, "new");
    let (before, after) = replace_unchanged(&kapi, "new");
    assert_eq!(
        before, after,
        "an object in the storage version is not rewritten"
    );
    let (before, after) = replace_unchanged(&kapi, "old");
    assert_ne!(before, after, "an object in an older version is rewritten");
    let (before, after) = replace_unchanged(&kapi, "old");
    assert_eq!(before, after, "once rewritten it is current");
}

#[tokio::test]
async fn restarted_kapi_serves_its_custom_resources_from_the_first_request() {
    let mut kapi = widget_kapi().await;
    let w = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"kept"},"spec":{}}"#;
    let (s, _, _) = kapi.raw(send("POST", V1A1, "application/json", w)).await;
    assert_eq!(s, 201);
    assert!(kapi.stop());
    let dir = std::mem::replace(&mut kapi.dir, tempfile::tempdir().unwrap());
    let kapi = Kapi::start_in(dir, &[]).await;
    let (s, _, body) = kapi.raw(get(&format!("{V1B1}/kept"))).await;
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&body));
}

#[tokio::test]
async fn table_column_definitions_match_kube_apiserver() {
    let kapi = widget_kapi().await;
    let w = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w1"},"spec":{"label":"blue","replicas":3}}"#;
    let (s, _, _) = kapi.raw(send("POST", V1A1, "application/json", w)).await;
    assert_eq!(s, 201);
    let req = http::Request::get(V1A1)
        .header(
            "accept",
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
        )
        .body(Vec::new())
        .unwrap();
    let (s, _, body) = kapi.raw(req).await;
    assert_eq!(s, 200);
    let table = json(&body);
    let want = golden("cr-table.json");
    let cols = &table["columnDefinitions"];
    assert_eq!(cols[0], want["columnDefinitions"][0], "Name");
    assert_eq!(cols[2], want["columnDefinitions"][1], "Replicas");
    assert_eq!(
        table["rows"][0]["cells"],
        serde_json::json!(["w1", "blue", 3])
    );
    assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
}

#[tokio::test]
async fn cluster_scoped_custom_resources_are_served_without_a_namespace() {
    let kapi = Kapi::start().await;
    let crd = widget_crd("v1alpha1", true, true)
        .replace(r#""scope":"Namespaced""#, r#""scope":"Cluster""#);
    apply_crd(&kapi, &crd);
    let w = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"global"},"spec":{"label":"g"}}"#;
    kapi.kubectl_ok(&["create", "-f", &file(&kapi, "global.json", w)]);
    let (s, _, body) = kapi
        .raw(get("/apis/example.com/v1beta1/widgets/global"))
        .await;
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&body));
    assert!(json(&body)["metadata"].get("namespace").is_none());
    let (s, _, _) = kapi.raw(get(V1A1)).await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn accepted_names_carry_the_defaulted_singular_and_list_kind() {
    let kapi = Kapi::start().await;
    let crd = widget_crd("v1alpha1", true, true).replace(
        r#""singular":"widget","kind":"Widget","listKind":"WidgetList","#,
        r#""kind":"Widget","#,
    );
    apply_crd(&kapi, &crd);
    let names = &crd_json(&kapi)["status"]["acceptedNames"];
    assert_eq!(names["singular"], "widget");
    assert_eq!(names["listKind"], "WidgetList");
}
