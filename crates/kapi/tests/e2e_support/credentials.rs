//! Credentials a test makes for kapi to judge: ServiceAccount tokens signed with a key the
//! test holds (live or expired) or with a key kapi does not know, and client certificates
//! of a CA kapi does not know.

use kapi_serviceaccount::{BoundToken, ObjectRef, SigningKey, jws};
use std::path::{Path, PathBuf};

/// The issuer kapi uses by default.
pub const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// A new signing key written to `dir/sa.key`; its path is for
/// `--service-account-signing-key-file`.
pub fn signing_key_in(dir: &Path) -> (SigningKey, String) {
    let (key, pem) = SigningKey::generate().unwrap();
    let path = dir.join("sa.key");
    std::fs::write(&path, pem).unwrap();
    (key, path.to_str().unwrap().to_owned())
}

/// A key no kapi knows.
pub fn unknown_key() -> SigningKey {
    SigningKey::generate().unwrap().0
}

/// A token of ServiceAccount `namespace/name` (uid `uid`) signed with `key`, valid from
/// `issued_at` to `expires_at` (Unix seconds).
pub fn service_account_token(
    key: &SigningKey,
    namespace: &str,
    name: &str,
    uid: &str,
    issued_at: i64,
    expires_at: i64,
) -> String {
    let claims = BoundToken {
        issuer: ISSUER.into(),
        audiences: vec![ISSUER.into()],
        issued_at,
        expires_at,
        namespace: namespace.into(),
        service_account: ObjectRef {
            name: name.into(),
            uid: uid.into(),
        },
        id: "test".into(),
        ..Default::default()
    }
    .claims();
    jws::sign(key, &claims).unwrap()
}

/// A CA of its own (in a temp dir) that a kapi does not trust, and a client certificate
/// it signed.
pub struct ForeignCa {
    /// The CA's dir (`ca.crt`, `ca.key`), and the certificate's files.
    pub dir: tempfile::TempDir,
}

impl ForeignCa {
    /// A new CA (kapi's PKI in another data dir: another CA of the same name).
    pub fn create() -> Self {
        let dir = tempfile::tempdir().unwrap();
        kapi_server::pki::Credentials::load_or_create(dir.path(), &[]).unwrap();
        Self { dir }
    }

    /// The CA's certificate file (for `--client-ca-file`).
    pub fn ca_file(&self) -> PathBuf {
        self.dir.path().join("ca.crt")
    }

    /// A client certificate for user `cn` in group `o`, written as `<cn>.crt`/`<cn>.key`:
    /// (certificate file, key file, certificate PEM).
    pub fn client_cert(&self, cn: &str, o: Option<&str>) -> (PathBuf, PathBuf, String) {
        let (cert, key) = kapi_server::pki::issue_client_cert(self.dir.path(), cn, o).unwrap();
        let cert_file = self.dir.path().join(format!("{cn}.crt"));
        let key_file = self.dir.path().join(format!("{cn}.key"));
        std::fs::write(&cert_file, &cert).unwrap();
        std::fs::write(&key_file, &key).unwrap();
        (cert_file, key_file, cert)
    }
}

/// The base64 body of a PEM block (what a log must not hold of a certificate).
pub fn pem_body(pem: &str) -> String {
    pem.lines().filter(|l| !l.starts_with("-----")).collect()
}
