//! What controller-runtime's envtest hands its kube-apiserver, rebuilt (read from
//! controller-runtime's `pkg/internal/testing/controlplane`, v0.22–v0.24): the cert dir's
//! files — `apiserver.crt`/`apiserver.key` (a serving certificate for `localhost`,
//! `127.0.0.1` and `::1` from its own CA), `sa-signer.crt`/`sa-signer.key` (a CA
//! certificate and its key, the ServiceAccount signer), `client-cert-auth-ca.crt` (the CA of
//! its users' client certificates); every key ECDSA P-256 in PKCS#8, every CA named
//! `envtest-environment` (O `envtest`) — and the exact argument list, `--key=value`, sorted.

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    SanType,
};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;

/// One CA of envtest's (`certs.NewTinyCA`).
struct TinyCa {
    params: CertificateParams,
    key: KeyPair,
    pem: String,
}

impl TinyCa {
    fn new() -> Self {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "envtest-environment");
        params
            .distinguished_name
            .push(DnType::OrganizationName, "envtest");
        let pem = params.self_signed(&key).unwrap().pem();
        Self { params, key, pem }
    }

    /// A leaf (certificate PEM, PKCS#8 key PEM) signed by this CA.
    fn sign(&self, params: CertificateParams) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let issuer = Issuer::new(self.params.clone(), &self.key);
        let cert = params.signed_by(&key, &issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

/// The cert dir envtest prepared, and what its clients use.
#[derive(Debug, Clone)]
pub struct EnvtestFiles {
    /// The serving CA (PEM): what envtest's rest.Config trusts.
    pub serving_ca_pem: String,
    /// The `admin` user's client certificate (PEM; CN `admin`, O `system:masters`).
    pub admin_cert_pem: String,
    /// Its key (PEM).
    pub admin_key_pem: String,
}

/// Writes envtest's cert-dir files into `dir`.
pub fn write_cert_dir(dir: &Path) -> EnvtestFiles {
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    let serving_ca = TinyCa::new();
    let mut serving = CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
    serving.subject_alt_names.extend([
        SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        SanType::IpAddress(IpAddr::V6(Ipv6Addr::LOCALHOST)),
    ]);
    serving
        .distinguished_name
        .push(DnType::CommonName, "localhost");
    serving
        .distinguished_name
        .push(DnType::OrganizationName, "envtest");
    serving.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let (cert, key) = serving_ca.sign(serving);
    write("apiserver.crt", &cert);
    write("apiserver.key", &key);
    let sa = TinyCa::new();
    write("sa-signer.crt", &sa.pem);
    write("sa-signer.key", &sa.key.serialize_pem());
    let clients = TinyCa::new();
    write("client-cert-auth-ca.crt", &clients.pem);
    let mut admin = CertificateParams::new(Vec::<String>::new()).unwrap();
    admin.distinguished_name.push(DnType::CommonName, "admin");
    admin
        .distinguished_name
        .push(DnType::OrganizationName, "system:masters");
    admin.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let (admin_cert_pem, admin_key_pem) = clients.sign(admin);
    EnvtestFiles {
        serving_ca_pem: serving_ca.pem,
        admin_cert_pem,
        admin_key_pem,
    }
}

/// The arguments envtest passes to kube-apiserver (its `defaultArgs` plus the cert
/// authenticator's `--client-ca-file`, `--insecure-port` left out because the binary's
/// `--help` does not list it), rendered as `--key=value` in key order.
pub fn apiserver_args(cert_dir: &Path, port: u16, etcd_url: &str) -> Vec<String> {
    let dir = cert_dir.display();
    vec![
        "--allow-privileged=true".to_owned(),
        "--authorization-mode=RBAC".to_owned(),
        "--bind-address=127.0.0.1".to_owned(),
        format!("--cert-dir={dir}"),
        format!("--client-ca-file={dir}/client-cert-auth-ca.crt"),
        "--disable-admission-plugins=ServiceAccount".to_owned(),
        format!("--etcd-servers={etcd_url}"),
        format!("--secure-port={port}"),
        format!("--service-account-issuer=https://127.0.0.1:{port}/"),
        format!("--service-account-key-file={dir}/sa-signer.crt"),
        format!("--service-account-signing-key-file={dir}/sa-signer.key"),
        "--service-cluster-ip-range=10.0.0.0/24".to_owned(),
    ]
}

/// The kubeconfig envtest's `KubeConfigFromREST` writes for a user: cluster, user and
/// context all named `envtest`.
pub fn kubeconfig(port: u16, files: &EnvtestFiles) -> String {
    use base64::Engine;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: envtest\n  cluster:\n    server: https://127.0.0.1:{port}\n    certificate-authority-data: {}\nusers:\n- name: envtest\n  user:\n    client-certificate-data: {}\n    client-key-data: {}\ncontexts:\n- name: envtest\n  context:\n    cluster: envtest\n    user: envtest\ncurrent-context: envtest\n",
        b64(&files.serving_ca_pem),
        b64(&files.admin_cert_pem),
        b64(&files.admin_key_pem)
    )
}
