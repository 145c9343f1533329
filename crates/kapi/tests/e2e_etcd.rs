//! Two `kapi serve` processes on one etcd serve one API: what one writes, the other reads
//! and watches. etcd is a real process on free loopback ports with a temp data dir.

mod e2e_support;

use e2e_support::Kapi;
use futures::TryStreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams, WatchEvent, WatchParams};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A private etcd, killed on drop.
struct Etcd {
    child: Child,
    url: String,
    _dir: tempfile::TempDir,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Etcd {
    async fn start() -> Etcd {
        let dir = tempfile::tempdir().unwrap();
        let (client, peer) = (free_port(), free_port());
        let url = format!("http://127.0.0.1:{client}");
        let peer_url = format!("http://127.0.0.1:{peer}");
        let child = Command::new("etcd")
            .arg("--data-dir")
            .arg(dir.path().join("etcd"))
            .args([
                "--name",
                "kapi-e2e",
                "--listen-client-urls",
                &url,
                "--advertise-client-urls",
                &url,
            ])
            .args([
                "--listen-peer-urls",
                &peer_url,
                "--initial-advertise-peer-urls",
                &peer_url,
            ])
            .args(["--initial-cluster", &format!("kapi-e2e={peer_url}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("etcd is installed (apt-get install etcd-server)");
        let etcd = Etcd {
            child,
            url,
            _dir: dir,
        };
        for _ in 0..500 {
            let health = format!("{}/health", etcd.url);
            let ok = Command::new("curl")
                .args(["-sf", &health])
                .output()
                .map(|o| o.status.success());
            if ok.unwrap_or(false) {
                return etcd;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("etcd did not become healthy");
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn two_kapis_on_one_etcd_read_and_watch_each_others_writes() {
    let etcd = Etcd::start().await;
    let a = Kapi::start_with(&["--etcd-servers", &etcd.url]).await;
    let b = Kapi::start_with(&["--etcd-servers", &etcd.url]).await;
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
