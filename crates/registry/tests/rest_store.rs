//! The REST store without HTTP, on the embedded store and on a real etcd: every case runs
//! against both backends (R8.12–R8.24).

#[macro_use]
mod support;

use kapi_registry::builtin::json_entries;
use kapi_registry::cache::WatchCaches;
use kapi_registry::entry::{Registry, RegistryTable, ResourceEntry};
use kapi_registry::rest::admission::{Admission, AdmissionChain, AdmissionRequest};
use kapi_registry::rest::list::{Item, ListPage, Selection};
use kapi_registry::rest::options::{DeleteOptions, ListOptions, Propagation};
use kapi_registry::rest::{Deleted, RestStore, UpdateFn, WriteContext};
use kapi_registry::{Error, meta};
use kapi_storage::{
    DeleteResponse, KeyValue, RangeRequest, RangeResponse, Result as StoreResult, Store,
    WatchRequest, WatchStream,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use support::Backend;

/// A store, a registry with the built-ins (JSON codecs) and the Widget CRD, and the
/// namespace `team`.
struct Harness {
    store: Arc<dyn Store>,
    table: Arc<RegistryTable>,
    _backend: Backend,
}

impl Harness {
    async fn new(backend: Backend) -> Self {
        let store = backend.store.clone();
        let registry = Registry::new();
        registry.upsert(json_entries("/registry"));
        let crd = kapi_testsupport::widget_webhook::widget_crd(json!({"strategy": "None"}));
        let crd = serde_json::from_value(crd).expect("the golden CRD decodes");
        let widgets = kapi_registry::crd::entries_for_crd("/registry", &crd, Default::default())
            .expect("CRD entries");
        registry.upsert(widgets);
        let h = Self {
            store,
            table: registry.snapshot(),
            _backend: backend,
        };
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}});
        h.rest("", "v1", "namespaces")
            .create(&WriteContext::default(), ns)
            .await
            .expect("namespace created");
        h
    }

    fn entry(&self, group: &str, version: &str, resource: &str) -> &ResourceEntry {
        self.table.get(group, version, resource).expect("entry")
    }

    fn rest(&self, group: &str, version: &str, resource: &str) -> RestStore<'_> {
        RestStore::new(
            self.store.as_ref(),
            &self.table,
            self.entry(group, version, resource),
        )
    }

    fn configmaps(&self) -> RestStore<'_> {
        self.rest("", "v1", "configmaps")
    }

    fn widgets(&self) -> RestStore<'_> {
        self.rest("golden.example.com", "v1alpha1", "widgets")
    }
}

async fn embedded() -> Harness {
    Harness::new(support::embedded().await).await
}

async fn etcd() -> Harness {
    Harness::new(support::etcd("/kapi-rest-test").await).await
}

fn in_team() -> WriteContext {
    WriteContext {
        namespace: Some("team".into()),
        manager: "rest-test".into(),
        ..WriteContext::default()
    }
}

fn configmap(name: &str, value: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": value}})
}

fn widget(name: &str, label: &str) -> Value {
    json!({"apiVersion": "golden.example.com/v1alpha1", "kind": "Widget",
        "metadata": {"name": name}, "spec": {"label": label, "replicas": 1}})
}

/// An update that replaces the object by `obj` (a PUT body).
fn put(obj: Value) -> UpdateFn<impl FnMut(Option<&Value>) -> kapi_registry::Result<Value> + Send> {
    UpdateFn::new(move |_: Option<&Value>| Ok(obj.clone()))
}

/// A store where another writer gets in before the first compare-and-swap update.
struct RacingStore {
    inner: Arc<dyn Store>,
    raced: std::sync::Mutex<Option<Vec<u8>>>,
}

#[async_trait::async_trait]
impl Store for RacingStore {
    async fn get(&self, key: &[u8], revision: Option<i64>) -> StoreResult<Option<KeyValue>> {
        self.inner.get(key, revision).await
    }
    async fn range(&self, request: RangeRequest) -> StoreResult<RangeResponse> {
        self.inner.range(request).await
    }
    async fn count(&self, prefix: &[u8]) -> StoreResult<i64> {
        self.inner.count(prefix).await
    }
    async fn create(&self, key: &[u8], value: Vec<u8>) -> StoreResult<KeyValue> {
        self.inner.create(key, value).await
    }
    async fn update(&self, key: &[u8], value: Vec<u8>, mod_revision: i64) -> StoreResult<KeyValue> {
        let raced = self.raced.lock().unwrap().take();
        if let Some(raced) = raced {
            self.inner.put(key, raced).await?;
        }
        self.inner.update(key, value, mod_revision).await
    }
    async fn put(&self, key: &[u8], value: Vec<u8>) -> StoreResult<KeyValue> {
        self.inner.put(key, value).await
    }
    async fn delete(&self, key: &[u8], mod_revision: Option<i64>) -> StoreResult<DeleteResponse> {
        self.inner.delete(key, mod_revision).await
    }
    async fn watch(&self, request: WatchRequest) -> StoreResult<WatchStream> {
        self.inner.watch(request).await
    }
    async fn compact(&self, revision: i64) -> StoreResult<()> {
        self.inner.compact(revision).await
    }
    async fn current_revision(&self) -> StoreResult<i64> {
        self.inner.current_revision().await
    }
}

