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

/// Marks a request that came over a connection with a CA-verified client certificate.
#[derive(Debug, Clone)]
pub struct ClientCertUser(pub String);

/// How long open connections (e.g. watches) get to finish after shutdown starts.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Accepts connections until `shutdown` resolves, then drains them.
pub async fn serve(
    listener: TcpListener,
    tls: Arc<rustls::ServerConfig>,
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
                    tokio::spawn(async move {
                        serve_connection(acceptor, tcp, app, watcher).await;
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
    watcher: hyper_util::server::graceful::Watcher,
) {
    let tls = match acceptor.accept(tcp).await {
        Ok(tls) => tls,
        Err(e) => {
            tracing::debug!(error = %e, "TLS handshake failed");
            return;
        }
    };
    let user = tls
        .get_ref()
        .1
        .peer_certificates()
        .and_then(|certs| certs.first())
        .map(|_| ClientCertUser("client-certificate".to_owned()));
    let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        if let Some(user) = &user {
            req.extensions_mut().insert(user.clone());
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
