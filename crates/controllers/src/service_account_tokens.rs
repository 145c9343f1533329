//! kube-controller-manager's `serviceaccount-token-controller`: a Secret of type
//! `kubernetes.io/service-account-token` naming a ServiceAccount (annotation
//! `kubernetes.io/service-account.name`) gets a legacy token for it — `data.token` (a JWT
//! of issuer `kubernetes/serviceaccount`, no expiry), `data["ca.crt"]` (the API server's
//! CA) and `data.namespace` — and the ServiceAccount's uid in the annotation
//! `kubernetes.io/service-account.uid`. A token Secret whose ServiceAccount is gone (or
//! has another uid than the Secret names) is deleted, and so are a deleted
//! ServiceAccount's token Secrets. Such a token authenticates as long as its Secret holds
//! it (the server checks).

use crate::context::Context;
use crate::runtime::{Action, Reconciler};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use kapi_registry::Error;
use kapi_registry::meta;
use kapi_registry::rest::options::DeleteOptions;
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use kapi_serviceaccount::{ObjectRef, SigningKey, claims, jws};
use kapi_storage::KeyValue;
use serde_json::{Value, json};
use std::sync::Arc;

/// The controller's name (kube-controller-manager's).
pub const NAME: &str = "serviceaccount-token-controller";
/// Its post-start hook.
pub const HOOK: &str = "start-serviceaccount-token-controller";
/// Its lease when elected.
pub const LEASE: &str = "kapi-serviceaccount-token-controller";

/// The Secret type of legacy tokens.
pub const TOKEN_TYPE: &str = "kubernetes.io/service-account-token";
/// The annotation naming the ServiceAccount.
pub const NAME_ANNOTATION: &str = "kubernetes.io/service-account.name";
/// The annotation holding the ServiceAccount's uid.
pub const UID_ANNOTATION: &str = "kubernetes.io/service-account.uid";

/// Fills token Secrets and removes those of ServiceAccounts that are gone.
pub struct ServiceAccountTokens {
    signer: Arc<SigningKey>,
}

impl ServiceAccountTokens {
    /// The controller, signing with `signer`.
    pub fn new(signer: Arc<SigningKey>) -> Self {
        Self { signer }
    }
}

fn annotation<'a>(obj: &'a Value, key: &str) -> &'a str {
    meta::nested(obj, &["metadata", "annotations", key])
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn is_token_secret(obj: &Value) -> bool {
    obj["type"] == TOKEN_TYPE
}

