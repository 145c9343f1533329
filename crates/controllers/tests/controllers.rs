//! The controllers without HTTP, on the embedded store and on a real etcd: each case runs on
//! both backends. Leader election (one holder, takeover on expiry or release), the CRD
//! controller's names and cleanup, and an elected controller handing over to another
//! process.

#[path = "../../registry/tests/support/mod.rs"]
#[macro_use]
mod support;

use kapi_controllers::context::NoHooks;
use kapi_controllers::leader::{Elector, NAMESPACE};
use kapi_controllers::{Context, ControllerOptions, LeaseTiming};
use kapi_registry::cache::WatchCaches;
use kapi_registry::entry::{Registry, RegistryTable, ResourceEntry};
use kapi_registry::rest::options::{DeleteOptions, Propagation};
use kapi_registry::rest::{Deleted, RestStore, UpdateFn, WriteContext};
use kapi_registry::{Error, meta};
use kapi_storage::Store;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use support::Backend;

/// One kapi process's controllers: their context and the switch that shuts them down.
struct Process {
    ctx: Arc<Context>,
    shutdown: tokio::sync::watch::Sender<bool>,
}

impl Process {
    /// A process over `backend`'s store with the built-ins (JSON codecs) and the
    /// StorageVersionMigration API; `kube-system` and `default` exist.
    async fn new(backend: &Backend) -> Self {
        let registry = Arc::new(Registry::new());
        registry.upsert(kapi_registry::builtin::json_entries("/registry"));
        registry.upsert(kapi_registry::storage_migration::api::entries("/registry"));
        let (shutdown, rx) = tokio::sync::watch::channel(false);
        let ctx = Arc::new(Context {
            registry,
            store: backend.store.clone(),
            caches: Arc::new(WatchCaches::new(backend.store.clone())),
            webhooks: Default::default(),
            hooks: Arc::new(NoHooks),
            shutdown: rx,
            root_ca: Some(TEST_CA.into()),
            token_signer: Some(Arc::new(
                kapi_serviceaccount::SigningKey::generate()
                    .expect("a signing key")
                    .0,
            )),
        });
        let p = Self { ctx, shutdown };
        for ns in ["kube-system", "default"] {
            let obj = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
            let created = p
                .resource("", "v1", "namespaces")
                .rest()
                .create(&WriteContext::default(), obj)
                .await;
            match created {
                Ok(_) | Err(Error::AlreadyExists { .. }) => {}
                Err(e) => panic!("namespace {ns}: {e}"),
            }
        }
        p
    }

    fn entry(&self, group: &str, version: &str, resource: &str) -> Option<Arc<ResourceEntry>> {
        self.ctx
            .registry
            .snapshot()
            .get(group, version, resource)
            .cloned()
    }

    /// A served resource, to write through its REST store.
    fn resource(&self, group: &str, version: &str, resource: &str) -> Resource {
        let table = self.ctx.registry.snapshot();
        let entry = table
            .get(group, version, resource)
            .cloned()
            .unwrap_or_else(|| panic!("{group}/{version} {resource} is served"));
        Resource {
            store: self.ctx.store.clone(),
            table,
            entry,
        }
    }

    async fn start(&self, election: Option<LeaseTiming>) {
        kapi_controllers::start(
            self.ctx.clone(),
            &ControllerOptions {
                election,
                ..ControllerOptions::default()
            },
        )
        .await;
    }

    async fn get(
        &self,
        group: &str,
        version: &str,
        resource: &str,
        ns: Option<&str>,
        name: &str,
    ) -> Option<Value> {
        self.resource(group, version, resource)
            .rest()
            .get(ns, name)
            .await
            .expect("get")
            .map(|s| s.object)
    }

    async fn crd(&self) -> Option<Value> {
        self.get(
            "apiextensions.k8s.io",
            "v1",
            "customresourcedefinitions",
            None,
            WIDGETS_CRD,
        )
        .await
    }
}

