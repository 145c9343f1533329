//! First-start bootstrap of the data dir: a CA, a serving certificate, an admin token and a
//! kubeconfig, all written with mode 0600 (DESIGN.md "Security defaults").

use crate::files::{FileError, read_to_string_opt, write_private};
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};
use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// File names inside the data dir.
pub const CA_CERT: &str = "ca.crt";
/// The CA's private key.
pub const CA_KEY: &str = "ca.key";
/// The serving certificate.
pub const SERVING_CERT: &str = "apiserver.crt";
/// The serving certificate's private key.
pub const SERVING_KEY: &str = "apiserver.key";
/// The SAN list the serving certificate was issued for (one per line).
pub const SERVING_SANS: &str = "apiserver.sans";
/// The token file, in kube-apiserver's `--token-auth-file` CSV format.
pub const TOKEN_FILE: &str = "tokens.csv";
/// The admin kubeconfig.
pub const KUBECONFIG: &str = "kubeconfig";

/// Errors of the PKI bootstrap.
#[derive(Debug, thiserror::Error)]
pub enum PkiError {
    /// Reading or writing a file failed.
    #[error(transparent)]
    File(#[from] FileError),
    /// Certificate generation or parsing failed.
    #[error("certificate: {0}")]
    Cert(#[from] rcgen::Error),
    /// The token file holds no usable token.
    #[error("{0}: no token in the token file")]
    NoToken(PathBuf),
    /// The token file cannot be parsed.
    #[error("{0}: {1}")]
    TokenFile(PathBuf, crate::token_file::TokenFileError),
    /// The random number generator failed.
    #[error("random number generator failed")]
    Random,
}

/// The credentials a server runs with, loaded from (or first created in) the data dir.
#[derive(Clone)]
pub struct Credentials {
    /// PEM of the data dir's CA certificate (it signs kapi's own client certificates).
    pub ca_pem: String,
    /// PEM of what verifies the serving certificate (the data dir's CA, or the chain of
    /// `--tls-cert-file`): the kubeconfig's and `kube-root-ca.crt`'s CA.
    pub serving_ca_pem: String,
    /// PEM of more CAs whose client certificates authenticate (`--client-ca-file`).
    pub client_ca_pem: String,
    /// PEM of the serving certificate.
    pub serving_cert_pem: String,
    /// PEM (PKCS#8) of the serving key.
    pub serving_key_pem: String,
    /// The data dir's token file: token → user (the first line's token is the admin
    /// kubeconfig's).
    pub tokens: std::collections::HashMap<String, crate::authn::User>,
    /// The token the admin kubeconfig carries.
    pub admin_token: String,
}

impl Credentials {
    /// Loads the credentials from `data_dir`, creating whatever is missing. The serving
    /// certificate is re-issued when the wanted SANs changed (e.g. a new advertise address).
    pub fn load_or_create(data_dir: &Path, extra_ips: &[IpAddr]) -> Result<Self, PkiError> {
        crate::files::create_private_dir(data_dir)?;
        let ca_key = load_or_create_ca(data_dir)?;
        let ca_pem = must_read(&data_dir.join(CA_CERT))?;
        let sans = serving_sans(extra_ips);
        let sans_text = sans.join("\n");
        let sans_path = data_dir.join(SERVING_SANS);
        let current = read_to_string_opt(&sans_path)?;
        let cert_path = data_dir.join(SERVING_CERT);
        if current.as_deref() != Some(sans_text.as_str()) || !cert_path.exists() {
            let (cert, key) = issue_serving_cert(&ca_key, &sans)?;
            write_private(&data_dir.join(SERVING_KEY), key.as_bytes())?;
            write_private(&cert_path, cert.as_bytes())?;
            write_private(&sans_path, sans_text.as_bytes())?;
        }
        let (tokens, admin_token) = load_or_create_tokens(data_dir)?;
        Ok(Self {
            serving_ca_pem: ca_pem.clone(),
            ca_pem,
            client_ca_pem: String::new(),
            serving_cert_pem: must_read(&cert_path)?,
            serving_key_pem: must_read(&data_dir.join(SERVING_KEY))?,
            tokens,
            admin_token,
        })
    }
}

impl Credentials {
    /// Serves with the certificate and key of these files (`--tls-cert-file` and
    /// `--tls-private-key-file`, or the `apiserver.crt`/`apiserver.key` of `--cert-dir`);
    /// the kubeconfig then carries the certificate file's chain as its CA.
    pub fn with_serving_files(mut self, cert: &Path, key: &Path) -> Result<Self, PkiError> {
        self.serving_cert_pem = must_read(cert)?;
        self.serving_key_pem = must_read(key)?;
        self.serving_ca_pem = self.serving_cert_pem.clone();
        Ok(self)
    }

    /// Also accepts client certificates of the CAs in `file` (`--client-ca-file`).
    pub fn with_client_ca_file(mut self, file: &Path) -> Result<Self, PkiError> {
        self.client_ca_pem = must_read(file)?;
        Ok(self)
    }
}

/// Issues a client certificate signed by the data dir's CA, for user `common_name`, in
/// `group` when given (its organization). Returns (certificate PEM, key PEM). Used by tests
/// and by admins who prefer certificates.
pub fn issue_client_cert(
    data_dir: &Path,
    common_name: &str,
    group: Option<&str>,
) -> Result<(String, String), PkiError> {
    let ca_key = KeyPair::from_pem(&must_read(&data_dir.join(CA_KEY))?)?;
    let issuer = Issuer::new(ca_params()?, &ca_key);
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.distinguished_name = DistinguishedName::new();
    params
        .distinguished_name
        .push(DnType::CommonName, common_name);
    if let Some(group) = group {
        params
            .distinguished_name
            .push(DnType::OrganizationName, group);
    }
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    let cert = params.signed_by(&key, &issuer)?;
    Ok((cert.pem(), key.serialize_pem()))
}

fn must_read(path: &Path) -> Result<String, PkiError> {
    std::fs::read_to_string(path).map_err(|source| {
        PkiError::File(FileError {
            path: path.to_owned(),
            source,
        })
    })
}

/// The CA's parameters; rebuilt identically on every start so that a reloaded key can sign.
fn ca_params() -> Result<CertificateParams, PkiError> {
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.distinguished_name = DistinguishedName::new();
    params
        .distinguished_name
        .push(DnType::CommonName, "kapi-ca");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    params.not_before = rcgen::date_time_ymd(2024, 1, 1);
    params.not_after = rcgen::date_time_ymd(2124, 1, 1);
    Ok(params)
}

fn load_or_create_ca(data_dir: &Path) -> Result<KeyPair, PkiError> {
    let key_path = data_dir.join(CA_KEY);
    let cert_path = data_dir.join(CA_CERT);
    if let (Some(key), true) = (read_to_string_opt(&key_path)?, cert_path.exists()) {
        return Ok(KeyPair::from_pem(&key)?);
    }
    let key = KeyPair::generate()?;
    let cert = ca_params()?.self_signed(&key)?;
    write_private(&key_path, key.serialize_pem().as_bytes())?;
    write_private(&cert_path, cert.pem().as_bytes())?;
    Ok(key)
}

fn serving_sans(extra_ips: &[IpAddr]) -> Vec<String> {
    let mut sans = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "kubernetes".to_owned(),
        "kubernetes.default".to_owned(),
        "kubernetes.default.svc".to_owned(),
    ];
    for ip in extra_ips {
        let ip = ip.to_string();
        if !sans.contains(&ip) {
            sans.push(ip);
        }
    }
    sans
}

fn issue_serving_cert(ca_key: &KeyPair, sans: &[String]) -> Result<(String, String), PkiError> {
    let issuer = Issuer::new(ca_params()?, ca_key);
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::new(sans.to_vec())?;
    params.distinguished_name = DistinguishedName::new();
    params
        .distinguished_name
        .push(DnType::CommonName, "kube-apiserver");
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    params.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    params.not_before = rcgen::date_time_ymd(2024, 1, 1);
    params.not_after = rcgen::date_time_ymd(2124, 1, 1);
    let cert = params.signed_by(&key, &issuer)?;
    Ok((cert.pem(), key.serialize_pem()))
}

/// The data dir's token file (created with one admin token in `system:masters` when
/// missing) and the token of its first line.
type Tokens = (
    std::collections::HashMap<String, crate::authn::User>,
    String,
);

fn load_or_create_tokens(data_dir: &Path) -> Result<Tokens, PkiError> {
    let path = data_dir.join(TOKEN_FILE);
    let text = match read_to_string_opt(&path)? {
        Some(text) => text,
        None => {
            let line = format!("{},admin,admin,\"system:masters\"\n", random_token()?);
            write_private(&path, line.as_bytes())?;
            line
        }
    };
    let tokens =
        crate::token_file::parse(&text).map_err(|e| PkiError::TokenFile(path.clone(), e))?;
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| l.split(',').next())
        .map(|t| t.trim().to_owned())
        .filter(|t| tokens.contains_key(t))
        .ok_or(PkiError::NoToken(path))?;
    Ok((tokens, first))
}

/// 32 random bytes, hex-encoded.
fn random_token() -> Result<String, PkiError> {
    use ring::rand::SecureRandom;
    let mut bytes = [0u8; 32];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| PkiError::Random)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes `<data-dir>/kubeconfig` for the admin user, pointing at `server_url`.
pub fn write_kubeconfig(
    data_dir: &Path,
    server_url: &str,
    creds: &Credentials,
) -> Result<PathBuf, PkiError> {
    use base64::Engine;
    let ca = base64::engine::general_purpose::STANDARD.encode(creds.serving_ca_pem.as_bytes());
    let token = creds.admin_token.as_str();
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: kapi\n  cluster:\n    server: {server_url}\n    certificate-authority-data: {ca}\nusers:\n- name: admin\n  user:\n    token: {token}\ncontexts:\n- name: kapi\n  context:\n    cluster: kapi\n    user: admin\n    namespace: default\ncurrent-context: kapi\n"
    );
    let path = data_dir.join(KUBECONFIG);
    if read_to_string_opt(&path)?.as_deref() != Some(text.as_str()) {
        // Regenerated on every start, so no fsync: a lost write is rewritten next time.
        crate::files::write_private_unsynced(&path, text.as_bytes())?;
    }
    Ok(path)
}
