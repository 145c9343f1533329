//! TLS serving helpers: rustls with ring, certificate and key from PEM files, and an accept
//! loop that serves a router over HTTPS with HTTP/1.1 and HTTP/2 (ALPN).

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

/// Errors loading certificates or building the TLS configuration.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A PEM file could not be read or parsed.
    #[error("{path}: {source}")]
    Pem {
        /// The file.
        path: String,
        /// What went wrong.
        source: rustls_pki_types::pem::Error,
    },
    /// The certificate file holds no certificate.
    #[error("{0}: no certificate found")]
    NoCertificate(String),
    /// rustls refused the certificate/key pair.
    #[error("TLS configuration: {0}")]
    Rustls(#[from] rustls::Error),
}

/// Installs ring as the process-wide rustls crypto provider (idempotent).
pub fn install_crypto_provider() {
    // Err only means a provider is already installed.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A server configuration from PEM bytes: the certificate chain and its private key,
/// ALPN `h2` then `http/1.1`.
pub fn server_config_from_pem(
    cert_pem: &[u8],
    key_pem: &[u8],
) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let pem_err = |path: &str| {
        let path = path.to_owned();
        move |source| TlsError::Pem { path, source }
    };
    let chain = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(pem_err("certificate"))?;
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(pem_err("key"))?;
    build_config(chain, key, "certificate")
}

/// A server configuration from a certificate-chain PEM file and a private-key PEM file.
pub fn load_server_config(
    cert_file: &Path,
    key_file: &Path,
) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let cert_name = cert_file.display().to_string();
    let key_name = key_file.display().to_string();
    let chain = CertificateDer::pem_file_iter(cert_file)
        .and_then(|it| it.collect::<Result<Vec<_>, _>>())
        .map_err(|source| TlsError::Pem {
            path: cert_name.clone(),
            source,
        })?;
    let key = PrivateKeyDer::from_pem_file(key_file).map_err(|source| TlsError::Pem {
        path: key_name,
        source,
    })?;
    build_config(chain, key, &cert_name)
}

fn build_config(
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    cert_name: &str,
) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    if chain.is_empty() {
        return Err(TlsError::NoCertificate(cert_name.to_owned()));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Serves `router` over HTTPS on `listener` until `shutdown` resolves; each connection
/// speaks HTTP/2 or HTTP/1.1 as negotiated by ALPN. Connections already open finish on
/// their own after shutdown.
pub async fn serve_tls(
    listener: TcpListener,
    config: Arc<rustls::ServerConfig>,
    router: Router,
    shutdown: impl Future<Output = ()>,
) {
    let acceptor = TlsAcceptor::from(config);
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => {
                    let _ = tcp.set_nodelay(true);
                    tokio::spawn(serve_connection(acceptor.clone(), tcp, router.clone()));
                }
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                }
            },
            () = &mut shutdown => break,
        }
    }
}

async fn serve_connection(acceptor: TlsAcceptor, tcp: tokio::net::TcpStream, router: Router) {
    let tls = match acceptor.accept(tcp).await {
        Ok(tls) => tls,
        Err(e) => {
            tracing::debug!(error = %e, "TLS handshake failed");
            return;
        }
    };
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        router.clone().oneshot(req.map(axum::body::Body::new))
    });
    let served = auto::Builder::new(TokioExecutor::new())
        .serve_connection(TokioIo::new(tls), service)
        .await;
    if let Err(e) = served {
        tracing::debug!(error = %e, "connection ended with an error");
    }
}