/// A resource's entry with the registry snapshot and store it was served from.
struct Resource {
    store: Arc<dyn Store>,
    table: Arc<RegistryTable>,
    entry: Arc<ResourceEntry>,
}

impl Resource {
    fn rest(&self) -> RestStore<'_> {
        RestStore::new(self.store.as_ref(), &self.table, &self.entry)
    }
}

const WIDGETS_CRD: &str = "widgets.golden.example.com";
const WIDGETS: (&str, &str, &str) = ("golden.example.com", "v1alpha1", "widgets");

/// Polls `check` every 20 ms for up to 20 s.
async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..1000 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("timed out waiting for {what}");
}

fn condition<'a>(obj: &'a Value, kind: &str) -> Option<&'a Value> {
    obj["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)
}

async fn create_widgets_crd(p: &Process) {
    let crd = kapi_testsupport::widget_webhook::widget_crd(json!({"strategy": "None"}));
    p.resource("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        .rest()
        .create(&WriteContext::default(), crd)
        .await
        .expect("CRD created");
}

async fn wait_served(p: &Process) {
    let (g, v, r) = WIDGETS;
    eventually("the widgets to be served", || async {
        p.entry(g, v, r).is_some()
    })
    .await;
}

fn widget(name: &str, finalizers: &[&str]) -> Value {
    json!({"apiVersion": "golden.example.com/v1alpha1", "kind": "Widget",
        "metadata": {"name": name, "finalizers": finalizers},
        "spec": {"color": "red", "replicas": 1}})
}

async fn create_widget(p: &Process, name: &str, finalizers: &[&str]) -> Result<Value, Error> {
    let (g, v, r) = WIDGETS;
    let ctx = WriteContext {
        namespace: Some("default".into()),
        ..WriteContext::default()
    };
    p.resource(g, v, r)
        .rest()
        .create(&ctx, widget(name, finalizers))
        .await
}

/// Two candidates for one lease on one store, as two kapi processes on one etcd.
async fn candidates(backend: &Backend, timing: LeaseTiming) -> (Process, Elector, Elector) {
    let p = Process::new(backend).await;
    let a = Elector::new(p.ctx.clone(), "test-lease", timing);
    let b = Elector::new(p.ctx.clone(), "test-lease", timing);
    (p, a, b)
}

const FAST: LeaseTiming = LeaseTiming {
    duration: Duration::from_secs(1),
    retry_period: Duration::from_millis(50),
};

async fn lease(p: &Process, name: &str) -> Value {
    lease_if_any(p, name).await.expect("the lease exists")
}

/// An owner reference to `owner` (an object as stored).
fn owner_ref(owner: &Value, block: bool) -> Value {
    json!({"apiVersion": owner["apiVersion"], "kind": owner["kind"],
        "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
        "blockOwnerDeletion": block})
}

/// Creates the ConfigMap `name` in `default` with `owners` and `finalizers`.
async fn configmap(p: &Process, name: &str, owners: &[Value], finalizers: &[&str]) -> Value {
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "ownerReferences": owners, "finalizers": finalizers}});
    p.resource("", "v1", "configmaps")
        .rest()
        .create(&in_default(), cm)
        .await
        .unwrap_or_else(|e| panic!("configmap {name}: {e}"))
}

fn in_default() -> WriteContext {
    WriteContext {
        namespace: Some("default".into()),
        ..WriteContext::default()
    }
}

async fn cm(p: &Process, name: &str) -> Option<Value> {
    p.get("", "v1", "configmaps", Some("default"), name).await
}

async fn delete_cm(p: &Process, name: &str, propagation: Option<Propagation>) -> Deleted {
    let opts = DeleteOptions {
        propagation,
        ..DeleteOptions::default()
    };
    p.resource("", "v1", "configmaps")
        .rest()
        .delete(&in_default(), name, &opts)
        .await
        .unwrap()
}

