//! One entry point for callers that pick the backend from configuration (`kapi serve`):
//! opens either backend as an `Arc<dyn Store>`.

use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::compactor::spawn_compactor;
use crate::embedded::{EmbeddedConfig, EmbeddedStore};
use crate::error::{Result, StoreError};
use crate::etcd::{EtcdConfig, EtcdStore};
use crate::store::Store;

/// Which backend to open, with its settings.
#[derive(Debug, Clone)]
pub enum StoreConfig {
    /// The embedded store in a local directory (it runs its own periodic compaction).
    Embedded(EmbeddedConfig),
    /// etcd; `compaction_interval` starts kube-apiserver-style periodic compaction
    /// (`--etcd-compaction-interval`, default 5 minutes; run it from one server per cluster).
    Etcd {
        /// Connection settings.
        config: EtcdConfig,
        /// How often to compact; `None` leaves compaction to someone else.
        compaction_interval: Option<Duration>,
    },
}

/// Opens the configured backend. Call inside a tokio runtime.
pub async fn open_store(config: StoreConfig) -> Result<Arc<dyn Store>> {
    match config {
        // Opening commits and fsyncs: off the async threads.
        StoreConfig::Embedded(config) => {
            let store = tokio::task::spawn_blocking(move || EmbeddedStore::open(config))
                .await
                .map_err(|e| StoreError::Internal(format!("opening the embedded store: {e}")))??;
            Ok(store)
        }
        StoreConfig::Etcd {
            config,
            compaction_interval,
        } => {
            let store: Arc<dyn Store> = Arc::new(EtcdStore::connect(config).await?);
            if let Some(interval) = compaction_interval {
                let weak: Weak<dyn Store> = Arc::downgrade(&store);
                spawn_compactor(weak, interval);
            }
            Ok(store)
        }
    }
}