/// An admission chain that records what it is told, labels what it mutates
/// (`admitted: yes`), and refuses objects labelled `deny`.
#[derive(Default)]
struct Recorder {
    seen: std::sync::Mutex<Vec<String>>,
}

impl Recorder {
    fn record(&self, phase: &str, r: &AdmissionRequest<'_>, obj: &Value) {
        let old = r
            .old
            .map(|o| o["data"]["k"].as_str().unwrap_or("").to_owned());
        self.seen.lock().unwrap().push(format!(
            "{phase} {} {}/{} ns={:?} name={} uid={} k={} old={old:?} dry={}",
            r.operation.as_str(),
            r.resource,
            r.version,
            r.namespace,
            r.name,
            !meta::meta_str(obj, "uid").is_empty(),
            obj["data"]["k"].as_str().unwrap_or(""),
            r.dry_run
        ));
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

#[async_trait::async_trait]
impl Admission for Recorder {
    async fn mutate(&self, r: &AdmissionRequest<'_>, obj: &mut Value) -> kapi_registry::Result<()> {
        self.record("mutate", r, obj);
        obj["metadata"]["labels"]["admitted"] = json!("yes");
        Ok(())
    }

    async fn mutate_delete(&self, r: &AdmissionRequest<'_>) -> kapi_registry::Result<()> {
        self.record("mutate", r, &Value::Null);
        Ok(())
    }

    async fn validate(&self, r: &AdmissionRequest<'_>, obj: &Value) -> kapi_registry::Result<()> {
        self.record("validate", r, obj);
        if obj["metadata"]["labels"].get("deny").is_some() {
            return Err(Error::Forbidden {
                group: String::new(),
                resource: "configmaps".into(),
                name: meta::name(obj).to_owned(),
                message: "denied by the test".into(),
            });
        }
        Ok(())
    }
}

fn admitted_by(recorder: &Arc<Recorder>) -> WriteContext {
    WriteContext {
        admission: Some(AdmissionChain(recorder.clone())),
        ..in_team()
    }
}

fn denied(mut obj: Value) -> Value {
    obj["metadata"]["labels"] = json!({"deny": "true"});
    obj
}

/// The names of listed items, in order.
/// Creates ConfigMaps `names` in "team".
async fn create_in_team(rest: &RestStore<'_>, names: &[&str]) {
    for name in names {
        rest.create(&in_team(), configmap(name, "1")).await.unwrap();
    }
}

/// A raw page of at most two ConfigMaps of "team" after `token` (the first page when empty).
async fn page_of_two(rest: &RestStore<'_>, caches: &WatchCaches, token: &str) -> ListPage {
    let opts = ListOptions {
        limit: 2,
        continue_token: token.to_owned(),
        ..ListOptions::default()
    };
    rest.list(
        Some(caches),
        Some("team"),
        &opts,
        &Selection::default(),
        true,
    )
    .await
    .unwrap()
}

async fn names(rest: RestStore<'_>, items: Vec<Item>) -> Vec<String> {
    rest.decode_items(items)
        .await
        .unwrap()
        .iter()
        .map(|o| meta::name(o).to_owned())
        .collect()
}

mod cases {
    use super::*;

    pub async fn admission_mutates_a_create_before_it_is_prepared_and_validates_what_is_stored(
        h: Harness,
    ) {
        let recorder = Arc::new(Recorder::default());
        let stored = h
            .configmaps()
            .create(&admitted_by(&recorder), configmap("a", "1"))
            .await
            .unwrap();
        assert_eq!(stored["metadata"]["labels"]["admitted"], "yes");
        assert_eq!(
            recorder.seen(),
            [
                "mutate CREATE configmaps/v1 ns=Some(\"team\") name=a uid=false k=1 old=None dry=false",
                "validate CREATE configmaps/v1 ns=Some(\"team\") name=a uid=true k=1 old=None dry=false"
            ]
        );
    }

    pub async fn a_create_refused_by_validating_admission_stores_nothing(h: Harness) {
        let recorder = Arc::new(Recorder::default());
        let err = h
            .configmaps()
            .create(&admitted_by(&recorder), denied(configmap("a", "1")))
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Forbidden { .. }), "{err:?}");
        assert!(
            h.configmaps()
                .get(Some("team"), "a")
                .await
                .unwrap()
                .is_none()
        );
    }