async fn release_finalizers(p: &Process, name: &str) {
    let mut release = UpdateFn::new(|cur: Option<&Value>| {
        let mut obj = cur.cloned().unwrap_or_default();
        meta::set_meta(&mut obj, "finalizers", None);
        Ok(obj)
    });
    p.resource("", "v1", "configmaps")
        .rest()
        .update(&in_default(), name, &mut release)
        .await
        .unwrap();
}

/// The holderIdentity of the namespace controller's lease.
async fn holder(p: &Process) -> Option<Value> {
    lease_if_any(p, "kapi-namespace-controller")
        .await
        .map(|l| l["spec"]["holderIdentity"].clone())
}

async fn lease_if_any(p: &Process, name: &str) -> Option<Value> {
    p.get("coordination.k8s.io", "v1", "leases", Some(NAMESPACE), name)
        .await
}

/// The CA bundle the test processes publish.
const TEST_CA: &str = "-----BEGIN CERTIFICATE-----\ntest\n-----END CERTIFICATE-----\n";

/// Creates the namespace `name`.
async fn namespace(p: &Process, name: &str) {
    let obj = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
    p.resource("", "v1", "namespaces")
        .rest()
        .create(&WriteContext::default(), obj)
        .await
        .unwrap_or_else(|e| panic!("namespace {name}: {e}"));
}

async fn service_account(p: &Process, ns: &str, name: &str) -> Option<Value> {
    p.get("", "v1", "serviceaccounts", Some(ns), name).await
}

async fn secret(p: &Process, ns: &str, name: &str) -> Option<Value> {
    p.get("", "v1", "secrets", Some(ns), name).await
}

/// Creates ServiceAccount `robot` and its token Secret `robot-token` in `default`.
async fn robot_with_token_secret(p: &Process) -> Value {
    let sa = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}});
    let sa = p
        .resource("", "v1", "serviceaccounts")
        .rest()
        .create(&in_default(), sa)
        .await
        .unwrap();
    let s = json!({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
        "metadata": {"name": "robot-token",
            "annotations": {"kubernetes.io/service-account.name": "robot"}}});
    p.resource("", "v1", "secrets")
        .rest()
        .create(&in_default(), s)
        .await
        .unwrap();
    sa
}

async fn root_ca(p: &Process, ns: &str) -> Option<Value> {
    p.get("", "v1", "configmaps", Some(ns), "kube-root-ca.crt")
        .await
}

mod cases {
    use super::*;

    pub async fn one_candidate_holds_the_lease_while_it_renews(backend: Backend) {
        let (p, a, b) = candidates(&backend, FAST).await;
        assert!(a.try_acquire_or_renew().await.unwrap());
        for _ in 0..10 {
            assert!(!b.try_acquire_or_renew().await.unwrap());
            tokio::time::sleep(Duration::from_millis(50)).await;
            assert!(a.try_acquire_or_renew().await.unwrap());
        }
        let held = lease(&p, "test-lease").await;
        assert_eq!(held["spec"]["holderIdentity"], a.identity());
        assert_eq!(held["spec"]["leaseTransitions"], 0);
        assert_eq!(held["spec"]["leaseDurationSeconds"], 1);
    }

    pub async fn a_lease_not_renewed_for_its_duration_is_taken_over(backend: Backend) {
        let (p, a, b) = candidates(&backend, FAST).await;
        assert!(a.try_acquire_or_renew().await.unwrap());
        assert!(!b.try_acquire_or_renew().await.unwrap());
        // a stops renewing (as if killed); b waits out the lease on its own clock.
        tokio::time::sleep(Duration::from_millis(1050)).await;
        assert!(b.try_acquire_or_renew().await.unwrap());
        let held = lease(&p, "test-lease").await;
        assert_eq!(held["spec"]["holderIdentity"], b.identity());
        assert_eq!(held["spec"]["leaseTransitions"], 1);
        assert!(!a.try_acquire_or_renew().await.unwrap());
    }