/// The Secret with what is missing filled in, or `None` when nothing is.
fn filled(secret: &Value, sa: &ObjectRef, ca: Option<&str>, token: &str) -> Option<Value> {
    let ns = meta::meta_str(secret, "namespace");
    let data = |k: &str| {
        meta::nested(secret, &["data", k])
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let mut out = secret.clone();
    let mut changed = false;
    if !out["data"].is_object() {
        out["data"] = json!({});
    }
    if data("token").is_empty() {
        out["data"]["token"] = json!(STANDARD.encode(token));
        changed = true;
    }
    if let Some(ca) = ca
        && data("ca.crt") != STANDARD.encode(ca)
    {
        out["data"]["ca.crt"] = json!(STANDARD.encode(ca));
        changed = true;
    }
    if data("namespace") != STANDARD.encode(ns) {
        out["data"]["namespace"] = json!(STANDARD.encode(ns));
        changed = true;
    }
    if annotation(secret, UID_ANNOTATION).is_empty() {
        out["metadata"]["annotations"][UID_ANNOTATION] = json!(sa.uid);
        changed = true;
    }
    changed.then_some(out)
}

fn reference(obj: &Value) -> ObjectRef {
    ObjectRef {
        name: meta::name(obj).to_owned(),
        uid: meta::meta_str(obj, "uid").to_owned(),
    }
}

impl ServiceAccountTokens {
    async fn reconcile_secret(&self, ctx: &Context, ns: &str, name: &str) -> Result<(), Error> {
        let table = ctx.registry.snapshot();
        let (Some(secrets), Some(sas)) = (
            table.get("", "v1", "secrets"),
            table.get("", "v1", "serviceaccounts"),
        ) else {
            return Ok(());
        };
        let secrets = RestStore::new(ctx.store.as_ref(), &table, secrets);
        let Some(secret) = secrets.get(Some(ns), name).await? else {
            return Ok(());
        };
        let secret = secret.object;
        if !is_token_secret(&secret) || !meta::meta_str(&secret, "deletionTimestamp").is_empty() {
            return Ok(());
        }
        let w = WriteContext {
            namespace: Some(ns.to_owned()),
            manager: NAME.to_owned(),
            ..WriteContext::default()
        };
        let sa_name = annotation(&secret, NAME_ANNOTATION);
        let named_uid = annotation(&secret, UID_ANNOTATION);
        let sa = RestStore::new(ctx.store.as_ref(), &table, sas)
            .get(Some(ns), sa_name)
            .await?
            .map(|s| s.object)
            .filter(|sa| named_uid.is_empty() || meta::meta_str(sa, "uid") == named_uid);
        let Some(sa) = sa else {
            // Its ServiceAccount is gone: so is the Secret, as upstream.
            return match secrets.delete(&w, name, &DeleteOptions::default()).await {
                Ok(_) | Err(Error::NotFound { .. }) | Err(Error::Conflict { .. }) => Ok(()),
                Err(e) => Err(e),
            };
        };
        let sa_ref = reference(&sa);
        let token = jws::sign(&self.signer, &claims::legacy_claims(ns, &sa_ref, name))
            .map_err(|e| Error::internal(format!("signing a token: {e}")))?;
        let ca = ctx.root_ca.clone();
        if filled(&secret, &sa_ref, ca.as_deref(), &token).is_none() {
            return Ok(());
        }
        let mut info = UpdateFn::new(move |cur: Option<&Value>| {
            let cur = cur.cloned().unwrap_or_default();
            Ok(filled(&cur, &sa_ref, ca.as_deref(), &token).unwrap_or(cur))
        });
        match secrets.update(&w, name, &mut info).await {
            Ok(_) | Err(Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// A ServiceAccount changed or went: its namespace's token Secrets naming it are looked
    /// at again.
    async fn reconcile_account(&self, ctx: &Context, ns: &str, name: &str) -> Result<(), Error> {
        let table = ctx.registry.snapshot();
        let Some(entry) = table.get("", "v1", "secrets") else {
            return Ok(());
        };
        let cache = ctx
            .caches
            .get(
                &entry.collection_prefix(None),
                std::time::Duration::from_secs(10),
            )
            .await?;
        let (kvs, _) = cache.list(&entry.collection_prefix(Some(ns)));
        let names: Vec<String> = kvs
            .iter()
            .filter_map(|kv| serde_json::from_slice::<Value>(&kv.value).ok())
            .filter(|s| is_token_secret(s) && annotation(s, NAME_ANNOTATION) == name)
            .map(|s| meta::name(&s).to_owned())
            .collect();
        for secret in names {
            self.reconcile_secret(ctx, ns, &secret).await?;
        }
        Ok(())
    }
}

#[async_trait::async_trait]
impl Reconciler for ServiceAccountTokens {
    fn name(&self) -> &'static str {
        NAME
    }

    fn hook(&self) -> &'static str {
        HOOK
    }

    fn description(&self) -> &'static str {
        "the tokens of service account token secrets"
    }

    fn lease(&self) -> Option<&'static str> {
        Some(LEASE)
    }

    fn watched_prefixes(&self, ctx: &Context) -> Vec<String> {
        let table = ctx.registry.snapshot();
        ["secrets", "serviceaccounts"]
            .into_iter()
            .filter_map(|p| table.get("", "v1", p))
            .map(|e| e.collection_prefix(None))
            .collect()
    }

    fn observe(
        &self,
        prefix: &str,
        storage_key: &[u8],
        current: Option<&KeyValue>,
        previous: Option<&KeyValue>,
        _cache: &kapi_registry::cache::Cacher,
    ) -> Vec<String> {
        let Some((ns, name)) = std::str::from_utf8(storage_key)
            .ok()
            .and_then(|k| k.strip_prefix(prefix))
            .and_then(|rest| rest.split_once('/'))
        else {
            return Vec::new();
        };
        if prefix.ends_with("/serviceaccounts/") {
            return vec![format!("serviceaccount/{ns}/{name}")];
        }
        let token_secret = [current, previous].into_iter().flatten().any(|kv| {
            serde_json::from_slice::<Value>(&kv.value).is_ok_and(|s| is_token_secret(&s))
        });
        if token_secret {
            vec![format!("secret/{ns}/{name}")]
        } else {
            Vec::new()
        }
    }

    async fn reconcile(&self, ctx: &Context, key: &str) -> Result<Action, Error> {
        let mut parts = key.splitn(3, '/');
        let (Some(kind), Some(ns), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
            return Ok(Action::Done);
        };
        match kind {
            "secret" => self.reconcile_secret(ctx, ns, name).await?,
            _ => self.reconcile_account(ctx, ns, name).await?,
        }
        Ok(Action::Done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sa() -> ObjectRef {
        ObjectRef {
            name: "robot".into(),
            uid: "u-1".into(),
        }
    }

    fn secret() -> Value {
        json!({"metadata": {"name": "robot-token", "namespace": "team",
            "annotations": {NAME_ANNOTATION: "robot"}}, "type": TOKEN_TYPE})
    }

    #[test]
    fn an_empty_token_secret_gets_token_ca_namespace_and_uid() {
        let out = filled(&secret(), &sa(), Some("PEM"), "jwt").unwrap();
        assert_eq!(out["data"]["token"], STANDARD.encode("jwt"));
        assert_eq!(out["data"]["ca.crt"], STANDARD.encode("PEM"));
        assert_eq!(out["data"]["namespace"], STANDARD.encode("team"));
        assert_eq!(out["metadata"]["annotations"][UID_ANNOTATION], "u-1");
    }

    #[test]
    fn a_filled_token_secret_is_left_as_it_is() {
        let out = filled(&secret(), &sa(), Some("PEM"), "jwt").unwrap();
        assert_eq!(filled(&out, &sa(), Some("PEM"), "another jwt"), None);
    }

    #[test]
    fn an_existing_token_is_kept_when_other_data_is_mended() {
        let mut s = filled(&secret(), &sa(), Some("PEM"), "jwt").unwrap();
        s["data"]["namespace"] = json!("");
        let out = filled(&s, &sa(), Some("PEM"), "another jwt").unwrap();
        assert_eq!(out["data"]["token"], STANDARD.encode("jwt"));
        assert_eq!(out["data"]["namespace"], STANDARD.encode("team"));
    }
}
