//! rustls (ring) server configuration: the serving certificate, ALPN h2 + http/1.1, and
//! optional client certificates verified against the CA.

use crate::pki::Credentials;
use rustls::RootCertStore;
use rustls::server::WebPkiClientVerifier;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::sync::Arc;

/// Errors building the TLS configuration.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A PEM document did not parse.
    #[error("PEM: {0}")]
    Pem(#[from] rustls_pki_types::pem::Error),
    /// rustls refused the configuration.
    #[error("TLS: {0}")]
    Rustls(#[from] rustls::Error),
    /// The client verifier could not be built.
    #[error("client verifier: {0}")]
    Verifier(#[from] rustls::server::VerifierBuilderError),
}

/// Installs ring as the process-wide rustls crypto provider (idempotent).
pub fn install_crypto_provider() {
    // Err only means a provider is already installed, which is what we want.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Builds the server TLS configuration from the credentials.
pub fn server_config(creds: &Credentials) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(creds.ca_pem.as_bytes()) {
        roots.add(cert?)?;
    }
    let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .allow_unauthenticated()
        .build()?;
    let chain = CertificateDer::pem_slice_iter(creds.serving_cert_pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()?;
    let key = PrivateKeyDer::from_pem_slice(creds.serving_key_pem.as_bytes())?;
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
