//! The `Webhook` conversion strategy (R4.20–R4.31): objects are sent to the CRD's HTTPS
//! service in one ConversionReview per call, and the answer is checked as kube-apiserver does.

mod checks;
pub mod client;
pub mod error;
pub mod metrics;
pub mod resolver;

pub use error::{FailureReason, WebhookError};
pub use metrics::{Histogram, WebhookMetrics};
pub use resolver::{
    Endpoint, ResolveError, ServiceOverride, ServiceResolver, StaticServiceResolver,
};

use crate::converter::{ConversionError, CrConverter, CrdVersions};
use async_trait::async_trait;
use checks::Wording;
use client::{ClientPool, Route};
use error::{go_duration, gvk_string};
use kapi_api::apiextensions::v1::{CustomResourceDefinition, WebhookClientConfig};
use kapi_webhook::{ConversionReview, ReviewVersion};
use serde_json::Value;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// kube-apiserver's client timeout for webhooks (R4.21).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What every webhook converter of a server shares: service resolvers, the client pool,
/// the metrics and the timeout.
pub struct WebhookEnvironment {
    resolvers: Vec<Arc<dyn ServiceResolver>>,
    clients: ClientPool,
    metrics: Arc<WebhookMetrics>,
}

impl std::fmt::Debug for WebhookEnvironment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookEnvironment").finish_non_exhaustive()
    }
}

impl Default for WebhookEnvironment {
    fn default() -> Self {
        Self::new()
    }
}

impl WebhookEnvironment {
    /// No resolvers (services are dialled by DNS name), a 30 s timeout, fresh metrics.
    pub fn new() -> Self {
        Self::with_timeout(DEFAULT_TIMEOUT)
    }

    /// As [`Self::new`] with another timeout.
    pub fn with_timeout(timeout: Duration) -> Self {
        Self {
            resolvers: Vec::new(),
            clients: ClientPool::new(timeout),
            metrics: Arc::new(WebhookMetrics::new()),
        }
    }

    /// Adds a resolver, asked after those added before (e.g. the `--service-resolver` map
    /// first, then one over stored Services and Endpoints).
    pub fn add_service_resolver(mut self, resolver: Arc<dyn ServiceResolver>) -> Self {
        self.resolvers.push(resolver);
        self
    }

    /// The metrics to render into `/metrics`.
    pub fn metrics(&self) -> &Arc<WebhookMetrics> {
        &self.metrics
    }

    /// How many pooled HTTPS clients exist (one per distinct caBundle and endpoint).
    pub fn pooled_clients(&self) -> usize {
        self.clients.len()
    }
}

/// The CRD's conversion webhook as a [`CrConverter`].
pub struct WebhookConverter {
    crd_name: String,
    versions: CrdVersions,
    review_version: Option<ReviewVersion>,
    client_config: WebhookClientConfig,
    ca_bundle: Arc<[u8]>,
    env: Arc<WebhookEnvironment>,
}

impl WebhookConverter {
    /// The converter of `crd` (its `spec.conversion.webhook`), calling through `env`.
    /// Configuration problems surface when a conversion is attempted, so that reads in the
    /// stored version keep working.
    pub fn new(crd: &CustomResourceDefinition, env: Arc<WebhookEnvironment>) -> Self {
        let webhook = crd
            .spec
            .conversion
            .as_ref()
            .and_then(|c| c.webhook.as_ref());
        let review_version = webhook.and_then(|w| {
            ReviewVersion::negotiate(w.conversion_review_versions.iter().map(String::as_str))
        });
        let client_config = webhook
            .and_then(|w| w.client_config.clone())
            .unwrap_or_default();
        let ca_bundle: Arc<[u8]> = client_config.ca_bundle.clone().into();
        Self {
            crd_name: crd.metadata.name.clone(),
            versions: CrdVersions::of(crd),
            review_version,
            client_config,
            ca_bundle,
            env,
        }
    }

    async fn route(&self) -> Result<Route, String> {
        let webhook = format!("conversion_webhook_for_{}", self.crd_name);
        let timeout = self.env.clients.timeout();
        match &self.client_config.service {
            Some(svc) => {
                let target = ServiceTarget {
                    namespace: &svc.namespace,
                    name: &svc.name,
                    path: svc.path.as_deref(),
                    port: svc.port,
                };
                route(&self.env, None, Some(&target), &webhook, timeout).await
            }
            None => {
                let url = self.client_config.url.as_deref();
                route(&self.env, url, None, &webhook, timeout).await
            }
        }
    }

