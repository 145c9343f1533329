//! The load tool's HTTP client: a few keep-alive HTTPS connections (HTTP/2 when the server
//! offers it through ALPN, else HTTP/1.1) built from a kubeconfig's cluster, CA and
//! credentials (bearer token, token file or client certificate). Only standard API calls.

use super::BenchError;
use bytes::Bytes;
use http::{HeaderValue, Method, Request, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kube::client::ConfigExt;
use kube::config::{KubeConfigOptions, Kubeconfig};
use secrecy::ExposeSecret;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

type Https = hyper_rustls::HttpsConnector<HttpConnector>;

/// A pool of HTTPS clients to one API server; requests are spread round-robin.
pub struct ApiClient {
    clients: Vec<Client<Https, Full<Bytes>>>,
    base: String,
    auth: Option<HeaderValue>,
    next: AtomicUsize,
    tls: rustls::ClientConfig,
    http1_only: bool,
}

/// A response: status and the whole body.
pub struct Reply {
    /// HTTP status.
    pub status: StatusCode,
    /// The body, read to the end.
    pub body: Bytes,
}

impl ApiClient {
    /// Reads the kubeconfig and opens `connections` independent connection pools.
    pub async fn from_kubeconfig(
        path: &Path,
        connections: usize,
        http1_only: bool,
    ) -> Result<Self, BenchError> {
        let kc = Kubeconfig::read_from(path).map_err(|e| BenchError::Kubeconfig(e.to_string()))?;
        let config = kube::Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
            .await
            .map_err(|e| BenchError::Kubeconfig(e.to_string()))?;
        let auth = bearer(&config)?;
        let tls = config
            .rustls_client_config()
            .map_err(|e| BenchError::Kubeconfig(e.to_string()))?;
        let clients = (0..connections.max(1))
            .map(|_| http_client(&tls, http1_only))
            .collect();
        Ok(ApiClient {
            clients,
            base: config
                .cluster_url
                .to_string()
                .trim_end_matches('/')
                .to_owned(),
            auth,
            next: AtomicUsize::new(0),
            tls,
            http1_only,
        })
    }

    /// A client to the same server with at least `connections` connections (HTTP/2 servers
    /// cap the streams of one connection: 1 000 watches need more than a few).
    pub fn with_at_least(&self, connections: usize) -> ApiClient {
        ApiClient {
            clients: (0..connections.max(self.clients.len()))
                .map(|_| http_client(&self.tls, self.http1_only))
                .collect(),
            base: self.base.clone(),
            auth: self.auth.clone(),
            next: AtomicUsize::new(0),
            tls: self.tls.clone(),
            http1_only: self.http1_only,
        }
    }

    /// The server's URL, as the kubeconfig names it.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Sends a request and returns the response head with its streaming body.
    pub async fn open(
        &self,
        method: Method,
        path: &str,
        accept: &str,
        body: Option<Vec<u8>>,
    ) -> Result<hyper::Response<Incoming>, BenchError> {
        let mut builder = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header(header::ACCEPT, accept);
        if let Some(auth) = &self.auth {
            builder = builder.header(header::AUTHORIZATION, auth.clone());
        }
        if body.is_some() {
            builder = builder.header(header::CONTENT_TYPE, "application/json");
        }
        let req = builder
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .map_err(|e| BenchError::Request(e.to_string()))?;
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.clients.len();
        self.clients[i]
            .request(req)
            .await
            .map_err(|e| BenchError::Request(format!("{path}: {e}")))
    }

    /// Sends a request and reads the whole body.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        accept: &str,
        body: Option<Vec<u8>>,
    ) -> Result<Reply, BenchError> {
        let resp = self.open(method, path, accept, body).await?;
        let status = resp.status();
        let body = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| BenchError::Request(format!("{path}: {e}")))?
            .to_bytes();
        Ok(Reply { status, body })
    }
}

/// One independent keep-alive client (its own connection).
fn http_client(tls: &rustls::ClientConfig, http1_only: bool) -> Client<Https, Full<Bytes>> {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    let builder = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls.clone())
        .https_or_http();
    let connector = if http1_only {
        builder.enable_http1().wrap_connector(http)
    } else {
        builder.enable_all_versions().wrap_connector(http)
    };
    Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(usize::MAX)
        .build(connector)
}

/// The `Authorization` header from the kubeconfig's token or token file, if any.
fn bearer(config: &kube::Config) -> Result<Option<HeaderValue>, BenchError> {
    let token = match (&config.auth_info.token, &config.auth_info.token_file) {
        (Some(t), _) => Some(t.expose_secret().to_owned()),
        (None, Some(file)) => Some(
            std::fs::read_to_string(file)
                .map_err(|e| BenchError::Kubeconfig(format!("{file}: {e}")))?
                .trim()
                .to_owned(),
        ),
        (None, None) => None,
    };
    token
        .map(|t| {
            HeaderValue::from_str(&format!("Bearer {t}"))
                .map_err(|_| BenchError::Kubeconfig("token is not a valid header value".into()))
        })
        .transpose()
}
