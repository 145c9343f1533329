//! Leader election for controllers when several kapi processes share one etcd, the way
//! kube-controller-manager elects its leader: a `coordination.k8s.io/v1` Lease in
//! `kube-system` (readable with `kubectl get lease -n kube-system`), written through the REST
//! store with the resourceVersion it was read at, so two candidates never both win. Expiry
//! is judged by this process's own clock — a holder is gone when its lease has not changed
//! for `leaseDurationSeconds` — so clocks of different machines need not agree. The holder
//! renews every retry period and gives the lease up when it shuts down.

use crate::context::Context;
use kapi_registry::Error;
use kapi_registry::entry::{RegistryTable, ResourceEntry};
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Namespace of every lease.
pub const NAMESPACE: &str = "kube-system";

/// The field manager of lease writes.
const MANAGER: &str = "kapi-controller-manager";

/// Timing of the election (kube-controller-manager's `--leader-elect-*` flags).
#[derive(Debug, Clone, Copy)]
pub struct LeaseTiming {
    /// How long a lease not renewed stays valid (`--leader-elect-lease-duration`, 15 s; whole
    /// seconds, as `leaseDurationSeconds` holds it, at least 1).
    pub duration: Duration,
    /// How often the holder renews and others retry (`--leader-elect-retry-period`, 2 s).
    pub retry_period: Duration,
}

impl Default for LeaseTiming {
    fn default() -> Self {
        LeaseTiming {
            duration: Duration::from_secs(15),
            retry_period: Duration::from_secs(2),
        }
    }
}

/// One process's candidacy for one lease.
pub struct Elector {
    ctx: Arc<Context>,
    name: &'static str,
    identity: String,
    timing: LeaseTiming,
    /// The lease's resourceVersion as last seen, and when it was first seen at it.
    observed: Mutex<Option<(String, Instant)>>,
}

/// `<hostname>_<uuid>`, as Kubernetes' leader election names its candidates.
fn identity() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_default();
    let host = if host.is_empty() { "kapi".into() } else { host };
    format!("{host}_{}", kapi_registry::meta::new_uid())
}

/// Now with microseconds, as Kubernetes writes a MicroTime.
fn now_micro() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.6fZ")
        .to_string()
}

impl Elector {
    /// A candidate for the lease `kube-system/<name>` with a fresh identity.
    pub fn new(ctx: Arc<Context>, name: &'static str, timing: LeaseTiming) -> Self {
        Elector {
            ctx,
            name,
            identity: identity(),
            timing,
            observed: Mutex::new(None),
        }
    }

    /// This candidate's holderIdentity.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    fn leases(table: &RegistryTable) -> Result<Arc<ResourceEntry>, Error> {
        table
            .get("coordination.k8s.io", "v1", "leases")
            .cloned()
            .ok_or_else(|| Error::internal("coordination.k8s.io/v1 leases are not served"))
    }

    /// Whether a lease last changed at `rv` has outlived `duration` on this clock.
    fn expired(&self, rv: &str, duration: Duration) -> bool {
        let mut observed = self.observed.lock().unwrap_or_else(|p| p.into_inner());
        match &*observed {
            Some((seen, since)) if seen == rv => since.elapsed() >= duration,
            _ => {
                *observed = Some((rv.to_owned(), Instant::now()));
                false
            }
        }
    }

    fn context() -> WriteContext {
        WriteContext {
            namespace: Some(NAMESPACE.into()),
            manager: MANAGER.into(),
            ..WriteContext::default()
        }
    }

    /// Takes the lease when it is free or expired, renews it when held; true when this
    /// process holds it afterwards.
    pub async fn try_acquire_or_renew(&self) -> Result<bool, Error> {
        let table = self.ctx.registry.snapshot();
        let entry = Self::leases(&table)?;
        let rest = RestStore::new(self.ctx.store.as_ref(), &table, &entry);
        let seconds = self.timing.duration.as_secs().max(1);
        let now = now_micro();
        let Some(stored) = rest.get(Some(NAMESPACE), self.name).await? else {
            let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": self.name, "namespace": NAMESPACE},
                "spec": {"holderIdentity": self.identity, "leaseDurationSeconds": seconds,
                    "acquireTime": now, "renewTime": now, "leaseTransitions": 0}});
            return match rest.create(&Self::context(), lease).await {
                Ok(_) => Ok(true),
                Err(Error::AlreadyExists { .. } | Error::Conflict { .. }) => Ok(false),
                Err(e) => Err(e),
            };
        };
        let mut lease = stored.object;
        let spec = &lease["spec"];
        let holder = spec["holderIdentity"].as_str().unwrap_or("").to_owned();
        let held_for =
            Duration::from_secs(spec["leaseDurationSeconds"].as_u64().unwrap_or(seconds));
        let rv = stored.revision.to_string();
        if holder == self.identity {
            lease["spec"]["renewTime"] = json!(now);
        } else if holder.is_empty() || self.expired(&rv, held_for) {
            let transitions = spec["leaseTransitions"].as_i64().unwrap_or(0);
            // Every change of holder counts, a release included (as client-go counts).
            lease["spec"] = json!({"holderIdentity": self.identity,
                "leaseDurationSeconds": seconds, "acquireTime": now, "renewTime": now,
                "leaseTransitions": transitions + 1});
        } else {
            return Ok(false);
        }
        self.write(&rest, lease).await
    }

    /// Writes `lease` over the revision it was read at (its resourceVersion); false when
    /// another candidate wrote first or it is gone.
    async fn write(&self, rest: &RestStore<'_>, lease: Value) -> Result<bool, Error> {
        let mut info = UpdateFn::new(move |_current: Option<&Value>| Ok(lease.clone()));
        match rest.update(&Self::context(), self.name, &mut info).await {
            Ok(_) => Ok(true),
            Err(Error::Conflict { .. } | Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Campaigns until this process holds the lease, trying every retry period.
    pub async fn acquire(&self) {
        loop {
            match self.try_acquire_or_renew().await {
                Ok(true) => return,
                Ok(false) => {}
                Err(e) => tracing::warn!(lease = self.name, error = %e, "acquiring the lease"),
            }
            tokio::time::sleep(self.timing.retry_period).await;
        }
    }

    /// Gives the lease up (holderIdentity cleared) when this process holds it, so another
    /// candidate need not wait for it to expire.
    pub async fn release(&self) -> Result<(), Error> {
        let table = self.ctx.registry.snapshot();
        let entry = Self::leases(&table)?;
        let rest = RestStore::new(self.ctx.store.as_ref(), &table, &entry);
        let Some(stored) = rest.get(Some(NAMESPACE), self.name).await? else {
            return Ok(());
        };
        let mut lease = stored.object;
        if lease["spec"]["holderIdentity"] != self.identity.as_str() {
            return Ok(());
        }
        if let Some(spec) = lease["spec"].as_object_mut() {
            spec.remove("holderIdentity");
        }
        self.write(&rest, lease).await.map(|_| ())
    }

    /// Renews every retry period; returns when the lease is lost (taken by another, or not
    /// renewed for two thirds of its duration because the store failed).
    pub async fn hold(&self) {
        let mut renewed = Instant::now();
        loop {
            tokio::time::sleep(self.timing.retry_period).await;
            match self.try_acquire_or_renew().await {
                Ok(true) => renewed = Instant::now(),
                Ok(false) => return,
                Err(e) => {
                    tracing::warn!(lease = self.name, error = %e, "renewing the lease");
                    if renewed.elapsed() >= self.timing.duration * 2 / 3 {
                        return;
                    }
                }
            }
        }
    }
}