    /// One webhook call for `sent` (all in another version than `target`). The objects move
    /// into the review and back out as the originals to check against: no copy.
    async fn call(
        &self,
        sent: Vec<Value>,
        target: &str,
        gvk: &str,
        version: ReviewVersion,
    ) -> Result<Vec<Value>, WebhookError> {
        let call_failed =
            |cause: String| WebhookError::failed(FailureReason::CallFailure, gvk, cause);
        let uid = uuid::Uuid::new_v4().to_string();
        let review = ConversionReview::new_request(version, uid.clone(), target, sent);
        let body = serde_json::to_vec(&review).map_err(|e| call_failed(e.to_string()))?;
        let sent = review.request.map(|r| r.objects).unwrap_or_default();
        let route = self.route().await.map_err(call_failed)?;
        let answer = self
            .env
            .clients
            .post(&self.ca_bundle, &route, body)
            .await
            .map_err(call_failed)?;
        let converted = checks::converted_objects(&answer, version, &uid, gvk)?;
        if converted.len() != sent.len() {
            return Err(WebhookError::new(
                FailureReason::PartialResponse,
                format!(
                    "conversion webhook for {gvk} returned {} objects, expected {}",
                    converted.len(),
                    sent.len()
                ),
            ));
        }
        let wording = if sent.len() == 1 {
            Wording::Single
        } else {
            Wording::List
        };
        converted
            .into_iter()
            .zip(sent)
            .enumerate()
            .map(|(i, (out, orig))| checks::check_object(&orig, out, target, gvk, wording, i))
            .collect()
    }

    /// The call with its slow-call log and metrics (R4.29, R4.30).
    async fn observed_call(
        &self,
        sent: Vec<Value>,
        target: &str,
        version: ReviewVersion,
    ) -> Result<Vec<Value>, WebhookError> {
        let first = sent.first().unwrap_or(&Value::Null);
        let from = api_version(first).to_owned();
        let gvk = gvk_string(
            &from,
            first.get("kind").and_then(Value::as_str).unwrap_or(""),
        );
        let count = sent.len();
        let start = Instant::now();
        let result = self.call(sent, target, &gvk, version).await;
        let elapsed = start.elapsed();
        let allowance = Duration::from_millis(50 + 8 * count as u64);
        if elapsed > allowance {
            tracing::warn!(
                crd = %self.crd_name, desired_api_version = %target, object_count = count,
                duration_ms = elapsed.as_secs_f64() * 1e3, "slow conversion webhook call"
            );
        }
        let version_of = |gv: &str| gv.rsplit_once('/').map_or(gv, |(_, v)| v).to_owned();
        self.env.metrics.observe(&metrics::Observation {
            crd: &self.crd_name,
            from_version: &version_of(&from),
            to_version: &version_of(target),
            elapsed,
            failure: result.as_ref().err().map(WebhookError::reason),
        });
        result
    }
}

/// A webhook named by a `service` reference (`clientConfig.service`).
#[derive(Debug, Clone, Copy)]
pub struct ServiceTarget<'a> {
    /// The service's namespace.
    pub namespace: &'a str,
    /// The service's name.
    pub name: &'a str,
    /// The URL path.
    pub path: Option<&'a str>,
    /// The port (443 when absent).
    pub port: Option<i32>,
}

/// Where a webhook is, as its `clientConfig` says: a URL or a service, and the caBundle
/// (PEM) that trusts it (the system roots when empty).
#[derive(Debug, Clone, Copy)]
pub struct WebhookTarget<'a> {
    /// `clientConfig.url`.
    pub url: Option<&'a str>,
    /// `clientConfig.service`.
    pub service: Option<ServiceTarget<'a>>,
    /// The caBundle, decoded (PEM).
    pub ca_bundle: &'a Arc<[u8]>,
}

impl WebhookEnvironment {
    /// POSTs a JSON `body` to the webhook `webhook` (its name, for errors) with `timeout`
    /// (sent as `?timeout=` too, as upstream), through the environment's resolvers and
    /// client pool: the 2xx answer's body, or client-go's words for the failure.
    pub async fn post_json(
        &self,
        webhook: &str,
        target: &WebhookTarget<'_>,
        body: Vec<u8>,
        timeout: Duration,
    ) -> Result<Vec<u8>, String> {
        let route = route(self, target.url, target.service.as_ref(), webhook, timeout).await?;
        self.clients
            .post_with_timeout(target.ca_bundle, &route, body, Some(timeout))
            .await
    }
}

