//! Leader election for the migration controller when several kapi processes share one etcd,
//! the way kube-controller-manager's controllers elect one: a `coordination.k8s.io/v1` Lease
//! (`kube-system/kapi-storage-version-migrator`, readable with `kubectl get lease`) taken with
//! compare-and-swap writes. Expiry is judged by this process's own clock — a holder is gone
//! when its lease record has not changed for `leaseDurationSeconds` — so clocks of different
//! machines need not agree. The lease is held only while migrations are pending and given up
//! when they are done.

use kapi_registry::entry::{Registry, ResourceEntry};
use kapi_storage::{Store, StoreError};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Namespace of the lease.
pub const NAMESPACE: &str = "kube-system";
/// Name of the lease.
pub const NAME: &str = "kapi-storage-version-migrator";

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

/// One process's candidacy for the migration lease.
pub struct Elector {
    store: Arc<dyn Store>,
    leases: Arc<ResourceEntry>,
    identity: String,
    timing: LeaseTiming,
    /// The lease record's revision as last seen, and when it was first seen at that revision.
    observed: Mutex<Option<(i64, Instant)>>,
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
    /// A candidate with a fresh identity; None when the registry serves no Lease kind.
    pub fn new(store: Arc<dyn Store>, registry: &Registry, timing: LeaseTiming) -> Option<Self> {
        let leases = registry
            .snapshot()
            .get("coordination.k8s.io", "v1", "leases")
            .cloned()?;
        Some(Elector {
            store,
            leases,
            identity: identity(),
            timing,
            observed: Mutex::new(None),
        })
    }

    /// This candidate's holderIdentity.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The election's timing.
    pub fn timing(&self) -> LeaseTiming {
        self.timing
    }

    fn key(&self) -> String {
        self.leases.key(Some(NAMESPACE), NAME)
    }

    async fn encode(&self, lease: &Value) -> Result<Vec<u8>, StoreError> {
        self.leases
            .codec
            .encode_for_storage(lease)
            .await
            .map_err(|e| StoreError::Internal(e.to_string()))
    }

    /// Whether a record last changed at `revision` has outlived `duration` on this clock.
    fn expired(&self, revision: i64, duration: Duration) -> bool {
        let mut observed = self.observed.lock().unwrap_or_else(|p| p.into_inner());
        match *observed {
            Some((seen, since)) if seen == revision => since.elapsed() >= duration,
            _ => {
                *observed = Some((revision, Instant::now()));
                false
            }
        }
    }

