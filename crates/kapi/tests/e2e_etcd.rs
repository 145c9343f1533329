//! Two `kapi serve` processes on one etcd serve one API: what one writes, the other reads
//! and watches. etcd is a real process on free loopback ports with a temp data dir.

mod e2e_support;

use e2e_support::Kapi;
use futures::TryStreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kapi_testsupport::etcd::EtcdProcess;
use kube::api::{Api, PostParams, WatchEvent, WatchParams};

#[tokio::test]
async fn two_kapis_on_one_etcd_read_and_watch_each_others_writes() {
    let etcd = EtcdProcess::start().await;
    let a = Kapi::start_with(&["--etcd-servers", &etcd.client_url]).await;
    let b = Kapi::start_with(&["--etcd-servers", &etcd.client_url]).await;
    let api_a: Api<ConfigMap> = Api::namespaced(a.client().await, "default");
    let api_b: Api<ConfigMap> = Api::namespaced(b.client().await, "default");

    let mut cm = ConfigMap::default();
    cm.metadata.name = Some("shared".into());
    let created = api_a.create(&PostParams::default(), &cm).await.unwrap();
    let seen = api_b.get("shared").await.unwrap();
    assert_eq!(seen.metadata.uid, created.metadata.uid);
    assert_eq!(
        seen.metadata.resource_version,
        created.metadata.resource_version
    );

    let rv = created.metadata.resource_version.unwrap();
    let watch = api_b
        .watch(&WatchParams::default().timeout(5), &rv)
        .await
        .unwrap();
    let mut second = ConfigMap::default();
    second.metadata.name = Some("from-a".into());
    api_a.create(&PostParams::default(), &second).await.unwrap();
    let events: Vec<_> = futures::StreamExt::take(watch, 1)
        .try_collect()
        .await
        .unwrap();
    assert!(
        matches!(&events[0], WatchEvent::Added(c) if c.metadata.name.as_deref() == Some("from-a")),
        "{events:?}"
    );
}
