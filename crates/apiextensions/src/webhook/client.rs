//! The HTTPS side of a webhook call: one pooled reqwest client (rustls, ring) per distinct
//! (caBundle, endpoint), reused across calls (keep-alive; HTTP/2 where upstream allows it),
//! and client-go's wording for what can go wrong on the wire (R4.20, R4.21, R4.30).

use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use std::collections::HashMap;
use std::error::Error as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// Where one call goes, decided per call from the CRD's client config and the resolvers.
#[derive(Debug, Clone)]
pub(crate) struct Route {
    /// The URL as upstream names it in errors (`https://name.ns.svc:443/p?timeout=30s`).
    pub display_url: String,
    /// The URL actually requested (the endpoint's port for a resolved service).
    pub request_url: String,
    /// `Host` header to send when it differs from the request URL's.
    pub host_header: Option<String>,
    /// The TLS server name / URL host.
    pub domain: String,
    /// The address dialled, as shown in `dial tcp ADDR: …`.
    pub dial: String,
    /// Fixed addresses for `domain` (a resolved service), else ordinary DNS.
    pub addrs: Option<Vec<SocketAddr>>,
    /// Whether ALPN may offer h2 (loopback URL webhooks only, as upstream).
    pub http2: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct PoolKey {
    ca_bundle: Arc<[u8]>,
    domain: String,
    addrs: Option<Vec<SocketAddr>>,
    http2: bool,
}

/// Clients by (caBundle, endpoint). Each reqwest client keeps its own connection pool.
pub(crate) struct ClientPool {
    timeout: Duration,
    clients: Mutex<HashMap<PoolKey, reqwest::Client>>,
}

/// A call that did not produce a 2xx body: the cause as client-go words it.
pub(crate) type CallError = String;

impl ClientPool {
    pub(crate) fn new(timeout: Duration) -> Self {
        Self {
            timeout,
            clients: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// How many distinct clients exist (one per caBundle and endpoint).
    pub(crate) fn len(&self) -> usize {
        self.clients.lock().map_or(0, |c| c.len())
    }

    fn client(&self, ca_bundle: &Arc<[u8]>, route: &Route) -> Result<reqwest::Client, CallError> {
        let key = PoolKey {
            ca_bundle: ca_bundle.clone(),
            domain: route.domain.clone(),
            addrs: route.addrs.clone(),
            http2: route.http2,
        };
        let mut clients = self.clients.lock().map_err(|_| "client pool poisoned")?;
        if let Some(c) = clients.get(&key) {
            return Ok(c.clone());
        }
        let client = build_client(ca_bundle, route, self.timeout)?;
        clients.insert(key, client.clone());
        Ok(client)
    }

    /// POSTs `body` (a JSON ConversionReview) and returns the 2xx answer's body.
    pub(crate) async fn post(
        &self,
        ca_bundle: &Arc<[u8]>,
        route: &Route,
        body: Vec<u8>,
    ) -> Result<Vec<u8>, CallError> {
        self.post_with_timeout(ca_bundle, route, body, None).await
    }

    /// [`ClientPool::post`] with its own timeout instead of the pool's.
    pub(crate) async fn post_with_timeout(
        &self,
        ca_bundle: &Arc<[u8]>,
        route: &Route,
        body: Vec<u8>,
        timeout: Option<Duration>,
    ) -> Result<Vec<u8>, CallError> {
        let client = self.client(ca_bundle, route)?;
        let mut req = client
            .post(&route.request_url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, */*")
            .body(body);
        if let Some(t) = timeout {
            req = req.timeout(t);
        }
        if let Some(host) = &route.host_header {
            req = req.header("Host", host);
        }
        let wire =
            |e: reqwest::Error| format!("Post {:?}: {}", route.display_url, go_cause(&e, route));
        let resp = req.send().await.map_err(wire)?;
        let status = resp.status();
        let text_like = resp
            .headers()
            .get("Content-Type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/"));
        let bytes = resp.bytes().await.map_err(wire)?;
        if status.is_success() {
            return Ok(bytes.to_vec());
        }
        Err(status_error(status.as_u16(), &bytes, text_like))
    }
}

fn native_roots() -> &'static [CertificateDer<'static>] {
    static ROOTS: OnceLock<Vec<CertificateDer<'static>>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let loaded = rustls_native_certs::load_native_certs();
        for e in &loaded.errors {
            tracing::warn!(error = %e, "loading system root certificates");
        }
        loaded.certs
    })
}

/// The CAs to trust: the caBundle (PEM), or the system roots when it is empty (R4.20).
fn root_store(ca_bundle: &[u8]) -> Result<rustls::RootCertStore, CallError> {
    let mut store = rustls::RootCertStore::empty();
    if ca_bundle.iter().all(u8::is_ascii_whitespace) {
        store.add_parsable_certificates(native_roots().iter().cloned());
        return Ok(store);
    }
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(ca_bundle)
        .filter_map(Result::ok)
        .collect();
    let (added, _) = store.add_parsable_certificates(certs);
    if added == 0 {
        return Err("unable to load root certificates: unable to parse bytes as PEM block".into());
    }
    Ok(store)
}

/// Go's check of a webhook's certificate: a chain to one of the caBundle's certificates,
/// or — as Go's `x509.Verify` accepts, and envtest relies on (its caBundle is the webhook's
/// own serving certificate) — the serving certificate itself among them, valid now; the
/// host name is checked either way.
#[derive(Debug)]
struct BundleVerifier {
    chains: Arc<rustls::client::WebPkiServerVerifier>,
    bundle: Vec<CertificateDer<'static>>,
}

impl rustls::client::danger::ServerCertVerifier for BundleVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &rustls_pki_types::ServerName<'_>,
        ocsp_response: &[u8],
        now: rustls_pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        if !self
            .bundle
            .iter()
            .any(|c| c.as_ref() == end_entity.as_ref())
        {
            return self.chains.verify_server_cert(
                end_entity,
                intermediates,
                server_name,
                ocsp_response,
                now,
            );
        }
        let parsed = rustls::server::ParsedCertificate::try_from(end_entity)?;
        rustls::client::verify_server_name(&parsed, server_name)?;
        let (_, cert) = x509_parser::parse_x509_certificate(end_entity.as_ref()).map_err(|_| {
            rustls::Error::InvalidCertificate(rustls::CertificateError::BadEncoding)
        })?;
        let at = x509_parser::time::ASN1Time::from_timestamp(now.as_secs() as i64)
            .map_err(|_| rustls::Error::InvalidCertificate(rustls::CertificateError::Expired))?;
        if !cert.validity().is_valid_at(at) {
            return Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::Expired,
            ));
        }
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        self.chains.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        self.chains.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.chains.supported_verify_schemes()
    }
}

fn build_client(
    ca_bundle: &[u8],
    route: &Route,
    timeout: Duration,
) -> Result<reqwest::Client, CallError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let roots = Arc::new(root_store(ca_bundle)?);
    let chains =
        rustls::client::WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
            .build()
            .map_err(|e| e.to_string())?;
    let verifier = BundleVerifier {
        chains,
        bundle: CertificateDer::pem_slice_iter(ca_bundle)
            .filter_map(Result::ok)
            .collect(),
    };
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    tls.alpn_protocols = if route.http2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    let mut builder = reqwest::Client::builder()
        .use_preconfigured_tls(tls)
        .timeout(timeout)
        .user_agent("kube-apiserver-admission")
        .tcp_nodelay(true)
        .pool_idle_timeout(Duration::from_secs(90));
    if !route.http2 {
        builder = builder.http1_only();
    }
    if let Some(addrs) = &route.addrs {
        builder = builder.resolve_to_addrs(&route.domain, addrs);
    }
    builder.build().map_err(|e| e.to_string())
}

/// Go's net/http words for a transport failure.
fn go_cause(e: &reqwest::Error, route: &Route) -> String {
    if e.is_timeout() {
        return "context deadline exceeded (Client.Timeout exceeded while awaiting headers)".into();
    }
    let mut source = e.source();
    let mut chain = Vec::new();
    while let Some(s) = source {
        if let Some(cause) = known_cause(s, route) {
            return cause;
        }
        chain.push(s.to_string());
        source = s.source();
    }
    if chain.iter().any(|s| s.contains("dns error")) {
        return format!("dial tcp: lookup {}: no such host", route.domain);
    }
    chain.last().cloned().unwrap_or_else(|| e.to_string())
}

/// A TLS or connect failure inside `e`, looking through nested `io::Error`s (whose
/// `source()` skips the error they wrap).
fn known_cause(e: &(dyn std::error::Error + 'static), route: &Route) -> Option<String> {
    let mut current: &(dyn std::error::Error + 'static) = e;
    loop {
        if let Some(tls) = current.downcast_ref::<rustls::Error>() {
            return Some(go_tls_cause(tls, &route.domain));
        }
        let io = current.downcast_ref::<std::io::Error>()?;
        if io.kind() == std::io::ErrorKind::ConnectionRefused {
            return Some(format!(
                "dial tcp {}: connect: connection refused",
                route.dial
            ));
        }
        current = io.get_ref()?;
    }
}

fn go_tls_cause(e: &rustls::Error, domain: &str) -> String {
    use rustls::{CertificateError, Error};
    match e {
        Error::InvalidCertificate(CertificateError::UnknownIssuer) => {
            "tls: failed to verify certificate: x509: certificate signed by unknown authority"
                .into()
        }
        Error::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        ) => format!(
            "tls: failed to verify certificate: x509: certificate is not valid for {domain}"
        ),
        Error::InvalidCertificate(
            CertificateError::Expired | CertificateError::ExpiredContext { .. },
        ) => "tls: failed to verify certificate: x509: certificate has expired or is not yet valid"
            .into(),
        other => format!("tls: {other}"),
    }
}

/// client-go's error for a non-2xx answer: a Status body's message, else the generic text of
/// `NewGenericServerResponse` for the code.
fn status_error(code: u16, body: &[u8], text_like: bool) -> CallError {
    if let Ok(status) = serde_json::from_slice::<serde_json::Value>(body)
        && status["kind"] == "Status"
        && let Some(message) = status["message"].as_str()
        && !message.is_empty()
    {
        return message.to_owned();
    }
    let server_message = if text_like {
        String::from_utf8_lossy(&body[..body.len().min(2048)])
            .trim()
            .to_owned()
    } else {
        "unknown".to_owned()
    };
    match code {
        400 => "the server rejected our request for an unknown reason".into(),
        401 => "the server has asked for the client to provide credentials".into(),
        403 => "the server does not allow access to the requested resource".into(),
        404 => "the server could not find the requested resource".into(),
        405 => "the server does not allow this method on the requested resource".into(),
        409 => "the server reported a conflict".into(),
        415 => "the server has rejected our request due to an unsupported media type".into(),
        422 => "the server rejected our request due to an error in our request".into(),
        429 => "the server has received too many requests and has asked us to try again later".into(),
        503 => "the server is currently unable to handle the request".into(),
        504 => "the server was unable to return a response in the time allotted, but may still be processing the request".into(),
        c if c >= 500 => format!(
            "an error on the server ({server_message:?}) has prevented the request from succeeding"
        ),
        c => format!("the server responded with the status code {c} but did not return more information"),
    }
}