    /// Takes the lease when it is free or expired, renews it when held; true when this
    /// process holds it afterwards.
    pub async fn try_acquire_or_renew(&self) -> Result<bool, StoreError> {
        let key = self.key();
        let seconds = self.timing.duration.as_secs().max(1);
        let Some(kv) = self.store.get(key.as_bytes(), None).await? else {
            let now = now_micro();
            let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": NAME, "namespace": NAMESPACE,
                    "uid": kapi_registry::meta::new_uid(), "creationTimestamp": kapi_registry::meta::now_rfc3339()},
                "spec": {"holderIdentity": self.identity, "leaseDurationSeconds": seconds,
                    "acquireTime": now, "renewTime": now, "leaseTransitions": 0}});
            return match self
                .store
                .create(key.as_bytes(), self.encode(&lease).await?)
                .await
            {
                Ok(_) => Ok(true),
                Err(StoreError::AlreadyExists { .. }) => Ok(false),
                Err(e) if e.is_conflict() => Ok(false),
                Err(e) => Err(e),
            };
        };
        let mut lease = self
            .leases
            .codec
            .decode_stored(&kv.value)
            .await
            .map_err(|e| StoreError::Internal(e.to_string()))?;
        let spec = &lease["spec"];
        let holder = spec["holderIdentity"].as_str().unwrap_or("").to_owned();
        let held_for =
            Duration::from_secs(spec["leaseDurationSeconds"].as_u64().unwrap_or(seconds));
        let now = now_micro();
        if holder == self.identity {
            lease["spec"]["renewTime"] = json!(now);
        } else if holder.is_empty() || self.expired(kv.mod_revision, held_for) {
            let transitions = spec["leaseTransitions"].as_i64().unwrap_or(0);
            lease["spec"] = json!({"holderIdentity": self.identity,
                "leaseDurationSeconds": seconds, "acquireTime": now, "renewTime": now,
                "leaseTransitions": transitions + i64::from(!holder.is_empty())});
        } else {
            return Ok(false);
        }
        if let Some(meta) = lease["metadata"].as_object_mut() {
            meta.remove("resourceVersion");
        }
        match self
            .store
            .update(key.as_bytes(), self.encode(&lease).await?, kv.mod_revision)
            .await
        {
            Ok(_) => Ok(true),
            Err(e) if e.is_conflict() => Ok(false),
            Err(StoreError::NotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Gives the lease up (holderIdentity cleared) when this process holds it, so another
    /// candidate need not wait for it to expire.
    pub async fn release(&self) -> Result<(), StoreError> {
        let key = self.key();
        let Some(kv) = self.store.get(key.as_bytes(), None).await? else {
            return Ok(());
        };
        let mut lease = self
            .leases
            .codec
            .decode_stored(&kv.value)
            .await
            .map_err(|e| StoreError::Internal(e.to_string()))?;
        if lease["spec"]["holderIdentity"] != self.identity.as_str() {
            return Ok(());
        }
        if let Some(spec) = lease["spec"].as_object_mut() {
            spec.remove("holderIdentity");
        }
        match self
            .store
            .update(key.as_bytes(), self.encode(&lease).await?, kv.mod_revision)
            .await
        {
            Err(e) if !e.is_conflict() && !e.is_not_found() => Err(e),
            _ => Ok(()),
        }
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
                    tracing::warn!(error = %e, "renewing the storage version migration lease");
                    if renewed.elapsed() >= self.timing.duration * 2 / 3 {
                        return;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kapi_storage::{EmbeddedConfig, EmbeddedStore};

    /// Two candidates on one embedded store, and what they share.
    struct Candidates {
        _dir: tempfile::TempDir,
        store: Arc<dyn Store>,
        registry: Registry,
        a: Elector,
        b: Elector,
    }

    fn candidates(timing: LeaseTiming) -> Candidates {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> = EmbeddedStore::open(EmbeddedConfig::new(dir.path())).unwrap();
        let scheme = Arc::new(kapi_api::new_scheme().unwrap());
        let codecs = kapi_machinery::serializer::CodecFactory::new(scheme);
        let registry = Registry::new();
        registry.upsert(kapi_registry::builtin::scheme_entries("/registry", &codecs));
        let a = Elector::new(store.clone(), &registry, timing).unwrap();
        let b = Elector::new(store.clone(), &registry, timing).unwrap();
        Candidates {
            _dir: dir,
            store,
            registry,
            a,
            b,
        }
    }

    const FAST: LeaseTiming = LeaseTiming {
        duration: Duration::from_secs(1),
        retry_period: Duration::from_millis(50),
    };

    async fn lease(store: &dyn Store, registry: &Registry) -> Value {
        let entry = registry
            .snapshot()
            .get("coordination.k8s.io", "v1", "leases")
            .cloned()
            .unwrap();
        let kv = store
            .get(entry.key(Some(NAMESPACE), NAME).as_bytes(), None)
            .await
            .unwrap()
            .unwrap();
        entry.codec.decode_stored(&kv.value).await.unwrap()
    }

    #[tokio::test]
    async fn one_candidate_holds_the_lease_while_it_renews() {
        let c = candidates(FAST);
        let (a, b) = (&c.a, &c.b);
        assert!(a.try_acquire_or_renew().await.unwrap());
        for _ in 0..10 {
            assert!(!b.try_acquire_or_renew().await.unwrap());
            tokio::time::sleep(Duration::from_millis(50)).await;
            assert!(a.try_acquire_or_renew().await.unwrap());
        }
        let held = lease(c.store.as_ref(), &c.registry).await;
        assert_eq!(held["spec"]["holderIdentity"], a.identity());
        assert_eq!(held["spec"]["leaseTransitions"], 0);
    }

    #[tokio::test]
    async fn a_lease_not_renewed_for_its_duration_is_taken_over() {
        let c = candidates(FAST);
        let (a, b) = (&c.a, &c.b);
        assert!(a.try_acquire_or_renew().await.unwrap());
        assert!(!b.try_acquire_or_renew().await.unwrap());
        // a stops renewing (as if killed); b waits out the lease on its own clock.
        tokio::time::sleep(Duration::from_millis(1050)).await;
        assert!(b.try_acquire_or_renew().await.unwrap());
        let held = lease(c.store.as_ref(), &c.registry).await;
        assert_eq!(held["spec"]["holderIdentity"], b.identity());
        assert_eq!(held["spec"]["leaseTransitions"], 1);
        assert!(!a.try_acquire_or_renew().await.unwrap());
    }

    #[tokio::test]
    async fn a_released_lease_is_taken_at_once() {
        let c = candidates(LeaseTiming::default());
        let (a, b) = (&c.a, &c.b);
        assert!(a.try_acquire_or_renew().await.unwrap());
        a.release().await.unwrap();
        assert!(b.try_acquire_or_renew().await.unwrap());
    }

    #[tokio::test]
    async fn hold_returns_when_another_candidate_takes_the_lease() {
        let c = candidates(FAST);
        let (a, b) = (&c.a, &c.b);
        assert!(a.try_acquire_or_renew().await.unwrap());
        a.release().await.unwrap();
        assert!(b.try_acquire_or_renew().await.unwrap());
        // a believes it leads and renews: the renewal finds b's lease and gives up.
        tokio::time::timeout(Duration::from_secs(5), a.hold())
            .await
            .unwrap();
    }
}