    pub async fn a_released_lease_is_taken_at_once(backend: Backend) {
        let (_p, a, b) = candidates(&backend, LeaseTiming::default()).await;
        assert!(a.try_acquire_or_renew().await.unwrap());
        a.release().await.unwrap();
        assert!(b.try_acquire_or_renew().await.unwrap());
    }

    pub async fn hold_returns_when_another_candidate_takes_the_lease(backend: Backend) {
        let (_p, a, b) = candidates(&backend, FAST).await;
        assert!(a.try_acquire_or_renew().await.unwrap());
        a.release().await.unwrap();
        assert!(b.try_acquire_or_renew().await.unwrap());
        // a believes it leads and renews: the renewal finds b's lease and gives up.
        tokio::time::timeout(Duration::from_secs(5), a.hold())
            .await
            .unwrap();
    }

    pub async fn a_crd_is_established_through_its_status_subresource(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        create_widgets_crd(&p).await;
        wait_served(&p).await;
        let crd = p.crd().await.expect("the CRD");
        assert_eq!(condition(&crd, "NamesAccepted").unwrap()["status"], "True");
        assert_eq!(condition(&crd, "Established").unwrap()["status"], "True");
        assert_eq!(crd["status"]["acceptedNames"]["kind"], "Widget");
        // Written as kube-apiserver writes it: an Update of the status subresource.
        let managed = crd["metadata"]["managedFields"].as_array().unwrap();
        assert!(
            managed
                .iter()
                .any(|m| m["manager"] == "kube-apiserver" && m["subresource"] == "status"),
            "{managed:?}"
        );
    }

