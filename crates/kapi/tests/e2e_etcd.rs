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

/// `/readyz` checks what it names: with etcd gone, the `etcd` check fails (500) while
/// `/readyz/ping` still passes.
#[tokio::test]
async fn readyz_fails_its_etcd_check_when_etcd_is_gone() {
    let mut etcd = EtcdProcess::start().await;
    let kapi = Kapi::start_with(&["--etcd-servers", &etcd.client_url]).await;
    let get = |path: &str| http::Request::get(path).body(Vec::new()).unwrap();
    let (status, _, _) = kapi.raw(get("/readyz")).await;
    assert_eq!(status, 200);
    etcd.kill();
    let (status, _, body) = kapi.raw(get("/readyz")).await;
    let text = String::from_utf8(body).unwrap();
    assert_eq!(status, 500, "{text}");
    assert!(text.contains("[-]etcd failed: reason withheld"), "{text}");
    assert!(text.ends_with("readyz check failed\n"), "{text}");
    let (status, _, _) = kapi.raw(get("/readyz/ping")).await;
    assert_eq!(status, 200);
}

/// `--etcd-compaction-interval` compacts etcd too: after two intervals, reading at a
/// revision from before is 410 Expired.
#[tokio::test]
async fn kapi_serve_compacts_etcd_at_the_interval_given() {
    let etcd = EtcdProcess::start().await;
    let kapi = Kapi::start_with(&[
        "--etcd-servers",
        &etcd.client_url,
        "--etcd-compaction-interval",
        "1s",
    ])
    .await;
    let client = kapi.client().await;
    let cms: Api<ConfigMap> = Api::namespaced(client, "default");
    let mut first = ConfigMap::default();
    first.metadata.name = Some("first".into());
    let first = cms.create(&PostParams::default(), &first).await.unwrap();
    let old_rv = first.metadata.resource_version.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut i = 0;
    loop {
        // Writes move the revision on, so each interval has a newer revision to compact to.
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(format!("later-{i}"));
        cms.create(&PostParams::default(), &cm).await.unwrap();
        i += 1;
        let path = format!(
            "/api/v1/namespaces/default/configmaps?resourceVersion={old_rv}&resourceVersionMatch=Exact"
        );
        let (status, _, _) = kapi
            .raw(http::Request::get(path).body(Vec::new()).unwrap())
            .await;
        if status == 410 {
            break;
        }
        assert_eq!(status, 200);
        assert!(
            std::time::Instant::now() < deadline,
            "etcd was never compacted"
        );
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
}
