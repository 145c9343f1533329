//! Starts real `etcd` processes on free loopback ports with private temp data dirs, checks
//! that the etcd answering is ours (member name and URL), and kills it by PID on drop.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use etcd_client::{Certificate, Client, ConnectOptions, Identity, TlsOptions};

/// PEM files for an etcd that serves TLS and requires client certificates.
#[derive(Clone)]
pub struct TlsFiles {
    pub ca: std::path::PathBuf,
    pub server_cert: std::path::PathBuf,
    pub server_key: std::path::PathBuf,
    pub client_cert: std::path::PathBuf,
    pub client_key: std::path::PathBuf,
}

impl TlsFiles {
    /// Client options trusting the CA and presenting the client certificate.
    pub fn connect_options(&self) -> ConnectOptions {
        let read = |p: &std::path::PathBuf| std::fs::read(p).unwrap();
        let tls = TlsOptions::new()
            .ca_certificate(Certificate::from_pem(read(&self.ca)))
            .identity(Identity::from_pem(
                read(&self.client_cert),
                read(&self.client_key),
            ));
        ConnectOptions::new().with_tls(tls)
    }
}

/// One etcd member started by a test.
pub struct EtcdProcess {
    pub name: String,
    pub client_url: String,
    pub peer_url: String,
    child: Option<Child>,
    tls: Option<TlsFiles>,
    _dir: tempfile::TempDir,
}

/// A free loopback port (bound then released; etcd is checked afterwards to be ours).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn unique_name(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

impl EtcdProcess {
    /// Starts a single-member etcd, retrying with other ports if one was taken.
    pub async fn start() -> EtcdProcess {
        EtcdProcess::start_with(None).await
    }

    /// Starts a single-member etcd serving TLS and requiring client certificates.
    pub async fn start_tls(tls: TlsFiles) -> EtcdProcess {
        EtcdProcess::start_with(Some(tls)).await
    }

    async fn start_with(tls: Option<TlsFiles>) -> EtcdProcess {
        for _ in 0..5 {
            let name = unique_name("kapi-etcd");
            let peer_url = format!("http://127.0.0.1:{}", free_port());
            let cluster = format!("{name}={peer_url}");
            let token = name.clone();
            let mut process = EtcdProcess::spawn(name, peer_url, &cluster, &token, tls.clone());
            if process.wait_ready().await {
                return process;
            }
            process.kill();
        }
        panic!("could not start etcd");
    }

    fn spawn(
        name: String,
        peer_url: String,
        initial_cluster: &str,
        token: &str,
        tls: Option<TlsFiles>,
    ) -> EtcdProcess {
        let scheme = if tls.is_some() { "https" } else { "http" };
        let client_url = format!("{scheme}://127.0.0.1:{}", free_port());
        let mut tls_args: Vec<String> = Vec::new();
        if let Some(files) = &tls {
            let path = |p: &std::path::PathBuf| p.display().to_string();
            tls_args.extend(["--cert-file".into(), path(&files.server_cert)]);
            tls_args.extend(["--key-file".into(), path(&files.server_key)]);
            tls_args.extend(["--trusted-ca-file".into(), path(&files.ca)]);
            tls_args.push("--client-cert-auth".into());
        }
        let dir = tempfile::tempdir().unwrap();
        let log = std::fs::File::create(dir.path().join("etcd.log")).unwrap();
        let child = Command::new("etcd")
            .args(["--name", &name])
            .args(["--data-dir", &dir.path().join("data").display().to_string()])
            .args([
                "--listen-client-urls",
                &client_url,
                "--advertise-client-urls",
                &client_url,
            ])
            .args([
                "--listen-peer-urls",
                &peer_url,
                "--initial-advertise-peer-urls",
                &peer_url,
            ])
            .args([
                "--initial-cluster",
                initial_cluster,
                "--initial-cluster-state",
                "new",
            ])
            .args(["--initial-cluster-token", token])
            .args(["--experimental-watch-progress-notify-interval", "1s"])
            .args(["--logger", "zap", "--log-level", "warn"])
            .args(&tls_args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("etcd binary (Debian package etcd-server) must be installed");
        EtcdProcess {
            name,
            client_url,
            peer_url,
            child: Some(child),
            tls,
            _dir: dir,
        }
    }

    /// True once this process serves requests and reports itself as member `name`.
    async fn wait_ready(&mut self) -> bool {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        while tokio::time::Instant::now() < deadline {
            if !self.is_running() {
                return false;
            }
            if self.is_ours().await {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        false
    }

    async fn is_ours(&self) -> bool {
        let options = self.tls.as_ref().map(TlsFiles::connect_options);
        let connect = Client::connect([&self.client_url], options);
        let Ok(Ok(mut client)) = tokio::time::timeout(Duration::from_secs(5), connect).await else {
            return false;
        };
        let Ok(Ok(members)) =
            tokio::time::timeout(Duration::from_secs(5), client.member_list()).await
        else {
            return false;
        };
        let ours = members
            .members()
            .iter()
            .any(|m| m.name() == self.name && m.client_urls().contains(&self.client_url));
        // A put proves the member has a leader and accepts writes.
        ours && matches!(
            tokio::time::timeout(
                Duration::from_secs(5),
                client.put("/etcd-ready-probe", "1", None)
            )
            .await,
            Ok(Ok(_))
        )
    }

    fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// The OS process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills the process (SIGKILL by PID) and reaps it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for EtcdProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A 3-member etcd cluster on loopback.
pub struct EtcdCluster {
    pub members: Vec<EtcdProcess>,
}

impl EtcdCluster {
    /// Starts `n` members and waits until each serves writes.
    pub async fn start(n: usize) -> EtcdCluster {
        for _ in 0..3 {
            let token = unique_name("kapi-cluster");
            let names: Vec<String> = (0..n).map(|i| format!("{token}-m{i}")).collect();
            let peers: Vec<String> = (0..n)
                .map(|_| format!("http://127.0.0.1:{}", free_port()))
                .collect();
            let initial: Vec<String> = names
                .iter()
                .zip(&peers)
                .map(|(n, p)| format!("{n}={p}"))
                .collect();
            let initial = initial.join(",");
            let mut members: Vec<EtcdProcess> = names
                .into_iter()
                .zip(peers)
                .map(|(name, peer)| EtcdProcess::spawn(name, peer, &initial, &token, None))
                .collect();
            let mut ready = true;
            for member in &mut members {
                ready &= member.wait_ready().await;
            }
            if ready {
                return EtcdCluster { members };
            }
        }
        panic!("could not start an etcd cluster");
    }

    /// Every member's client URL.
    pub fn endpoints(&self) -> Vec<String> {
        self.members.iter().map(|m| m.client_url.clone()).collect()
    }
}