    pub async fn a_deleted_crd_refuses_creates_and_waits_for_its_objects_finalizers(
        backend: Backend,
    ) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        create_widgets_crd(&p).await;
        wait_served(&p).await;
        create_widget(&p, "kept", &["example.com/hold"])
            .await
            .unwrap();
        create_widget(&p, "plain", &[]).await.unwrap();
        let deleted = p
            .resource("apiextensions.k8s.io", "v1", "customresourcedefinitions")
            .rest()
            .delete(
                &WriteContext::default(),
                WIDGETS_CRD,
                &DeleteOptions::default(),
            )
            .await
            .unwrap();
        assert!(matches!(deleted, Deleted::Pending { .. }), "{deleted:?}");
        let (g, v, r) = WIDGETS;
        eventually("the plain widget to go", || async {
            p.get(g, v, r, Some("default"), "plain").await.is_none()
        })
        .await;
        let crd = p.crd().await.expect("the CRD waits for the kept widget");
        let terminating = condition(&crd, "Terminating").unwrap();
        assert_eq!(terminating["status"], "True");
        assert_eq!(terminating["reason"], "InstanceDeletionInProgress");
        // Still served, so the finalizer can be removed; creates are refused.
        match create_widget(&p, "late", &[]).await {
            Err(Error::MethodNotSupported { message, .. }) => assert_eq!(
                message,
                "create not allowed while custom resource definition is terminating"
            ),
            other => panic!("expected a refused create, got {other:?}"),
        }
        let ctx = WriteContext {
            namespace: Some("default".into()),
            ..WriteContext::default()
        };
        let mut release = UpdateFn::new(|cur: Option<&Value>| {
            let mut obj = cur.cloned().unwrap_or_default();
            meta::set_meta(&mut obj, "finalizers", None);
            Ok(obj)
        });
        p.resource(g, v, r)
            .rest()
            .update(&ctx, "kept", &mut release)
            .await
            .unwrap();
        eventually("the CRD to go", || async { p.crd().await.is_none() }).await;
        eventually("the widgets to be unserved", || async {
            p.entry(g, v, r).is_none()
        })
        .await;
    }

    /// Background (the default): the owner goes at once, its dependents after it.
    pub async fn a_background_delete_collects_the_dependents(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        let owner = configmap(&p, "owner", &[], &[]).await;
        configmap(&p, "a", &[owner_ref(&owner, false)], &[]).await;
        configmap(&p, "b", &[owner_ref(&owner, true)], &[]).await;
        configmap(&p, "unrelated", &[], &[]).await;
        assert!(matches!(
            delete_cm(&p, "owner", None).await,
            Deleted::Removed(_)
        ));
        eventually("the dependents to be collected", || async {
            cm(&p, "a").await.is_none() && cm(&p, "b").await.is_none()
        })
        .await;
        assert!(cm(&p, "unrelated").await.is_some());
    }

    /// Foreground: the owner waits for the dependents that block it, which wait for their
    /// own finalizers; a dependent that does not block goes after the owner.
    pub async fn a_foreground_delete_waits_for_blocking_dependents(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        let owner = configmap(&p, "owner", &[], &[]).await;
        configmap(
            &p,
            "held",
            &[owner_ref(&owner, true)],
            &["example.com/hold"],
        )
        .await;
        configmap(&p, "loose", &[owner_ref(&owner, false)], &[]).await;
        let deleted = delete_cm(&p, "owner", Some(Propagation::Foreground)).await;
        assert!(matches!(deleted, Deleted::Pending { .. }), "{deleted:?}");
        eventually("the blocking dependent to be deleting", || async {
            cm(&p, "held")
                .await
                .is_some_and(|h| !meta::meta_str(&h, "deletionTimestamp").is_empty())
        })
        .await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let waiting = cm(&p, "owner").await.expect("the owner waits");
        assert_eq!(
            meta::finalizers(&waiting),
            vec!["foregroundDeletion".to_owned()]
        );
        release_finalizers(&p, "held").await;
        eventually("owner and dependents to go", || async {
            cm(&p, "owner").await.is_none()
                && cm(&p, "held").await.is_none()
                && cm(&p, "loose").await.is_none()
        })
        .await;
    }

    /// Orphan: the dependents stay, without their reference to the owner.
    pub async fn an_orphan_delete_keeps_the_dependents_without_the_reference(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        let owner = configmap(&p, "owner", &[], &[]).await;
        let other = configmap(&p, "other", &[], &[]).await;
        configmap(&p, "a", &[owner_ref(&owner, true)], &[]).await;
        configmap(
            &p,
            "b",
            &[owner_ref(&owner, false), owner_ref(&other, false)],
            &[],
        )
        .await;
        delete_cm(&p, "owner", Some(Propagation::Orphan)).await;
        eventually("the owner to go", || async {
            cm(&p, "owner").await.is_none()
        })
        .await;
        let a = cm(&p, "a").await.expect("a is orphaned, not deleted");
        assert!(a["metadata"]["ownerReferences"].is_null(), "{a}");
        let b = cm(&p, "b").await.expect("b stays");
        assert_eq!(
            b["metadata"]["ownerReferences"],
            json!([owner_ref(&other, false)])
        );
    }

    /// A cascade that happened while no collector ran (a kapi killed mid-way) finishes when
    /// one starts: the graph is built from lists. A dependent keeping another owner only
    /// loses the dangling reference; one of a kind nobody serves is kept.
    pub async fn a_collector_that_starts_late_finishes_the_cascade(backend: Backend) {
        let p = Process::new(&backend).await;
        let owner = configmap(&p, "owner", &[], &[]).await;
        let kept = configmap(&p, "kept", &[], &[]).await;
        configmap(&p, "a", &[owner_ref(&owner, false)], &[]).await;
        configmap(
            &p,
            "b",
            &[owner_ref(&owner, false), owner_ref(&kept, false)],
            &[],
        )
        .await;
        let unknown = json!({"apiVersion": "example.com/v1", "kind": "Nothing",
            "name": "x", "uid": "00000000-0000-0000-0000-000000000000"});
        configmap(&p, "c", &[unknown], &[]).await;
        delete_cm(&p, "owner", None).await;
        p.start(None).await;
        eventually("the dangling dependent to be collected", || async {
            cm(&p, "a").await.is_none()
        })
        .await;
        eventually("the dangling reference to be removed", || async {
            cm(&p, "b").await.is_some_and(|b| {
                b["metadata"]["ownerReferences"] == json!([owner_ref(&kept, false)])
            })
        })
        .await;
        assert!(
            cm(&p, "c").await.is_some(),
            "an unresolvable owner keeps its dependent"
        );
    }

    /// A dependent whose owner reference names the uid of an object in another namespace is
    /// collected as dangling (a namespaced owner is only looked for in its dependent's
    /// namespace, as upstream's collector does); the object and its real dependents stay.
    pub async fn an_owner_in_another_namespace_does_not_keep_a_dependent(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        namespace(&p, "other").await;
        let in_other = WriteContext {
            namespace: Some("other".into()),
            ..WriteContext::default()
        };
        let configmaps = p.resource("", "v1", "configmaps");
        let owner = configmaps
            .rest()
            .create(
                &in_other,
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner"}}),
            )
            .await
            .unwrap();
        let real = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "real", "ownerReferences": [owner_ref(&owner, false)]}});
        configmaps.rest().create(&in_other, real).await.unwrap();
        configmap(&p, "stray", &[owner_ref(&owner, false)], &[]).await;
        eventually("the stray dependent to be collected", || async {
            cm(&p, "stray").await.is_none()
        })
        .await;
        let other_cm = |name: &'static str| {
            let p = &p;
            async move { p.get("", "v1", "configmaps", Some("other"), name).await }
        };
        assert!(other_cm("owner").await.is_some());
        let real = other_cm("real").await.expect("the real dependent stays");
        assert_eq!(
            real["metadata"]["ownerReferences"],
            json!([owner_ref(&owner, false)])
        );
    }

    /// A cluster-scoped owner keeps its namespaced dependents until it is deleted, then
    /// takes them along.
    pub async fn a_cluster_scoped_owner_takes_its_namespaced_dependents_along(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        let roles = p.resource("rbac.authorization.k8s.io", "v1", "clusterroles");
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "owner"}, "rules": []});
        let owner = roles
            .rest()
            .create(&WriteContext::default(), role)
            .await
            .unwrap();
        configmap(&p, "owned", &[owner_ref(&owner, true)], &[]).await;
        // A dependent of an owner that never existed, collected: the collector has looked.
        let ghost = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "ghost", "uid": "00000000-0000-0000-0000-00000000dead"}});
        configmap(&p, "orphaned", &[owner_ref(&ghost, false)], &[]).await;
        eventually("the ghost's dependent to be collected", || async {
            cm(&p, "orphaned").await.is_none()
        })
        .await;
        assert!(
            cm(&p, "owned").await.is_some(),
            "a cluster-scoped owner holds"
        );
        roles
            .rest()
            .delete(&WriteContext::default(), "owner", &DeleteOptions::default())
            .await
            .unwrap();
        eventually("the cluster role's configmap to be collected", || async {
            cm(&p, "owned").await.is_none()
        })
        .await;
    }

    /// A custom resource owns ConfigMaps: deleting it collects them (the CRD is served after
    /// the collector started, and followed from then on).
    pub async fn a_custom_resource_owning_configmaps_takes_them_along(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        create_widgets_crd(&p).await;
        wait_served(&p).await;
        let owner = create_widget(&p, "owner", &[]).await.unwrap();
        configmap(&p, "a", &[owner_ref(&owner, true)], &[]).await;
        let (g, v, r) = WIDGETS;
        p.resource(g, v, r)
            .rest()
            .delete(&in_default(), "owner", &DeleteOptions::default())
            .await
            .unwrap();
        eventually("the widget's configmap to be collected", || async {
            cm(&p, "a").await.is_none()
        })
        .await;
    }

    pub async fn an_elected_controller_hands_over_when_its_leader_stops(backend: Backend) {
        let a = Process::new(&backend).await;
        let b = Process::new(&backend).await;
        a.start(Some(FAST)).await;
        eventually("a to lead the namespace controller", || async {
            holder(&a).await.is_some()
        })
        .await;
        b.start(Some(FAST)).await;
        let first = holder(&a).await.expect("a holder");
        // a shuts down and gives the lease up; b takes it and finalizes namespaces.
        a.shutdown.send(true).unwrap();
        eventually("b to take the lease", || async {
            holder(&b)
                .await
                .is_some_and(|h| h != first && h.is_string())
        })
        .await;
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gone"}});
        let namespaces = b.resource("", "v1", "namespaces");
        let w = WriteContext::default();
        namespaces.rest().create(&w, ns).await.unwrap();
        namespaces
            .rest()
            .delete(&w, "gone", &DeleteOptions::default())
            .await
            .unwrap();
        eventually("the namespace to be finalized by b", || async {
            b.get("", "v1", "namespaces", None, "gone").await.is_none()
        })
        .await;
        let held = lease(&b, "kapi-namespace-controller").await;
        assert_eq!(held["spec"]["leaseTransitions"], 1, "{held}");
    }

    pub async fn a_new_namespace_gets_a_default_service_account(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        namespace(&p, "team-a").await;
        eventually("team-a's default service account", || async {
            service_account(&p, "team-a", "default").await.is_some()
        })
        .await;
        let sa = service_account(&p, "team-a", "default").await.unwrap();
        assert_eq!(sa["kind"], "ServiceAccount");
        assert_eq!(sa["metadata"]["namespace"], "team-a");
    }

    pub async fn a_deleted_default_service_account_is_made_again(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        eventually("default's service account", || async {
            service_account(&p, "default", "default").await.is_some()
        })
        .await;
        let first = service_account(&p, "default", "default").await.unwrap();
        p.resource("", "v1", "serviceaccounts")
            .rest()
            .delete(&in_default(), "default", &DeleteOptions::default())
            .await
            .unwrap();
        eventually("a new default service account", || async {
            service_account(&p, "default", "default")
                .await
                .is_some_and(|sa| sa["metadata"]["uid"] != first["metadata"]["uid"])
        })
        .await;
    }

    pub async fn a_new_namespace_gets_the_root_ca_config_map(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        namespace(&p, "team-b").await;
        eventually("team-b's kube-root-ca.crt", || async {
            root_ca(&p, "team-b").await.is_some()
        })
        .await;
        let cm = root_ca(&p, "team-b").await.unwrap();
        assert_eq!(cm["data"], json!({"ca.crt": TEST_CA}));
        let description = cm["metadata"]["annotations"]["kubernetes.io/description"]
            .as_str()
            .unwrap();
        assert!(
            description.starts_with("Contains a CA bundle"),
            "{description}"
        );
    }

    pub async fn an_edited_root_ca_config_map_is_put_back(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        eventually("default's kube-root-ca.crt", || async {
            root_ca(&p, "default").await.is_some()
        })
        .await;
        let mut edit = UpdateFn::new(|cur: Option<&Value>| {
            let mut cm = cur.cloned().unwrap_or_default();
            cm["data"] = json!({"ca.crt": "forged"});
            Ok(cm)
        });
        p.resource("", "v1", "configmaps")
            .rest()
            .update(&in_default(), "kube-root-ca.crt", &mut edit)
            .await
            .unwrap();
        eventually("the CA bundle put back", || async {
            root_ca(&p, "default")
                .await
                .is_some_and(|cm| cm["data"] == json!({"ca.crt": TEST_CA}))
        })
        .await;
    }

    pub async fn a_token_secret_gets_a_legacy_token_of_its_service_account(backend: Backend) {
        use base64::Engine;
        let p = Process::new(&backend).await;
        p.start(None).await;
        let sa = robot_with_token_secret(&p).await;
        eventually("the token filled in", || async {
            secret(&p, "default", "robot-token")
                .await
                .is_some_and(|s| s["data"]["token"].is_string())
        })
        .await;
        let s = secret(&p, "default", "robot-token").await.unwrap();
        let b64 = |k: &str| {
            let text = s["data"][k].as_str().unwrap();
            String::from_utf8(
                base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .unwrap(),
            )
            .unwrap()
        };
        assert_eq!(b64("namespace"), "default");
        assert_eq!(b64("ca.crt"), TEST_CA);
        let uid = &sa["metadata"]["uid"];
        assert_eq!(
            s["metadata"]["annotations"]["kubernetes.io/service-account.uid"],
            *uid
        );
        let token = kapi_serviceaccount::jws::Unverified::parse(&b64("token")).unwrap();
        let signer = p.ctx.token_signer.as_ref().unwrap();
        assert!(token.verified_by(&[signer.verifying_key().clone()]));
        assert_eq!(token.claims["iss"], "kubernetes/serviceaccount");
        assert_eq!(token.claims["sub"], "system:serviceaccount:default:robot");
        assert_eq!(
            token.claims["kubernetes.io/serviceaccount/service-account.uid"],
            *uid
        );
        assert_eq!(
            token.claims["kubernetes.io/serviceaccount/secret.name"],
            "robot-token"
        );
    }

    pub async fn a_deleted_service_account_takes_its_token_secrets_along(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        robot_with_token_secret(&p).await;
        eventually("the token filled in", || async {
            secret(&p, "default", "robot-token")
                .await
                .is_some_and(|s| s["data"]["token"].is_string())
        })
        .await;
        p.resource("", "v1", "serviceaccounts")
            .rest()
            .delete(&in_default(), "robot", &DeleteOptions::default())
            .await
            .unwrap();
        eventually("the token secret deleted", || async {
            secret(&p, "default", "robot-token").await.is_none()
        })
        .await;
    }

    pub async fn a_deleted_namespace_goes_despite_its_default_objects(backend: Backend) {
        let p = Process::new(&backend).await;
        p.start(None).await;
        namespace(&p, "short-lived").await;
        eventually("short-lived's default objects", || async {
            service_account(&p, "short-lived", "default")
                .await
                .is_some()
                && root_ca(&p, "short-lived").await.is_some()
        })
        .await;
        p.resource("", "v1", "namespaces")
            .rest()
            .delete(
                &WriteContext::default(),
                "short-lived",
                &DeleteOptions::default(),
            )
            .await
            .unwrap();
        // Were the controllers to make them again, the namespace would never empty.
        eventually("the namespace gone", || async {
            p.get("", "v1", "namespaces", None, "short-lived")
                .await
                .is_none()
        })
        .await;
        assert!(
            service_account(&p, "short-lived", "default")
                .await
                .is_none()
        );
    }
}