/// The route of one call to a webhook at `url` or `service`.
async fn route(
    env: &WebhookEnvironment,
    url: Option<&str>,
    service: Option<&ServiceTarget<'_>>,
    webhook: &str,
    timeout: Duration,
) -> Result<Route, String> {
    let timeout = format!("timeout={}", go_duration(timeout));
    if let Some(svc) = service {
        return service_route(env, svc, &timeout).await;
    }
    let Some(raw) = url else {
        return Err(format!(
            "failed calling webhook \"{webhook}\": webhook configuration must have either service or URL"
        ));
    };
    let parsed = reqwest::Url::parse(raw)
        .map_err(|e| format!("failed calling webhook \"{webhook}\": Unparsable URL: {e}"))?;
    let domain = parsed
        .host_str()
        .unwrap_or("")
        .trim_matches(['[', ']'])
        .to_owned();
    let port = parsed.port_or_known_default().unwrap_or(443);
    let sep = if parsed.query().is_some() { '&' } else { '?' };
    let full = format!("{raw}{sep}{timeout}");
    Ok(Route {
        display_url: full.clone(),
        request_url: full,
        host_header: None,
        dial: join_host_port(&domain, port),
        http2: is_loopback(&domain),
        domain,
        addrs: None,
    })
}

async fn service_route(
    env: &WebhookEnvironment,
    svc: &ServiceTarget<'_>,
    timeout: &str,
) -> Result<Route, String> {
    let port = svc.port.and_then(|p| u16::try_from(p).ok()).unwrap_or(443);
    let domain = format!("{}.{}.svc", svc.name, svc.namespace);
    let path = svc.path.unwrap_or("");
    let display_url = format!("https://{domain}:{port}{path}?{timeout}");
    let mut endpoint = None;
    for r in &env.resolvers {
        if let Some(e) = r
            .resolve(svc.namespace, svc.name, port)
            .await
            .map_err(|e| format!("Post {display_url:?}: {e}"))?
        {
            endpoint = Some(e);
            break;
        }
    }
    let Some(ep) = endpoint else {
        return Ok(Route {
            request_url: display_url.clone(),
            display_url,
            host_header: None,
            dial: join_host_port(&domain, port),
            domain,
            addrs: None,
            http2: false,
        });
    };
    let addrs: Vec<SocketAddr> = match ep.host.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, ep.port)],
        Err(_) => tokio::net::lookup_host((ep.host.as_str(), ep.port))
            .await
            .map_err(|_| {
                format!(
                    "Post {display_url:?}: dial tcp: lookup {}: no such host",
                    ep.host
                )
            })?
            .collect(),
    };
    let path = if path.is_empty() { "/" } else { path };
    Ok(Route {
        request_url: format!("https://{domain}:{}{path}?{timeout}", ep.port),
        host_header: Some(join_host_port(&domain, port)),
        dial: addrs
            .first()
            .map_or_else(|| join_host_port(&ep.host, ep.port), ToString::to_string),
        display_url,
        domain,
        addrs: Some(addrs),
        http2: false,
    })
}

fn api_version(obj: &Value) -> &str {
    obj.get("apiVersion").and_then(Value::as_str).unwrap_or("")
}

fn join_host_port(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

fn is_loopback(host: &str) -> bool {
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// An object with nothing but apiVersion and kind is converted locally (R4.22).
fn is_empty_object(obj: &Value) -> bool {
    obj.as_object()
        .is_some_and(|m| m.len() == 2 && m.contains_key("apiVersion") && m.contains_key("kind"))
}

#[async_trait]
impl CrConverter for WebhookConverter {
    fn is_deterministic(&self) -> bool {
        false
    }

    async fn convert(
        &self,
        mut objects: Vec<Value>,
        target: &str,
    ) -> Result<Vec<Value>, ConversionError> {
        self.versions.check(&objects, target)?;
        let set_version = |o: &mut Value| {
            if let Value::Object(m) = o {
                m.insert("apiVersion".into(), Value::String(target.to_owned()));
            }
        };
        if let [single] = objects.as_mut_slice()
            && is_empty_object(single)
        {
            set_version(single);
            return Ok(objects);
        }
        let version = self.review_version.ok_or_else(|| {
            WebhookError::new(
                FailureReason::Configuration,
                "no supported conversion review versions".into(),
            )
        })?;
        // R4.23: only objects in another version are sent, all in one review.
        let positions: Vec<usize> = (0..objects.len())
            .filter(|&i| api_version(&objects[i]) != target)
            .collect();
        if positions.is_empty() {
            return Ok(objects);
        }
        let sent: Vec<Value> = positions
            .iter()
            .map(|&i| std::mem::take(&mut objects[i]))
            .collect();
        let converted = self.observed_call(sent, target, version).await?;
        for (i, obj) in positions.into_iter().zip(converted) {
            objects[i] = obj;
        }
        Ok(objects)
    }
}
