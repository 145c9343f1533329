//! The TLS accept loop: tokio-rustls handshakes, then hyper-util's auto builder serves
//! HTTP/1.1 or HTTP/2 (chosen by ALPN) with the axum router; graceful on shutdown.

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

/// The user of a connection with a CA-verified client certificate: its subject's common
/// name, and its organizations as groups (kube's `CommonNameUserConversion`).
#[derive(Debug, Clone)]
pub struct ClientCertUser(pub crate::authn::User);

/// A connection's client certificate that the CA did not sign (or that names no user),
/// and why.
#[derive(Debug, Clone)]
pub struct ClientCertRejected(pub String);

/// The user a client certificate (DER) names; `None` without a common name.
pub fn certificate_user(der: &[u8]) -> Option<crate::authn::User> {
    let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
    let subject = cert.subject();
    let name = subject
        .iter_common_name()
        .next()
        .and_then(|cn| cn.as_str().ok())
        .filter(|cn| !cn.is_empty())?;
    let groups = subject
        .iter_organization()
        .filter_map(|o| o.as_str().ok())
        .map(str::to_owned)
        .collect();
    Some(crate::authn::User::authenticated(name, "", groups))
}

/// How long open connections (e.g. watches) get to finish after shutdown starts.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Accepts connections until `shutdown` resolves, then drains them.
pub async fn serve(
    listener: TcpListener,
    tls: Arc<rustls::ServerConfig>,
    client_certs: crate::tls::ClientCerts,
    app: Router,
    shutdown: impl Future<Output = ()>,
) {
    let acceptor = TlsAcceptor::from(tls);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _peer)) => {
                    let _ = tcp.set_nodelay(true);
                    let acceptor = acceptor.clone();
                    let app = app.clone();
                    let watcher = graceful.watcher();
                    let client_certs = client_certs.clone();
                    tokio::spawn(async move {
                        serve_connection(acceptor, tcp, app, client_certs, watcher).await;
                    });
                }
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            },
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    tracing::info!("shutting down: draining connections");
    if tokio::time::timeout(DRAIN_TIMEOUT, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections still open after the drain timeout; closing");
    }
}

async fn serve_connection(
    acceptor: TlsAcceptor,
    tcp: tokio::net::TcpStream,
    app: Router,
    client_certs: crate::tls::ClientCerts,
    watcher: hyper_util::server::graceful::Watcher,
) {
    let tls = match acceptor.accept(tcp).await {
        Ok(tls) => tls,
        Err(e) => {
            tracing::debug!(error = %e, "TLS handshake failed");
            return;
        }
    };
    let peer: Option<Result<ClientCertUser, ClientCertRejected>> =
        tls.get_ref().1.peer_certificates().map(|chain| {
            client_certs.check(chain).map_err(ClientCertRejected)?;
            chain
                .first()
                .and_then(|cert| certificate_user(cert.as_ref()))
                .map(ClientCertUser)
                .ok_or_else(|| ClientCertRejected("the certificate names no user".into()))
        });
    let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        match &peer {
            Some(Ok(user)) => {
                req.extensions_mut().insert(user.clone());
            }
            Some(Err(rejected)) => {
                req.extensions_mut().insert(rejected.clone());
            }
            None => {}
        }
        app.clone().oneshot(req.map(axum::body::Body::new))
    });
    let builder = auto::Builder::new(TokioExecutor::new());
    let conn = builder
        .serve_connection_with_upgrades(TokioIo::new(tls), service)
        .into_owned();
    if let Err(e) = watcher.watch(conn).await {
        tracing::debug!(error = %e, "connection ended with an error");
    }
}
