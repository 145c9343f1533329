//! A fresh CA and a serving certificate signed by it (rcgen), as PEM strings and as files in
//! a private temp dir, for HTTPS servers that tests start (webhooks).

use base64::Engine;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use std::path::PathBuf;

use crate::net::unique_name;

/// The names the serving certificate is valid for.
pub const SERVING_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "widgets.webhooks.svc"];

/// A CA and a leaf certificate for [`SERVING_NAMES`]; the files live as long as `dir`.
pub struct Certs {
    /// The temp dir holding `tls.crt` and `tls.key`.
    pub dir: tempfile::TempDir,
    /// The CA certificate (PEM).
    pub ca_pem: String,
    /// The serving certificate (PEM).
    pub cert_pem: String,
    /// The serving certificate's private key (PEM).
    pub key_pem: String,
    /// `tls.crt`: the serving certificate.
    pub cert_file: PathBuf,
    /// `tls.key`: the serving certificate's private key.
    pub key_file: PathBuf,
}

impl Certs {
    /// The CA as a CRD `caBundle`: base64 of the PEM.
    pub fn ca_bundle(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.ca_pem)
    }
}

/// A fresh CA and a serving certificate signed by it, written to a new temp dir.
///
/// Each CA gets a unique name: a verifier finds a CA by name before it checks the key, so two
/// CAs with one name would give "bad signature" instead of "unknown authority".
pub fn make_certs() -> Certs {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, unique_name("kapi-test-ca"));
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, &ca_key);
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(SERVING_NAMES.map(String::from).to_vec())
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
    let (cert_pem, key_pem) = (leaf.pem(), leaf_key.serialize_pem());
    let dir = tempfile::tempdir().unwrap();
    let cert_file = dir.path().join("tls.crt");
    let key_file = dir.path().join("tls.key");
    std::fs::write(&cert_file, &cert_pem).unwrap();
    std::fs::write(&key_file, &key_pem).unwrap();
    Certs {
        dir,
        ca_pem: ca_cert.pem(),
        cert_pem,
        key_pem,
        cert_file,
        key_file,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_certs_writes_the_pem_it_returns() {
        let certs = make_certs();
        assert_eq!(
            std::fs::read_to_string(&certs.cert_file).unwrap(),
            certs.cert_pem
        );
        assert_eq!(
            std::fs::read_to_string(&certs.key_file).unwrap(),
            certs.key_pem
        );
    }

    #[test]
    fn ca_bundle_decodes_to_the_ca_pem() {
        let certs = make_certs();
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(certs.ca_bundle())
            .unwrap();
        assert_eq!(decoded, certs.ca_pem.as_bytes());
    }
}
