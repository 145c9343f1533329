//! `open_store`: the configuration entry point starts periodic compaction for etcd too.

mod support;

use std::time::Duration;

use kapi_storage::{EtcdConfig, StoreConfig, open_store};
use kapi_testsupport::etcd::EtcdProcess;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_opened_with_a_compaction_interval_compacts_old_history() {
    let etcd = EtcdProcess::start().await;
    let config = StoreConfig::Etcd {
        config: EtcdConfig::new([etcd.client_url.clone()]),
        compaction_interval: Some(Duration::from_millis(200)),
    };
    let store = open_store(config).await.unwrap();
    let first = store.put(b"/o/a", b"1".to_vec()).await.unwrap();
    store.put(b"/o/a", b"2".to_vec()).await.unwrap();
    support::wait_until_compacted(&*store, b"/o/a", first.mod_revision).await;
    assert_eq!(store.get(b"/o/a", None).await.unwrap().unwrap().value, b"2");
}
