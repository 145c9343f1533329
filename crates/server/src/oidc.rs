//! The OpenID Connect discovery of the ServiceAccount issuer, as kube-apiserver serves it
//! (`ServiceAccountIssuerDiscovery`): `/.well-known/openid-configuration` names the issuer
//! and where its keys are, `/openid/v1/jwks` lists the public keys that verify its tokens,
//! so that other systems (cloud IAM, Vault) can check kapi's ServiceAccount tokens.
//! The `jwks_uri` is `--service-account-jwks-uri`, else the issuer's host with
//! `/openid/v1/jwks`; an issuer that is not an `https` URL and no `jwks_uri` serve nothing
//! (404), as upstream.

use crate::respond::bytes_response;
use crate::state::ApiState;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::{Value, json};
use std::sync::Arc;

/// The path of the discovery document.
pub const CONFIGURATION_PATH: &str = "/.well-known/openid-configuration";
/// The path of the key set.
pub const JWKS_PATH: &str = "/openid/v1/jwks";

/// The `jwks_uri` for `issuer`: the configured one, else the issuer's scheme and host with
/// [`JWKS_PATH`]; `None` when the issuer is not an `https` URL.
pub fn jwks_uri(issuer: &str, configured: Option<&str>) -> Option<String> {
    if let Some(uri) = configured.filter(|u| !u.is_empty()) {
        return Some(uri.to_owned());
    }
    let rest = issuer.strip_prefix("https://")?;
    let host = rest
        .split(['/', '?', '#'])
        .next()
        .filter(|h| !h.is_empty())?;
    Some(format!("https://{host}{JWKS_PATH}"))
}

fn discovery(state: &ApiState) -> Option<(Value, Value)> {
    let sa = state.authenticator.service_accounts()?;
    let uri = jwks_uri(sa.issuer(), sa.jwks_uri())?;
    let jwks = sa.jwks();
    let mut algs: Vec<Value> = jwks["keys"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|k| k["alg"].clone())
        .collect();
    algs.sort_by_key(|a| a.to_string());
    algs.dedup();
    let config = json!({
        "issuer": sa.issuer(),
        "jwks_uri": uri,
        "response_types_supported": ["id_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": algs,
    });
    Some((config, jwks))
}

fn cacheable(content_type: &str, v: &Value) -> Response {
    let mut resp = bytes_response(StatusCode::OK, content_type, v.to_string().into_bytes());
    resp.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    resp
}

/// `GET /.well-known/openid-configuration`.
pub async fn configuration(State(state): State<Arc<ApiState>>) -> Response {
    match discovery(&state) {
        Some((config, _)) => cacheable("application/json", &config),
        None => crate::api::page_not_found(),
    }
}

/// `GET /openid/v1/jwks`.
pub async fn keys(State(state): State<Arc<ApiState>>) -> Response {
    match discovery(&state) {
        Some((_, jwks)) => cacheable("application/jwk-set+json", &jwks),
        None => crate::api::page_not_found(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_jwks_uri_is_on_the_issuers_host() {
        assert_eq!(
            jwks_uri("https://kubernetes.default.svc.cluster.local", None).as_deref(),
            Some("https://kubernetes.default.svc.cluster.local/openid/v1/jwks")
        );
        assert_eq!(
            jwks_uri("https://127.0.0.1:6443/", None).as_deref(),
            Some("https://127.0.0.1:6443/openid/v1/jwks")
        );
    }

    #[test]
    fn a_configured_jwks_uri_wins() {
        assert_eq!(
            jwks_uri("https://a", Some("https://keys.example/jwks")).as_deref(),
            Some("https://keys.example/jwks")
        );
    }

    #[test]
    fn an_issuer_that_is_not_https_has_no_jwks_uri() {
        assert_eq!(jwks_uri("kapi", None), None);
        assert_eq!(jwks_uri("http://a", None), None);
    }
}
