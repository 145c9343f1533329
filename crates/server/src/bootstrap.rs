//! What kube-apiserver's bootstrap controller and service-CIDR hooks create once it serves:
//! the default ServiceCIDR `kubernetes` over `--service-cluster-ip-range`, and the
//! `kubernetes` Service in `default` (the range's first address, port 443 to the secure
//! port) with its Endpoints naming this server. Created through the REST stores, so the
//! Service's address is an IPAddress like any other; ones that exist are left alone (a
//! restarted kapi finds them).

use crate::state::ApiState;
use kapi_registry::Error;
use kapi_registry::builtin::ServiceNetwork;
use kapi_registry::rest::{RestStore, WriteContext};
use serde_json::{Value, json};

/// The post-start hook marked once they exist.
pub const HOOK: &str = "bootstrap-controller";

/// The default ServiceCIDR, the `kubernetes` Service and its Endpoints.
pub fn objects(
    network: &ServiceNetwork,
    server_ip: &str,
    port: u16,
) -> Vec<(&'static str, &'static str, Value)> {
    let labels = json!({"component": "apiserver", "provider": "kubernetes"});
    vec![
        (
            "networking.k8s.io",
            "servicecidrs",
            json!({"apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR",
                "metadata": {"name": "kubernetes"},
                "spec": {"cidrs": [network.cidr()]}}),
        ),
        (
            "",
            "services",
            json!({"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": "kubernetes", "namespace": "default", "labels": labels},
                "spec": {"type": "ClusterIP", "sessionAffinity": "None",
                    "clusterIP": network.first().to_string(),
                    "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": port}]}}),
        ),
        (
            "",
            "endpoints",
            json!({"apiVersion": "v1", "kind": "Endpoints",
                "metadata": {"name": "kubernetes", "namespace": "default", "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
                "subsets": [{"addresses": [{"ip": server_ip}],
                    "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}]}),
        ),
    ]
}

/// Creates what does not exist yet.
pub async fn ensure(
    state: &ApiState,
    network: &ServiceNetwork,
    server_ip: &str,
    port: u16,
) -> Result<(), Error> {
    let table = state.registry.snapshot();
    for (group, plural, obj) in objects(network, server_ip, port) {
        let Some(entry) = table.get(group, "v1", plural) else {
            continue;
        };
        let rest = RestStore::new(state.store.as_ref(), &table, entry);
        let namespace = obj["metadata"]["namespace"].as_str().map(str::to_owned);
        // Looked up first, as upstream's bootstrap controller does: creating the Service
        // again would fail on its cluster IP (already allocated) before its name.
        let name = obj["metadata"]["name"].as_str().unwrap_or_default();
        if rest.get(namespace.as_deref(), name).await?.is_some() {
            continue;
        }
        let w = WriteContext {
            namespace,
            manager: "kube-apiserver".into(),
            ..WriteContext::default()
        };
        match rest.create(&w, obj).await {
            Ok(_) | Err(Error::AlreadyExists { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    if let Some(entry) = table.get("networking.k8s.io", "v1", "servicecidrs") {
        mark_ready(state, &table, entry).await?;
    }
    Ok(())
}

/// The default ServiceCIDR's `Ready` condition, as its controller sets it.
async fn mark_ready(
    state: &ApiState,
    table: &kapi_registry::entry::RegistryTable,
    entry: &kapi_registry::entry::ResourceEntry,
) -> Result<(), Error> {
    let rest = RestStore::new(state.store.as_ref(), table, entry);
    let w = WriteContext {
        subresource: Some("status".into()),
        manager: "kube-apiserver".into(),
        ..WriteContext::default()
    };
    let mut info = kapi_registry::rest::UpdateFn::new(|current: Option<&Value>| {
        let mut cidr = current.cloned().unwrap_or_default();
        let ready = cidr["status"]["conditions"].as_array().is_some_and(|c| {
            c.iter()
                .any(|c| c["type"] == "Ready" && c["status"] == "True")
        });
        if !ready {
            cidr["status"] = json!({"conditions": [{"type": "Ready", "status": "True",
                "lastTransitionTime": kapi_registry::meta::now_rfc3339(),
                "reason": "", "message": "Kubernetes Service CIDR is ready"}]});
        }
        Ok(cidr)
    });
    rest.update(&w, "kubernetes", &mut info).await.map(|_| ())
}
