//! Real `etcd` processes on free loopback ports with private temp data dirs: one member (plain
//! or TLS with client certificates) or a cluster. A started member is checked to be ours
//! (member name and client URL) and to accept writes; it is killed by PID on drop.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use etcd_client::{Certificate, Client, ConnectOptions, Identity, TlsOptions};
use rcgen::{
    BasicConstraints, CertificateParams, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

use crate::net::{free_port, unique_name};

/// PEM files for an etcd that serves TLS and requires client certificates.
#[derive(Clone)]
pub struct TlsFiles {
    /// The CA that signed both certificates.
    pub ca: PathBuf,
    /// etcd's serving certificate.
    pub server_cert: PathBuf,
    /// etcd's serving key.
    pub server_key: PathBuf,
    /// A client certificate etcd accepts.
    pub client_cert: PathBuf,
    /// The client certificate's key.
    pub client_key: PathBuf,
}

impl TlsFiles {
    /// Writes a fresh CA, a server certificate for 127.0.0.1 and a client certificate into `dir`.
    pub fn generate(dir: &Path) -> TlsFiles {
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca_key = KeyPair::generate().unwrap();
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let leaf = |sans: Vec<String>, usage: ExtendedKeyUsagePurpose| {
            let mut params = CertificateParams::new(sans).unwrap();
            params.extended_key_usages = vec![usage];
            params.use_authority_key_identifier_extension = true;
            let key = KeyPair::generate().unwrap();
            let cert = params.signed_by(&key, &issuer).unwrap();
            (cert.pem(), key.serialize_pem())
        };
        let server = leaf(
            vec!["127.0.0.1".into(), "localhost".into()],
            ExtendedKeyUsagePurpose::ServerAuth,
        );
        let client = leaf(
            vec!["kapi-client".into()],
            ExtendedKeyUsagePurpose::ClientAuth,
        );
        let write = |name: &str, pem: &str| {
            let path = dir.join(name);
            std::fs::write(&path, pem).unwrap();
            path
        };
        TlsFiles {
            ca: write("ca.pem", &ca_cert.pem()),
            server_cert: write("server.pem", &server.0),
            server_key: write("server-key.pem", &server.1),
            client_cert: write("client.pem", &client.0),
            client_key: write("client-key.pem", &client.1),
        }
    }

    /// Client options trusting the CA and presenting the client certificate.
    pub fn connect_options(&self) -> ConnectOptions {
        let read = |p: &PathBuf| std::fs::read(p).unwrap();
        let tls = TlsOptions::new()
            .ca_certificate(Certificate::from_pem(read(&self.ca)))
            .identity(Identity::from_pem(
                read(&self.client_cert),
                read(&self.client_key),
            ));
        ConnectOptions::new().with_tls(tls)
    }
}

/// One etcd member started by a test; killed on drop.
pub struct EtcdProcess {
    /// The member name (unique per process).
    pub name: String,
    /// `http(s)://127.0.0.1:PORT` for clients.
    pub client_url: String,
    /// `http://127.0.0.1:PORT` for peers.
    pub peer_url: String,
    child: Option<Child>,
    tls: Option<TlsFiles>,
    _dir: tempfile::TempDir,
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
        let dir = tempfile::tempdir().unwrap();
        let log = std::fs::File::create(dir.path().join("etcd.log")).unwrap();
        let child = Command::new("etcd")
            .args(["--name", &name])
            .args(["--data-dir", &dir.path().join("data").display().to_string()])
            .args(["--listen-client-urls", &client_url])
            .args(["--advertise-client-urls", &client_url])
            .args(["--listen-peer-urls", &peer_url])
            .args(["--initial-advertise-peer-urls", &peer_url])
            .args(["--initial-cluster", initial_cluster])
            .args(["--initial-cluster-state", "new"])
            .args(["--initial-cluster-token", token])
            .args(["--experimental-watch-progress-notify-interval", "1s"])
            .args(["--logger", "zap", "--log-level", "warn"])
            .args(tls.as_ref().map(tls_args).unwrap_or_default())
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

    /// Whether the etcd on `client_url` is this member (not another test's that took the
    /// port first) and accepts writes.
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
        let put = client.put("/etcd-ready-probe", "1", None);
        ours && matches!(
            tokio::time::timeout(Duration::from_secs(5), put).await,
            Ok(Ok(_))
        )
    }

    fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// The OS process id (None once killed).
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

/// etcd's flags to serve `files` and require client certificates.
fn tls_args(files: &TlsFiles) -> Vec<String> {
    let path = |p: &PathBuf| p.display().to_string();
    vec![
        "--cert-file".into(),
        path(&files.server_cert),
        "--key-file".into(),
        path(&files.server_key),
        "--trusted-ca-file".into(),
        path(&files.ca),
        "--client-cert-auth".into(),
    ]
}

/// An etcd cluster of several members on loopback.
pub struct EtcdCluster {
    /// The members, in start order.
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
