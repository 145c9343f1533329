//! The two backends every registry test runs on: the embedded store in a temp dir, and a
//! real etcd process on free loopback ports; [`backend_suite!`] runs each case on both.

use kapi_storage::{EmbeddedConfig, EtcdConfig, Store, StoreConfig, open_store};
use kapi_testsupport::etcd::EtcdProcess;
use std::sync::Arc;

/// A store with what keeps it alive (its directory or its etcd process).
pub struct Backend {
    /// The store.
    pub store: Arc<dyn Store>,
    _dir: Option<tempfile::TempDir>,
    _etcd: Option<EtcdProcess>,
}

/// The embedded store in a fresh temp dir.
pub async fn embedded() -> Backend {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open_store(StoreConfig::Embedded(EmbeddedConfig::new(dir.path())))
        .await
        .expect("embedded store");
    Backend {
        store,
        _dir: Some(dir),
        _etcd: None,
    }
}

/// A fresh etcd process, under the key prefix `prefix`.
pub async fn etcd(prefix: &str) -> Backend {
    let process = EtcdProcess::start().await;
    let config = StoreConfig::Etcd {
        config: EtcdConfig::new([process.client_url.clone()]).with_prefix(prefix),
        compaction_interval: None,
    };
    let store = open_store(config).await.expect("etcd store");
    Backend {
        store,
        _dir: None,
        _etcd: Some(process),
    }
}

/// One `#[tokio::test]` per case and backend: `mod embedded` and `mod etcd`, each test
/// calling `cases::<case>(embedded().await)` (or `etcd()`) of the including file.
macro_rules! backend_suite {
    ($($case:ident),* $(,)?) => {
        mod embedded {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    super::cases::$case(super::embedded().await).await;
                }
            )*
        }
        mod etcd {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    super::cases::$case(super::etcd().await).await;
                }
            )*
        }
    };
}
