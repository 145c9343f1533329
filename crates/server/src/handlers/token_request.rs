//! `POST serviceaccounts/{name}/token`: a TokenRequest answered with a bound, expiring
//! ServiceAccount token (`kubectl create token`, the kubelet's projected tokens). The
//! ServiceAccount must exist; `spec.expirationSeconds` defaults to an hour and must lie
//! between ten minutes and 2^32 seconds (422 as upstream); `spec.audiences` default to the
//! API's; a `boundObjectRef` names a Pod (running as this ServiceAccount), Secret or Node
//! that must exist (with the uid given, else 409), and the token dies with it. Longer
//! requests than `--service-account-max-token-expiration` are shortened, with a warning.
//! Under `dryRun` nothing is signed. Nothing is stored.

use super::Ctx;
use super::body::{add_warnings, read_kind};
use crate::status::ApiError;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use kapi_registry::Error;
use kapi_registry::field;
use kapi_registry::meta;
use kapi_registry::rest::RestStore;
use kapi_registry::rest::options::{WriteOptions, WriteVerb};
use kapi_serviceaccount::{BoundToken, ObjectRef};
use serde_json::{Value, json};

/// Whether the request asks for a ServiceAccount token.
pub fn applies(ctx: &Ctx) -> bool {
    ctx.entry.group.is_empty()
        && ctx.entry.names.plural == "serviceaccounts"
        && ctx.info.subresource.as_deref() == Some("token")
}

/// The default lifetime of a requested token (the API type's default).
const DEFAULT_EXPIRATION: i64 = 3600;
/// The shortest lifetime upstream issues.
const MIN_EXPIRATION: i64 = 10 * 60;
/// The longest lifetime upstream issues.
const MAX_EXPIRATION: i64 = 1 << 32;

fn reference(obj: &Value) -> ObjectRef {
    ObjectRef {
        name: meta::name(obj).to_owned(),
        uid: meta::nested(obj, &["metadata", "uid"])
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    }
}

/// An existing object of a core/v1 resource, 404 as that resource when missing.
async fn existing(
    ctx: &Ctx,
    plural: &str,
    namespace: Option<&str>,
    name: &str,
) -> Result<Value, ApiError> {
    let entry = ctx
        .table
        .get("", "v1", plural)
        .cloned()
        .ok_or_else(|| ApiError::internal(format!("{plural} are not served")))?;
    let rest = RestStore::new(ctx.state.store.as_ref(), &ctx.table, &entry);
    Ok(rest.get_existing(namespace, name).await?.object)
}

/// What the token is bound to: (pod, secret, node).
type Bindings = (Option<ObjectRef>, Option<ObjectRef>, Option<ObjectRef>);

/// Resolves `spec.boundObjectRef` as upstream's token REST does.
async fn bound_objects(ctx: &Ctx, bound: &Value) -> Result<Bindings, ApiError> {
    if bound.is_null() {
        return Ok((None, None, None));
    }
    let api_version = bound["apiVersion"].as_str().unwrap_or_default();
    let kind = bound["kind"].as_str().unwrap_or_default();
    let name = bound["name"].as_str().unwrap_or_default();
    let want_uid = bound["uid"].as_str().unwrap_or_default();
    let core = api_version == "v1" || api_version.is_empty();
    let (obj, resource) = match (core, kind) {
        (true, "Pod") => {
            let pod = existing(ctx, "pods", ctx.namespace(), name).await?;
            let runs_as = meta::nested(&pod, &["spec", "serviceAccountName"])
                .and_then(Value::as_str)
                .unwrap_or_default();
            if runs_as != ctx.name() {
                return Err(Error::bad_request(format!(
                    "cannot bind token for serviceaccount {:?} to pod running with serviceaccount {runs_as:?}",
                    ctx.name()
                ))
                .into());
            }
            (pod, "pods")
        }
        (true, "Secret") => (
            existing(ctx, "secrets", ctx.namespace(), name).await?,
            "secrets",
        ),
        (true, "Node") => (existing(ctx, "nodes", None, name).await?, "nodes"),
        _ => {
            let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
            return Err(Error::bad_request(format!(
                "cannot bind token to object of type {group}/{version}, Kind={kind}"
            ))
            .into());
        }
    };
    let r = reference(&obj);
    if !want_uid.is_empty() && want_uid != r.uid {
        return Err(Error::conflict(
            "",
            resource,
            name,
            &format!(
                "the UID in the bound object reference ({want_uid}) does not match the UID in record ({}). The object might have been deleted and then recreated",
                r.uid
            ),
        )
        .into());
    }
    Ok(match resource {
        "pods" => {
            // A Pod's token also names its node, as upstream's claims do.
            let node_name = meta::nested(&obj, &["spec", "nodeName"])
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty());
            let node = match node_name {
                Some(n) => Some(match existing(ctx, "nodes", None, n).await {
                    Ok(node) => reference(&node),
                    Err(_) => ObjectRef {
                        name: n.to_owned(),
                        uid: String::new(),
                    },
                }),
                None => None,
            };
            (Some(r), None, node)
        }
        "secrets" => (None, Some(r), None),
        _ => (None, None, Some(r)),
    })
}

