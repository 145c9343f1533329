//! Periodic compaction, as kube-apiserver runs it against etcd: every interval, compact to
//! the revision observed one interval earlier, so at least one interval of history is kept.

use std::sync::Weak;
use std::time::Duration;

use crate::store::Store;

/// Spawns the compaction loop; it stops when the store is dropped.
pub fn spawn_compactor(store: Weak<dyn Store>, interval: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut previous: Option<i64> = None;
        loop {
            tokio::time::sleep(interval).await;
            let Some(store) = store.upgrade() else { return };
            if let Some(revision) = previous.filter(|r| *r > 0) {
                match store.compact(revision).await {
                    Ok(()) => tracing::debug!(revision, "compacted"),
                    Err(e) if e.is_compacted() => {}
                    Err(error) => tracing::warn!(%error, revision, "periodic compaction failed"),
                }
            }
            match store.current_revision().await {
                Ok(revision) => previous = Some(revision),
                Err(error) => {
                    tracing::warn!(%error, "periodic compaction: cannot read current revision")
                }
            }
        }
    })
}