    pub async fn admission_of_an_update_sees_the_stored_object_as_old(h: Harness) {
        h.configmaps()
            .create(&in_team(), configmap("a", "1"))
            .await
            .unwrap();
        let recorder = Arc::new(Recorder::default());
        let mut change = UpdateFn::new(|cur: Option<&Value>| {
            let mut cm = cur.cloned().unwrap();
            cm["data"]["k"] = json!("2");
            Ok(cm)
        });
        let updated = h
            .configmaps()
            .update(&admitted_by(&recorder), "a", &mut change)
            .await
            .unwrap();
        assert_eq!(updated.object["metadata"]["labels"]["admitted"], "yes");
        assert_eq!(
            recorder.seen(),
            [
                "mutate UPDATE configmaps/v1 ns=Some(\"team\") name=a uid=true k=2 old=Some(\"1\") dry=false",
                "validate UPDATE configmaps/v1 ns=Some(\"team\") name=a uid=true k=2 old=Some(\"1\") dry=false"
            ]
        );
    }

    pub async fn a_delete_passes_mutating_then_validating_admission_and_a_refusal_keeps_it(
        h: Harness,
    ) {
        h.configmaps()
            .create(&in_team(), denied(configmap("a", "1")))
            .await
            .unwrap();
        let recorder = Arc::new(Recorder::default());
        let err = h
            .configmaps()
            .delete(&admitted_by(&recorder), "a", &DeleteOptions::default())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Forbidden { .. }), "{err:?}");
        assert!(
            h.configmaps()
                .get(Some("team"), "a")
                .await
                .unwrap()
                .is_some()
        );
        assert_eq!(
            recorder.seen(),
            [
                "mutate DELETE configmaps/v1 ns=Some(\"team\") name=a uid=false k= old=Some(\"1\") dry=false",
                "validate DELETE configmaps/v1 ns=Some(\"team\") name=a uid=true k=1 old=Some(\"1\") dry=false"
            ]
        );
    }

    pub async fn admission_is_told_that_a_write_is_a_dry_run(h: Harness) {
        let recorder = Arc::new(Recorder::default());
        let w = WriteContext {
            dry_run: true,
            ..admitted_by(&recorder)
        };
        h.configmaps()
            .create(&w, configmap("a", "1"))
            .await
            .unwrap();
        assert!(recorder.seen().iter().all(|s| s.ends_with("dry=true")));
        assert_eq!(recorder.seen().len(), 2);
        assert!(
            h.configmaps()
                .get(Some("team"), "a")
                .await
                .unwrap()
                .is_none()
        );
    }

    pub async fn an_update_with_an_invalid_label_is_invalid_and_changes_nothing(h: Harness) {
        let rest = h.configmaps();
        let created = rest.create(&in_team(), configmap("a", "1")).await.unwrap();
        let mut bad = configmap("a", "2");
        bad["metadata"]["labels"] = json!({"app": "not valid!"});
        let err = rest
            .update(&in_team(), "a", &mut put(bad))
            .await
            .unwrap_err();
        let Error::Invalid { causes, .. } = &err else {
            panic!("expected Invalid, got {err:?}");
        };
        assert_eq!(causes[0].field, "metadata.labels");
        let stored = rest.get_existing(Some("team"), "a").await.unwrap();
        assert_eq!(stored.object, created);
    }

    pub async fn an_update_naming_a_stale_resource_version_is_a_conflict(h: Harness) {
        let rest = h.configmaps();
        let created = rest.create(&in_team(), configmap("a", "1")).await.unwrap();
        let mut first = configmap("a", "2");
        first["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"].clone();
        rest.update(&in_team(), "a", &mut put(first.clone()))
            .await
            .unwrap();
        let err = rest
            .update(&in_team(), "a", &mut put(first))
            .await
            .unwrap_err();
        assert!(err.is_conflict(), "{err:?}");
        assert_eq!(
            err.to_string(),
            "Operation cannot be fulfilled on configmaps \"a\": the object has been modified; please apply your changes to the latest version and try again"
        );
        let stored = rest.get_existing(Some("team"), "a").await.unwrap();
        assert_eq!(stored.object["data"]["k"], "2");
    }

    pub async fn an_update_that_loses_a_race_is_recomputed_on_the_fresh_object(h: Harness) {
        h.configmaps()
            .create(&in_team(), configmap("a", "1"))
            .await
            .unwrap();
        let racing = RacingStore {
            inner: h.store.clone(),
            raced: std::sync::Mutex::new(Some(
                serde_json::to_vec(&configmap("a", "raced")).unwrap(),
            )),
        };
        let rest = RestStore::new(&racing, &h.table, h.entry("", "v1", "configmaps"));
        let calls = AtomicUsize::new(0);
        let mut info = UpdateFn::new(|current: Option<&Value>| {
            calls.fetch_add(1, Ordering::SeqCst);
            let mut next = current.cloned().unwrap_or_default();
            let seen = next["data"]["k"].as_str().unwrap_or("").to_owned();
            next["data"]["k"] = json!(format!("{seen}+mine"));
            Ok(next)
        });
        let updated = rest.update(&in_team(), "a", &mut info).await.unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        assert_eq!(updated.object["data"]["k"], "raced+mine");
    }

    /// R8.13: custom resources refuse updates without a resourceVersion.
    pub async fn a_custom_resource_update_without_resource_version_is_invalid(h: Harness) {
        let rest = h.widgets();
        rest.create(&in_team(), widget("w", "one")).await.unwrap();
        let err = rest
            .update(&in_team(), "w", &mut put(widget("w", "two")))
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "widgets.golden.example.com \"w\" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update"
        );
        let stored = rest.get_existing(Some("team"), "w").await.unwrap();
        assert_eq!(stored.object["spec"]["label"], "one");
    }

    /// R8.13: built-ins such as ConfigMaps allow unconditional updates.
    pub async fn a_configmap_update_without_resource_version_is_allowed(h: Harness) {
        let rest = h.configmaps();
        rest.create(&in_team(), configmap("a", "1")).await.unwrap();
        let updated = rest
            .update(&in_team(), "a", &mut put(configmap("a", "2")))
            .await
            .unwrap();
        assert_eq!(updated.object["data"]["k"], "2");
        assert!(!updated.created);
    }

    pub async fn an_update_of_a_missing_object_is_not_found(h: Harness) {
        let err = h
            .configmaps()
            .update(&in_team(), "nope", &mut put(configmap("nope", "1")))
            .await
            .unwrap_err();
        assert_eq!(err, Error::not_found("", "configmaps", "nope"));
    }

    pub async fn a_creating_update_creates_a_missing_object(h: Harness) {
        let mut info = put(configmap("new", "1")).creating();
        let updated = h
            .configmaps()
            .update(&in_team(), "new", &mut info)
            .await
            .unwrap();
        assert!(updated.created);
        assert!(!meta::meta_str(&updated.object, "uid").is_empty());
    }

    /// R8.12: a body naming another object is a 400.
    pub async fn an_update_whose_body_names_another_object_is_a_bad_request(h: Harness) {
        let rest = h.configmaps();
        rest.create(&in_team(), configmap("a", "1")).await.unwrap();
        let err = rest
            .update(&in_team(), "a", &mut put(configmap("b", "1")))
            .await
            .unwrap_err();
        assert_eq!(
            err,
            Error::bad_request("the name of the object (b) does not match the name on the URL (a)")
        );
    }

    pub async fn a_create_in_a_missing_namespace_is_not_found(h: Harness) {
        let w = WriteContext {
            namespace: Some("ghost".into()),
            ..in_team()
        };
        let err = h
            .configmaps()
            .create(&w, configmap("a", "1"))
            .await
            .unwrap_err();
        assert_eq!(err, Error::not_found("", "namespaces", "ghost"));
    }

    pub async fn a_dry_run_create_stores_nothing(h: Harness) {
        let w = WriteContext {
            dry_run: true,
            ..in_team()
        };
        let answered = h
            .configmaps()
            .create(&w, configmap("a", "1"))
            .await
            .unwrap();
        assert_eq!(meta::name(&answered), "a");
        assert!(
            h.configmaps()
                .get(Some("team"), "a")
                .await
                .unwrap()
                .is_none()
        );
    }

    /// R8.23, R8.24: finalizers keep a deleted object until an update removes them.
    pub async fn a_delete_with_finalizers_waits_for_them(h: Harness) {
        let rest = h.configmaps();
        let mut cm = configmap("a", "1");
        cm["metadata"]["finalizers"] = json!(["example.com/hold"]);
        rest.create(&in_team(), cm).await.unwrap();
        let deleted = rest
            .delete(&in_team(), "a", &DeleteOptions::default())
            .await
            .unwrap();
        let Deleted::Pending { object, accepted } = deleted else {
            panic!("expected a pending deletion, got {deleted:?}");
        };
        assert!(!accepted);
        assert!(!meta::meta_str(&object, "deletionTimestamp").is_empty());
        let mut released = object.clone();
        released["metadata"]["finalizers"] = json!([]);
        rest.update(&in_team(), "a", &mut put(released))
            .await
            .unwrap();
        assert!(rest.get(Some("team"), "a").await.unwrap().is_none());
    }

    pub async fn a_delete_whose_uid_precondition_fails_is_a_conflict(h: Harness) {
        let rest = h.configmaps();
        rest.create(&in_team(), configmap("a", "1")).await.unwrap();
        let opts = DeleteOptions {
            precondition_uid: Some("other".into()),
            ..DeleteOptions::default()
        };
        let err = rest.delete(&in_team(), "a", &opts).await.unwrap_err();
        assert!(err.is_conflict(), "{err:?}");
        assert!(
            err.to_string()
                .contains("Precondition failed: UID in precondition: other")
        );
        assert!(rest.get(Some("team"), "a").await.unwrap().is_some());
    }

    pub async fn a_foreground_delete_adds_the_foreground_finalizer(h: Harness) {
        let rest = h.configmaps();
        rest.create(&in_team(), configmap("a", "1")).await.unwrap();
        let opts = DeleteOptions {
            propagation: Some(Propagation::Foreground),
            ..DeleteOptions::default()
        };
        let Deleted::Pending { object, .. } = rest.delete(&in_team(), "a", &opts).await.unwrap()
        else {
            panic!("expected a pending deletion");
        };
        assert_eq!(
            meta::finalizers(&object),
            vec!["foregroundDeletion".to_owned()]
        );
    }

    pub async fn a_plain_delete_removes_the_object(h: Harness) {
        let rest = h.configmaps();
        rest.create(&in_team(), configmap("a", "1")).await.unwrap();
        let deleted = rest
            .delete(&in_team(), "a", &DeleteOptions::default())
            .await
            .unwrap();
        assert!(matches!(deleted, Deleted::Removed(_)));
        assert!(rest.get(Some("team"), "a").await.unwrap().is_none());
    }

    /// The removed object carries the revision of its deletion, as etcd3's store decodes
    /// it for kube's DELETE answer.
    pub async fn a_removed_object_carries_the_revision_of_its_deletion(h: Harness) {
        let rest = h.configmaps();
        let created = rest.create(&in_team(), configmap("a", "1")).await.unwrap();
        let Deleted::Removed(gone) = rest
            .delete(&in_team(), "a", &DeleteOptions::default())
            .await
            .unwrap()
        else {
            panic!("expected the object removed");
        };
        let rv = |v: &Value| meta::meta_str(v, "resourceVersion").parse::<i64>().unwrap();
        assert!(rv(&gone) > rv(&created));
        assert_eq!(rv(&gone), h.store.current_revision().await.unwrap());
    }

    /// A DeleteCollection answers the objects as listed (kube's `Store.DeleteCollection`
    /// returns its list), each with the resourceVersion it was listed at.
    pub async fn a_delete_collection_answers_the_objects_at_their_listed_versions(h: Harness) {
        let rest = h.configmaps();
        let mut listed = Vec::new();
        for name in ["a", "b"] {
            let created = rest.create(&in_team(), configmap(name, "1")).await.unwrap();
            listed.push(meta::meta_str(&created, "resourceVersion").to_owned());
        }
        for selected in [
            None,
            Some(&(|_: &Value| true) as &(dyn Fn(&Value) -> bool + Send + Sync)),
        ] {
            let deleted = rest
                .delete_collection(&in_team(), &DeleteOptions::default(), selected)
                .await
                .unwrap();
            let versions: Vec<&str> = deleted
                .items
                .iter()
                .map(|o| meta::meta_str(o, "resourceVersion"))
                .collect();
            assert_eq!(versions, listed);
            listed.clear();
            for name in ["a", "b"] {
                let created = rest.create(&in_team(), configmap(name, "1")).await.unwrap();
                listed.push(meta::meta_str(&created, "resourceVersion").to_owned());
            }
        }
    }

    pub async fn a_system_namespace_cannot_be_deleted(h: Harness) {
        let ns =
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kube-system"}});
        let rest = h.rest("", "v1", "namespaces");
        rest.create(&WriteContext::default(), ns).await.unwrap();
        let err = rest
            .delete(
                &WriteContext::default(),
                "kube-system",
                &DeleteOptions::default(),
            )
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Forbidden { .. }), "{err:?}");
    }

    /// DeleteCollection deletes what the selector keeps, each object as a single delete.
    pub async fn a_delete_collection_deletes_the_selected_objects_and_counts_those_pending(
        h: Harness,
    ) {
        let rest = h.configmaps();
        for (name, app, hold) in [("a", "web", false), ("b", "web", true), ("c", "db", false)] {
            let mut cm = configmap(name, "1");
            cm["metadata"]["labels"] = json!({"app": app});
            if hold {
                cm["metadata"]["finalizers"] = json!(["example.com/hold"]);
            }
            rest.create(&in_team(), cm).await.unwrap();
        }
        let web = |obj: &Value| obj["metadata"]["labels"]["app"] == "web";
        let deleted = rest
            .delete_collection(&in_team(), &DeleteOptions::default(), Some(&web))
            .await
            .unwrap();
        let names: Vec<&str> = deleted.items.iter().map(meta::name).collect();
        assert_eq!(names, vec!["a", "b"]);
        assert_eq!(deleted.pending, 1);
        assert!(rest.get(Some("team"), "a").await.unwrap().is_none());
        let b = rest.get(Some("team"), "b").await.unwrap().unwrap();
        assert!(!meta::meta_str(&b.object, "deletionTimestamp").is_empty());
        assert!(rest.get(Some("team"), "c").await.unwrap().is_some());
    }

    /// Without a selector every object of the namespace goes, named by its key.
    pub async fn a_delete_collection_without_a_selector_empties_the_namespace(h: Harness) {
        let rest = h.configmaps();
        for name in ["a", "b"] {
            rest.create(&in_team(), configmap(name, "1")).await.unwrap();
        }
        let deleted = rest
            .delete_collection(&in_team(), &DeleteOptions::default(), None)
            .await
            .unwrap();
        assert_eq!(deleted.items.len(), 2);
        assert_eq!(deleted.pending, 0);
        let prefix = h
            .entry("", "v1", "configmaps")
            .collection_prefix(Some("team"));
        let left = h.store.range(RangeRequest::prefix(prefix)).await.unwrap();
        assert!(left.kvs.is_empty());
    }

    /// A paged list reads every page at the first page's revision, with a continue token and
    /// remainingItemCount; an object created meanwhile is not on the next page.
    pub async fn a_paged_list_continues_at_one_revision(h: Harness) {
        let rest = h.configmaps();
        for name in ["a", "b", "c"] {
            rest.create(&in_team(), configmap(name, "1")).await.unwrap();
        }
        let all = Selection::default();
        let first_opts = ListOptions {
            limit: 2,
            ..ListOptions::default()
        };
        let first = rest
            .list(None, Some("team"), &first_opts, &all, false)
            .await
            .unwrap();
        assert_eq!(names(rest, first.items).await, vec!["a", "b"]);
        assert_eq!(first.remaining_item_count, Some(1));
        let token = first.continue_token.clone().expect("a continue token");
        rest.create(&in_team(), configmap("d", "1")).await.unwrap();
        let next_opts = ListOptions {
            limit: 2,
            continue_token: token,
            ..ListOptions::default()
        };
        let next = rest
            .list(None, Some("team"), &next_opts, &all, false)
            .await
            .unwrap();
        assert_eq!(next.revision, first.revision);
        assert_eq!(names(rest, next.items).await, vec!["c"]);
        assert_eq!(next.continue_token, None);
    }

    /// A field label the kind does not have is 400, before anything is read.
    pub async fn a_list_by_an_unknown_field_label_is_a_bad_request(h: Harness) {
        let opts = ListOptions {
            field_selector: "spec.color=red".into(),
            ..ListOptions::default()
        };
        let err = Selection::new(&h.configmaps(), &opts, None).unwrap_err();
        assert_eq!(
            err,
            Error::BadRequest("field label not supported: spec.color".into())
        );
    }

    /// resourceVersion=0 is answered from the watch cache (R2.x), selectors applied.
    pub async fn a_list_at_resource_version_zero_comes_from_the_watch_cache(h: Harness) {
        let rest = h.configmaps();
        let caches = WatchCaches::new(h.store.clone());
        let mut labelled = configmap("a", "1");
        labelled["metadata"]["labels"] = json!({"app": "web"});
        rest.create(&in_team(), labelled).await.unwrap();
        rest.create(&in_team(), configmap("b", "1")).await.unwrap();
        let opts = ListOptions {
            resource_version: "0".into(),
            label_selector: "app=web".into(),
            ..ListOptions::default()
        };
        let selection = Selection::new(&rest, &opts, None).unwrap();
        let page = rest
            .list(Some(&caches), Some("team"), &opts, &selection, false)
            .await
            .unwrap();
        assert_eq!(names(rest, page.items).await, vec!["a"]);
        let cacher = caches.all();
        assert_eq!(cacher.len(), 1, "the list loaded the resource's cache");
        assert_eq!(page.revision, cacher[0].revision());
    }

    /// A list without a resourceVersion (a consistent read) is answered by the watch cache
    /// once it has caught up with the store (kube's consistent reads from the cache), and
    /// sees a write made just before it.
    pub async fn a_consistent_list_is_answered_by_the_watch_cache_once_it_caught_up(h: Harness) {
        let rest = h.configmaps();
        let caches = WatchCaches::new(h.store.clone());
        rest.create(&in_team(), configmap("a", "1")).await.unwrap();
        let all = Selection::default();
        let opts = ListOptions::default();
        let first = rest
            .list(Some(&caches), Some("team"), &opts, &all, true)
            .await
            .unwrap();
        assert_eq!(names(rest, first.items).await, vec!["a"]);
        let written = rest.create(&in_team(), configmap("b", "1")).await.unwrap();
        let page = rest
            .list(Some(&caches), Some("team"), &opts, &all, true)
            .await
            .unwrap();
        assert!(page.items.iter().all(|i| matches!(i, Item::Cached(_))));
        assert_eq!(names(rest, page.items).await, vec!["a", "b"]);
        let written: i64 = meta::resource_version(&written).parse().unwrap();
        assert!(page.revision >= written);
        let cacher = &caches.all()[0];
        assert_eq!(cacher.lists(), 2);
        assert_eq!(cacher.consistent_reads(), (2, 0));
    }

    /// A write under another resource moves the store's revision past the cache's; the
    /// consistent list asks the store watch for progress instead of waiting out its
    /// deadline and reading the store.
    pub async fn a_consistent_list_after_a_write_elsewhere_is_still_answered_by_the_cache(
        h: Harness,
    ) {
        let rest = h.configmaps();
        let caches = WatchCaches::new(h.store.clone());
        rest.create(&in_team(), configmap("a", "1")).await.unwrap();
        let all = Selection::default();
        let opts = ListOptions::default();
        rest.list(Some(&caches), Some("team"), &opts, &all, true)
            .await
            .unwrap();
        h.store
            .put(b"/registry/elsewhere/x", b"{}".to_vec())
            .await
            .unwrap();
        let page = rest
            .list(Some(&caches), Some("team"), &opts, &all, true)
            .await
            .unwrap();
        assert_eq!(names(rest, page.items).await, vec!["a"]);
        assert_eq!(caches.all()[0].consistent_reads(), (2, 0));
    }

    /// A paged list's next page comes from the watch cache while nothing under the resource
    /// changed since the first page, at the first page's revision.
    pub async fn a_continued_page_comes_from_the_cache_while_nothing_changed(h: Harness) {
        let rest = h.configmaps();
        let caches = WatchCaches::new(h.store.clone());
        create_in_team(&rest, &["a", "b", "c"]).await;
        let first = page_of_two(&rest, &caches, "").await;
        assert_eq!(first.remaining_item_count, Some(1));
        let token = first.continue_token.clone().expect("a continue token");
        let next = page_of_two(&rest, &caches, &token).await;
        assert_eq!(next.revision, first.revision);
        assert_eq!(names(rest, next.items).await, vec!["c"]);
        assert_eq!(next.continue_token, None);
        assert_eq!(caches.all()[0].lists(), 2);
    }

    /// Once an object under the resource changed, the next page is read from the store at the
    /// first page's revision: the new object is not on it.
    pub async fn a_continued_page_after_a_change_is_read_at_the_first_pages_revision(h: Harness) {
        let rest = h.configmaps();
        let caches = WatchCaches::new(h.store.clone());
        create_in_team(&rest, &["a", "b", "c"]).await;
        let first = page_of_two(&rest, &caches, "").await;
        let written = rest.create(&in_team(), configmap("bb", "1")).await.unwrap();
        let written: i64 = meta::resource_version(&written).parse().unwrap();
        let cacher = caches.all()[0].clone();
        assert!(cacher.wait_for(written, Duration::from_secs(10)).await);
        let token = first.continue_token.clone().expect("a continue token");
        let next = page_of_two(&rest, &caches, &token).await;
        assert_eq!(next.revision, first.revision);
        assert_eq!(names(rest, next.items).await, vec!["c"]);
        assert_eq!(cacher.lists(), 1, "the store answered the second page");
    }

    /// A selector on a paged list from the cache fills each page with matching objects and
    /// continues after the last object examined.
    pub async fn a_filtered_paged_list_from_the_cache_fills_its_pages(h: Harness) {
        let rest = h.configmaps();
        let caches = WatchCaches::new(h.store.clone());
        for (name, app) in [("a", "web"), ("b", "db"), ("c", "web"), ("d", "web")] {
            let mut cm = configmap(name, "1");
            cm["metadata"]["labels"] = json!({"app": app});
            rest.create(&in_team(), cm).await.unwrap();
        }
        let mut opts = ListOptions {
            limit: 2,
            label_selector: "app=web".into(),
            ..ListOptions::default()
        };
        let selection = Selection::new(&rest, &opts, None).unwrap();
        let first = rest
            .list(Some(&caches), Some("team"), &opts, &selection, true)
            .await
            .unwrap();
        assert_eq!(names(rest, first.items).await, vec!["a", "c"]);
        assert_eq!(first.remaining_item_count, None);
        opts.continue_token = first.continue_token.expect("a continue token");
        let next = rest
            .list(Some(&caches), Some("team"), &opts, &selection, true)
            .await
            .unwrap();
        assert_eq!(names(rest, next.items).await, vec!["d"]);
        assert_eq!(next.continue_token, None);
        assert_eq!(caches.all()[0].lists(), 2);
    }

    /// A namespace being deleted stays (Terminating) while `spec.finalizers` holds it.
    pub async fn a_deleted_namespace_stays_terminating_until_finalized(h: Harness) {
        let rest = h.rest("", "v1", "namespaces");
        let deleted = rest
            .delete(&WriteContext::default(), "team", &DeleteOptions::default())
            .await
            .unwrap();
        let Deleted::Pending { object, .. } = deleted else {
            panic!("expected a pending deletion, got {deleted:?}");
        };
        assert_eq!(object["status"]["phase"], "Terminating");
        let err = h
            .configmaps()
            .create(&in_team(), configmap("a", "1"))
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Forbidden { .. }), "{err:?}");
    }
}

