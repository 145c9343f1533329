//! Cascading deletion: an owner ConfigMap with `n` dependent ConfigMaps (ownerReferences to
//! it), deleted in the Background (the owner at once, the dependents by the garbage
//! collector) and in the Foreground (the owner last); the row is the time from the DELETE
//! until every dependent (Foreground: the owner too) is gone. Against kube-apiserver this
//! measures kube-controller-manager's garbage collector, which must be running.

use super::client::ApiClient;
use super::crud::{configmaps, run_many};
use super::report::Row;
use http::Method;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// How long a cascade may take before the phase reports it as failed.
const DEADLINE: Duration = Duration::from_secs(600);

/// Both cascades of `n` dependents in `ns`.
pub async fn cascade_rows(client: &ApiClient, ns: &str, n: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    for (policy, label) in [("Background", "background"), ("Foreground", "foreground")] {
        rows.push(cascade(client, ns, n, policy, label).await);
    }
    rows
}

async fn cascade(client: &ApiClient, ns: &str, n: usize, policy: &str, label: &str) -> Row {
    let operation = format!("cascade delete {n} dependents ({label})");
    let failed = |errors: usize| {
        Row::new(
            operation.clone(),
            1,
            Vec::new(),
            errors.max(1),
            Duration::ZERO,
        )
    };
    let base = configmaps(ns);
    let owner_name = format!("cascade-{label}-owner");
    let owner = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": owner_name}});
    let Ok(reply) = client
        .send(
            Method::POST,
            &base,
            "application/json",
            Some(owner.to_string().into_bytes()),
        )
        .await
    else {
        return failed(1);
    };
    let uid = serde_json::from_slice::<Value>(&reply.body)
        .ok()
        .and_then(|v| v["metadata"]["uid"].as_str().map(str::to_owned))
        .unwrap_or_default();
    if uid.is_empty() {
        tracing::warn!(status = %reply.status, "creating the cascade owner");
        return failed(1);
    }
    let selector = format!("cascade={label}");
    let (_, errors, _) = run_many(client, n, 16, |i| {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": format!("cascade-{label}-{i}"), "labels": {"cascade": label},
                "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap",
                    "name": owner_name, "uid": uid, "blockOwnerDeletion": true}]},
            "data": {"value": i.to_string()}});
        (
            Method::POST,
            base.clone(),
            Some(cm.to_string().into_bytes()),
        )
    })
    .await;
    if errors > 0 {
        return failed(errors);
    }
    let options = json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": policy});
    super::server_cpu::phase_started();
    let started = Instant::now();
    let deleted = client
        .send(
            Method::DELETE,
            &format!("{base}/{owner_name}"),
            "application/json",
            Some(options.to_string().into_bytes()),
        )
        .await;
    if !deleted.is_ok_and(|r| r.status.is_success()) {
        return failed(1);
    }
    let remaining = format!("{base}?labelSelector={selector}&limit=1");
    let owner_path = format!("{base}/{owner_name}");
    loop {
        let dependents_left = match client
            .send(Method::GET, &remaining, "application/json", None)
            .await
        {
            Ok(r) => serde_json::from_slice::<Value>(&r.body)
                .ok()
                .is_none_or(|v| v["items"].as_array().is_none_or(|i| !i.is_empty())),
            Err(_) => true,
        };
        let owner_left = match client
            .send(Method::GET, &owner_path, "application/json", None)
            .await
        {
            Ok(r) => r.status != http::StatusCode::NOT_FOUND,
            Err(_) => true,
        };
        if !dependents_left && !owner_left {
            let took = started.elapsed();
            return Row::new(operation, 1, vec![took], 0, took);
        }
        if started.elapsed() > DEADLINE {
            tracing::warn!(%operation, "the cascade did not finish");
            return failed(1);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
