//! A private etcd process for end-to-end tests that run several kapi processes on one store.
#![allow(dead_code)]

use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A private etcd, killed on drop.
pub struct Etcd {
    child: Child,
    /// Client URL.
    pub url: String,
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
    /// Starts etcd on free loopback ports and waits until it is healthy.
    pub async fn start() -> Etcd {
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
