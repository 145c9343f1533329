//! The objects a cluster's controllers put in every namespace, as kube-controller-manager
//! does: the `default` ServiceAccount (`serviceaccount-controller`) and the
//! `kube-root-ca.crt` ConfigMap holding the API server's CA bundle
//! (`root-ca-certificate-publisher-controller`). Each follows namespaces and its own
//! resource: a namespace created (or active again) gets the object, an object deleted is
//! made again, and the ConfigMap is put back when its data or description annotation is
//! changed. A terminating namespace gets nothing. envtest runs neither controller, so a Pod
//! there has no `default` ServiceAccount to run as; kapi, like a real cluster, has both.

use crate::context::Context;
use crate::runtime::{Action, Reconciler};
use kapi_registry::Error;
use kapi_registry::entry::ResourceEntry;
use kapi_registry::meta;
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use kapi_storage::KeyValue;
use serde_json::{Value, json};
use std::sync::Arc;

/// The ServiceAccount controller's name (kube-controller-manager's).
pub const SERVICE_ACCOUNT_NAME: &str = "serviceaccount-controller";
/// Its post-start hook.
pub const SERVICE_ACCOUNT_HOOK: &str = "start-serviceaccount-controller";
/// Its lease when elected.
pub const SERVICE_ACCOUNT_LEASE: &str = "kapi-serviceaccount-controller";

/// The root CA publisher's name (kube-controller-manager's).
pub const ROOT_CA_NAME: &str = "root-ca-certificate-publisher-controller";
/// Its post-start hook.
pub const ROOT_CA_HOOK: &str = "start-root-ca-certificate-publisher-controller";
/// Its lease when elected.
pub const ROOT_CA_LEASE: &str = "kapi-root-ca-certificate-publisher";

/// The ConfigMap the root CA publisher keeps in every namespace.
pub const ROOT_CA_CONFIG_MAP: &str = "kube-root-ca.crt";
/// The annotation describing it.
pub const DESCRIPTION_ANNOTATION: &str = "kubernetes.io/description";
/// Its text, upstream's words.
pub const ROOT_CA_DESCRIPTION: &str = "Contains a CA bundle that can be used to verify the \
kube-apiserver when using internal endpoints such as the internal service IP or \
kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes \
clusters.";

/// What one of these controllers keeps in every namespace.
#[derive(Debug, Clone)]
enum Kept {
    /// The `default` ServiceAccount; once there, the controller leaves it as it is.
    DefaultServiceAccount,
    /// The `kube-root-ca.crt` ConfigMap with this CA bundle (PEM), kept as it should be.
    RootCa(String),
}

impl Kept {
    fn resource(&self) -> &'static str {
        match self {
            Kept::DefaultServiceAccount => "serviceaccounts",
            Kept::RootCa(_) => "configmaps",
        }
    }

    fn object_name(&self) -> &'static str {
        match self {
            Kept::DefaultServiceAccount => "default",
            Kept::RootCa(_) => ROOT_CA_CONFIG_MAP,
        }
    }

    /// The object to create.
    fn desired(&self) -> Value {
        match self {
            Kept::DefaultServiceAccount => json!({
                "apiVersion": "v1",
                "kind": "ServiceAccount",
                "metadata": {"name": "default"},
            }),
            Kept::RootCa(ca) => json!({
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": ROOT_CA_CONFIG_MAP,
                    "annotations": {DESCRIPTION_ANNOTATION: ROOT_CA_DESCRIPTION},
                },
                "data": {"ca.crt": ca},
            }),
        }
    }

    /// The existing object brought to where it should be, or `None` when it is already.
    fn mended(&self, current: &Value) -> Option<Value> {
        let Kept::RootCa(ca) = self else {
            return None;
        };
        let data_ok = current.get("data") == Some(&json!({"ca.crt": ca}));
        let described = meta::nested(
            current,
            &["metadata", "annotations", DESCRIPTION_ANNOTATION],
        )
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty());
        if data_ok && described {
            return None;
        }
        let mut cm = current.clone();
        cm["data"] = json!({"ca.crt": ca});
        if !cm["metadata"]["annotations"].is_object() {
            cm["metadata"]["annotations"] = json!({});
        }
        cm["metadata"]["annotations"][DESCRIPTION_ANNOTATION] = json!(ROOT_CA_DESCRIPTION);
        Some(cm)
    }
}

/// Keeps one object in every active namespace: the `default` ServiceAccount or the
/// `kube-root-ca.crt` ConfigMap.
pub struct NamespaceObjectController {
    kept: Kept,
}

impl NamespaceObjectController {
    /// The ServiceAccount controller: a `default` ServiceAccount in every namespace.
    pub fn service_accounts() -> Self {
        Self {
            kept: Kept::DefaultServiceAccount,
        }
    }

    /// The root CA publisher: `kube-root-ca.crt` with `ca.crt` = `ca_pem` everywhere.
    pub fn root_ca(ca_pem: impl Into<String>) -> Self {
        Self {
            kept: Kept::RootCa(ca_pem.into()),
        }
    }

    fn entry(&self, ctx: &Context) -> Option<Arc<ResourceEntry>> {
        ctx.registry
            .snapshot()
            .get("", "v1", self.kept.resource())
            .cloned()
    }
}

fn namespaces(ctx: &Context) -> Option<Arc<ResourceEntry>> {
    ctx.registry.snapshot().get("", "v1", "namespaces").cloned()
}