async fn embedded() -> Backend {
    support::embedded().await
}

async fn etcd() -> Backend {
    support::etcd("/kapi-controllers-test").await
}

backend_suite!(
    one_candidate_holds_the_lease_while_it_renews,
    a_lease_not_renewed_for_its_duration_is_taken_over,
    a_released_lease_is_taken_at_once,
    hold_returns_when_another_candidate_takes_the_lease,
    a_crd_is_established_through_its_status_subresource,
    a_deleted_crd_refuses_creates_and_waits_for_its_objects_finalizers,
    an_elected_controller_hands_over_when_its_leader_stops,
    a_background_delete_collects_the_dependents,
    a_foreground_delete_waits_for_blocking_dependents,
    an_orphan_delete_keeps_the_dependents_without_the_reference,
    a_collector_that_starts_late_finishes_the_cascade,
    a_custom_resource_owning_configmaps_takes_them_along,
    an_owner_in_another_namespace_does_not_keep_a_dependent,
    a_cluster_scoped_owner_takes_its_namespaced_dependents_along,
    a_new_namespace_gets_a_default_service_account,
    a_deleted_default_service_account_is_made_again,
    a_new_namespace_gets_the_root_ca_config_map,
    an_edited_root_ca_config_map_is_put_back,
    a_deleted_namespace_goes_despite_its_default_objects,
    a_token_secret_gets_a_legacy_token_of_its_service_account,
    a_deleted_service_account_takes_its_token_secrets_along,
);