/// `ValidateTokenRequest`.
fn validate(name: &str, seconds: i64) -> Result<(), ApiError> {
    let path = "spec.expirationSeconds";
    let cause = if seconds < MIN_EXPIRATION {
        field::invalid(
            path,
            &json!(seconds),
            "may not specify a duration less than 10 minutes",
        )
    } else if seconds > MAX_EXPIRATION {
        field::invalid(
            path,
            &json!(seconds),
            "may not specify a duration larger than 2^32 seconds",
        )
    } else {
        return Ok(());
    };
    Err(Error::invalid("authentication.k8s.io", "TokenRequest", name, vec![cause]).into())
}

/// POST of a TokenRequest.
pub async fn create(ctx: &Ctx, body: Body) -> Response {
    let mut warnings = Vec::new();
    let result = issue(ctx, body, &mut warnings).await;
    let mut resp = match result {
        Ok(obj) => ctx.writer.object(&ctx.entry, StatusCode::CREATED, obj),
        Err(e) => ctx.writer.error(e),
    };
    add_warnings(&mut resp, &warnings);
    resp
}

async fn issue(ctx: &Ctx, body: Body, warnings: &mut Vec<String>) -> Result<Value, ApiError> {
    let opts = WriteOptions::from_query(&ctx.query.0, WriteVerb::Create)?;
    let request = read_kind(ctx, body, "TokenRequest").await?;
    let Some(tokens) = ctx.state.authenticator.service_accounts().cloned() else {
        return Err(ApiError::not_served(
            "ServiceAccount tokens are not configured".to_owned(),
        ));
    };
    let sa = ctx
        .rest()
        .get_existing(ctx.namespace(), ctx.name())
        .await?
        .object;
    let spec = request.get("spec").cloned().unwrap_or_else(|| json!({}));
    let mut seconds = spec["expirationSeconds"]
        .as_i64()
        .unwrap_or(DEFAULT_EXPIRATION);
    validate(ctx.name(), seconds)?;
    if let Some(max) = tokens.max_expiration()
        && seconds > max
    {
        warnings.push(format!(
            "requested expiration of {seconds} seconds shortened to {max} seconds"
        ));
        seconds = max;
    }
    let mut audiences = super::string_list(&spec["audiences"]);
    if audiences.is_empty() {
        audiences = tokens.api_audiences().to_vec();
    }
    let bound = spec.get("boundObjectRef").cloned().unwrap_or(Value::Null);
    let (pod, secret, node) = bound_objects(ctx, &bound).await?;
    let mut out = json!({
        "kind": "TokenRequest",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {
            "name": ctx.name(),
            "namespace": ctx.namespace().unwrap_or_default(),
            "creationTimestamp": null,
        },
        "spec": {
            "audiences": audiences,
            "expirationSeconds": seconds,
            "boundObjectRef": bound,
        },
        "status": {"token": "", "expirationTimestamp": null},
    });
    if opts.dry_run {
        return Ok(out);
    }
    let now = chrono::Utc::now();
    let token = BoundToken {
        issuer: tokens.issuer().to_owned(),
        audiences,
        issued_at: now.timestamp(),
        expires_at: now.timestamp() + seconds,
        namespace: ctx.namespace().unwrap_or_default().to_owned(),
        service_account: reference(&sa),
        pod,
        secret,
        node,
        id: meta::new_uid(),
    };
    let signed = tokens
        .issue(&token)
        .map_err(|e| ApiError::internal(format!("failed to generate token: {e}")))?;
    let expires = chrono::DateTime::from_timestamp(token.expires_at, 0)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string());
    out["status"] = json!({"token": signed, "expirationTimestamp": expires});
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_minutes_is_the_shortest_lifetime() {
        assert!(validate("robot", 600).is_ok());
        assert!(validate("robot", 599).is_err());
    }

    #[test]
    fn two_to_the_32_seconds_is_the_longest_lifetime() {
        assert!(validate("robot", 1 << 32).is_ok());
        assert!(validate("robot", (1 << 32) + 1).is_err());
    }
}