/// Whether a namespace takes new objects: not being deleted, not `Terminating`.
fn active(ns: &Value) -> bool {
    meta::meta_str(ns, "deletionTimestamp").is_empty()
        && meta::nested(ns, &["status", "phase"]).and_then(Value::as_str) != Some("Terminating")
}

#[async_trait::async_trait]
impl Reconciler for NamespaceObjectController {
    fn name(&self) -> &'static str {
        match self.kept {
            Kept::DefaultServiceAccount => SERVICE_ACCOUNT_NAME,
            Kept::RootCa(_) => ROOT_CA_NAME,
        }
    }

    fn hook(&self) -> &'static str {
        match self.kept {
            Kept::DefaultServiceAccount => SERVICE_ACCOUNT_HOOK,
            Kept::RootCa(_) => ROOT_CA_HOOK,
        }
    }

    fn description(&self) -> &'static str {
        match self.kept {
            Kept::DefaultServiceAccount => "default service accounts",
            Kept::RootCa(_) => "the root CA ConfigMaps",
        }
    }

    fn lease(&self) -> Option<&'static str> {
        Some(match self.kept {
            Kept::DefaultServiceAccount => SERVICE_ACCOUNT_LEASE,
            Kept::RootCa(_) => ROOT_CA_LEASE,
        })
    }

    fn watched_prefixes(&self, ctx: &Context) -> Vec<String> {
        [namespaces(ctx), self.entry(ctx)]
            .into_iter()
            .flatten()
            .map(|e| e.collection_prefix(None))
            .collect()
    }

    fn observe(
        &self,
        prefix: &str,
        storage_key: &[u8],
        _current: Option<&KeyValue>,
        _previous: Option<&KeyValue>,
        _cache: &kapi_registry::cache::Cacher,
    ) -> Vec<String> {
        let Some(rest) = std::str::from_utf8(storage_key)
            .ok()
            .and_then(|k| k.strip_prefix(prefix))
        else {
            return Vec::new();
        };
        let key = match rest.split_once('/') {
            // `<namespace>/<name>` of the kept resource: only the kept object matters.
            Some((ns, name)) if name == self.kept.object_name() => ns,
            Some(_) => return Vec::new(),
            // `<name>` of a namespace.
            None => rest,
        };
        vec![key.to_owned()]
    }

    async fn reconcile(&self, ctx: &Context, namespace: &str) -> Result<Action, Error> {
        let table = ctx.registry.snapshot();
        let (Some(ns_entry), Some(entry)) = (
            table.get("", "v1", "namespaces"),
            table.get("", "v1", self.kept.resource()),
        ) else {
            return Ok(Action::Done);
        };
        let ns = RestStore::new(ctx.store.as_ref(), &table, ns_entry)
            .get(None, namespace)
            .await?;
        if !ns.is_some_and(|ns| active(&ns.object)) {
            return Ok(Action::Done);
        }
        let rest = RestStore::new(ctx.store.as_ref(), &table, entry);
        let w = WriteContext {
            namespace: Some(namespace.to_owned()),
            manager: self.name().to_owned(),
            ..WriteContext::default()
        };
        let name = self.kept.object_name();
        let Some(current) = rest.get(Some(namespace), name).await? else {
            return match rest.create(&w, self.kept.desired()).await {
                // Made meanwhile, or the namespace went away or began terminating: the
                // next change of either brings it here again.
                Ok(_)
                | Err(Error::AlreadyExists { .. })
                | Err(Error::NotFound { .. })
                | Err(Error::Forbidden { .. }) => Ok(Action::Done),
                Err(e) => Err(e),
            };
        };
        if self.kept.mended(&current.object).is_none() {
            return Ok(Action::Done);
        }
        let kept = self.kept.clone();
        let mut info = UpdateFn::new(move |cur: Option<&Value>| {
            let cur = cur.cloned().unwrap_or_default();
            Ok(kept.mended(&cur).unwrap_or(cur))
        });
        match rest.update(&w, name, &mut info).await {
            Ok(_) | Err(Error::NotFound { .. }) => Ok(Action::Done),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_ca_config_map_as_published_needs_no_mending() {
        let kept = Kept::RootCa("PEM".into());
        assert_eq!(kept.mended(&kept.desired()), None);
    }

    #[test]
    fn a_root_ca_config_map_with_other_data_is_mended_keeping_its_other_annotations() {
        let kept = Kept::RootCa("PEM".into());
        let changed = json!({
            "metadata": {"name": ROOT_CA_CONFIG_MAP, "annotations": {"a": "b"}},
            "data": {"ca.crt": "other", "extra": "x"},
        });
        let mended = kept.mended(&changed).expect("mended");
        assert_eq!(mended["data"], json!({"ca.crt": "PEM"}));
        assert_eq!(mended["metadata"]["annotations"]["a"], "b");
        assert_eq!(
            mended["metadata"]["annotations"][DESCRIPTION_ANNOTATION],
            ROOT_CA_DESCRIPTION
        );
    }

    #[test]
    fn a_default_service_account_once_there_is_left_as_it_is() {
        let sa = json!({"metadata": {"name": "default"}, "automountServiceAccountToken": false});
        assert_eq!(Kept::DefaultServiceAccount.mended(&sa), None);
    }

    #[test]
    fn a_terminating_namespace_is_not_active() {
        assert!(active(&json!({"metadata": {"name": "a"}})));
        assert!(!active(
            &json!({"metadata": {"name": "a"}, "status": {"phase": "Terminating"}})
        ));
        assert!(!active(
            &json!({"metadata": {"name": "a", "deletionTimestamp": "2026-01-01T00:00:00Z"}})
        ));
    }
}