backend_suite!(
    a_consistent_list_is_answered_by_the_watch_cache_once_it_caught_up,
    a_consistent_list_after_a_write_elsewhere_is_still_answered_by_the_cache,
    a_continued_page_comes_from_the_cache_while_nothing_changed,
    a_continued_page_after_a_change_is_read_at_the_first_pages_revision,
    a_filtered_paged_list_from_the_cache_fills_its_pages,
    admission_mutates_a_create_before_it_is_prepared_and_validates_what_is_stored,
    a_create_refused_by_validating_admission_stores_nothing,
    admission_of_an_update_sees_the_stored_object_as_old,
    a_delete_passes_mutating_then_validating_admission_and_a_refusal_keeps_it,
    admission_is_told_that_a_write_is_a_dry_run,
    an_update_with_an_invalid_label_is_invalid_and_changes_nothing,
    an_update_naming_a_stale_resource_version_is_a_conflict,
    an_update_that_loses_a_race_is_recomputed_on_the_fresh_object,
    a_custom_resource_update_without_resource_version_is_invalid,
    a_configmap_update_without_resource_version_is_allowed,
    an_update_of_a_missing_object_is_not_found,
    a_creating_update_creates_a_missing_object,
    an_update_whose_body_names_another_object_is_a_bad_request,
    a_create_in_a_missing_namespace_is_not_found,
    a_dry_run_create_stores_nothing,
    a_delete_with_finalizers_waits_for_them,
    a_delete_whose_uid_precondition_fails_is_a_conflict,
    a_foreground_delete_adds_the_foreground_finalizer,
    a_plain_delete_removes_the_object,
    a_removed_object_carries_the_revision_of_its_deletion,
    a_delete_collection_answers_the_objects_at_their_listed_versions,
    a_system_namespace_cannot_be_deleted,
    a_deleted_namespace_stays_terminating_until_finalized,
    a_delete_collection_deletes_the_selected_objects_and_counts_those_pending,
    a_delete_collection_without_a_selector_empties_the_namespace,
    a_paged_list_continues_at_one_revision,
    a_list_by_an_unknown_field_label_is_a_bad_request,
    a_list_at_resource_version_zero_comes_from_the_watch_cache,
);
