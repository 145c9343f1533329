//! ServiceAccount tokens in the server: the keys and issuers of the `--service-account-*`
//! flags (a key generated into the data dir when none is given), tokens issued for
//! TokenRequests, and the authentication of bearer tokens that are ServiceAccount JWTs —
//! bound tokens while their ServiceAccount (and the Pod, Secret or Node they are bound to)
//! still exists with the same uid, legacy tokens while their Secret holds them.

use crate::authn::User;
use crate::files::{FileError, write_private};
use crate::state::ApiState;
use kapi_serviceaccount::claims;
use kapi_serviceaccount::{BoundToken, KeyError, Outcome, SigningKey, Subject, Verifier, jws};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The issuer when `--service-account-issuer` is not given (kind's and kubeadm's).
pub const DEFAULT_ISSUER: &str = "https://kubernetes.default.svc.cluster.local";
/// The key kapi generates in its data dir when no signing key is configured.
pub const GENERATED_KEY: &str = "service-account.key";
/// The extra key of a bound token's id.
pub const CREDENTIAL_ID: &str = "authentication.kubernetes.io/credential-id";
/// The label upstream's legacy-token cleaner sets on a Secret whose token it invalidated.
pub const INVALID_SINCE_LABEL: &str = "kubernetes.io/legacy-token-invalid-since";

/// The `--service-account-*` flags.
#[derive(Debug, Clone, Default)]
pub struct ServiceAccountOptions {
    /// `--service-account-signing-key-file`; `None` uses (or creates) the data dir's key.
    pub signing_key_file: Option<PathBuf>,
    /// `--service-account-key-file`: more keys that verify tokens.
    pub key_files: Vec<PathBuf>,
    /// `--service-account-issuer`: the first issues tokens, all are accepted.
    pub issuers: Vec<String>,
    /// `--api-audiences`; empty means the issuers.
    pub api_audiences: Vec<String>,
    /// `--service-account-max-token-expiration`: longer requests are shortened to it.
    pub max_token_expiration: Option<Duration>,
    /// `--service-account-jwks-uri`: the `jwks_uri` of the OpenID discovery document.
    pub jwks_uri: Option<String>,
}

/// Errors reading the ServiceAccount keys.
#[derive(Debug, thiserror::Error)]
pub enum ServiceAccountKeyError {
    /// A key file could not be read or written.
    #[error(transparent)]
    File(#[from] FileError),
    /// A key file holds no usable key.
    #[error("{path}: {source}")]
    Key {
        /// The file.
        path: PathBuf,
        /// Why.
        source: KeyError,
    },
}

/// What a bearer token is to the ServiceAccount authenticator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenAuth {
    /// Not a ServiceAccount token of this server.
    NotMine,
    /// A ServiceAccount token to refuse, and why (what upstream logs and TokenReview says).
    Refused(String),
    /// The user the token authenticates, and the audiences it was accepted for.
    User(User, Vec<String>),
}

/// The server's ServiceAccount keys, issuers and audiences.
#[derive(Debug)]
pub struct ServiceAccountTokens {
    signer: Arc<SigningKey>,
    verifier: Verifier,
    max_expiration: Option<i64>,
    jwks_uri: Option<String>,
}

fn read_key_file(path: &Path) -> Result<Vec<u8>, ServiceAccountKeyError> {
    std::fs::read(path).map_err(|source| {
        ServiceAccountKeyError::File(FileError {
            path: path.to_owned(),
            source,
        })
    })
}

impl ServiceAccountTokens {
    /// Reads the keys the options name (blocking file reads), generating the data dir's key
    /// on first start when no signing key is configured.
    pub fn load(
        opts: &ServiceAccountOptions,
        data_dir: &Path,
    ) -> Result<Self, ServiceAccountKeyError> {
        let key_error = |path: &Path| {
            let path = path.to_owned();
            move |source| ServiceAccountKeyError::Key { path, source }
        };
        let signer = match &opts.signing_key_file {
            Some(path) => SigningKey::from_pem(&read_key_file(path)?).map_err(key_error(path))?,
            None => {
                let path = data_dir.join(GENERATED_KEY);
                if path.exists() {
                    SigningKey::from_pem(&read_key_file(&path)?).map_err(key_error(&path))?
                } else {
                    let (key, pem) = SigningKey::generate().map_err(key_error(&path))?;
                    write_private(&path, pem.as_bytes())?;
                    key
                }
            }
        };
        let mut keys = vec![signer.verifying_key().clone()];
        for path in &opts.key_files {
            let more = kapi_serviceaccount::keys::verifying_keys_from_pem(&read_key_file(path)?)
                .map_err(key_error(path))?;
            for k in more {
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        let issuers = if opts.issuers.is_empty() {
            vec![DEFAULT_ISSUER.to_owned()]
        } else {
            opts.issuers.clone()
        };
        let api_audiences = if opts.api_audiences.is_empty() {
            issuers.clone()
        } else {
            opts.api_audiences.clone()
        };
        Ok(Self {
            signer: Arc::new(signer),
            verifier: Verifier {
                issuers,
                keys,
                api_audiences,
            },
            max_expiration: opts
                .max_token_expiration
                .map(|d| d.as_secs() as i64)
                .filter(|s| *s > 0),
            jwks_uri: opts.jwks_uri.clone(),
        })
    }

    /// The issuer of the tokens this server makes.
    pub fn issuer(&self) -> &str {
        self.verifier
            .issuers
            .first()
            .map(String::as_str)
            .unwrap_or(DEFAULT_ISSUER)
    }

    /// The audiences the API accepts (a TokenRequest's default).
    pub fn api_audiences(&self) -> &[String] {
        &self.verifier.api_audiences
    }

    /// The longest lifetime a requested token gets, in seconds.
    pub fn max_expiration(&self) -> Option<i64> {
        self.max_expiration
    }

    /// The configured `jwks_uri`, if any.
    pub fn jwks_uri(&self) -> Option<&str> {
        self.jwks_uri.as_deref()
    }

    /// The verifying keys (the JWKS).
    pub fn jwks(&self) -> Value {
        let keys: Vec<Value> = self.verifier.keys.iter().map(|k| k.jwk()).collect();
        serde_json::json!({ "keys": keys })
    }

    /// The signing key (the legacy-token controller writes tokens with it).
    pub fn signer(&self) -> &Arc<SigningKey> {
        &self.signer
    }

    /// A signed bound token.
    pub fn issue(&self, token: &BoundToken) -> Result<String, KeyError> {
        jws::sign(&self.signer, &token.claims())
    }

    /// What `token` authenticates as for `audiences` (the API's when `None`), looking up
    /// the objects it names.
    pub async fn authenticate(
        &self,
        state: &ApiState,
        token: &str,
        audiences: Option<&[String]>,
    ) -> TokenAuth {
        let now = chrono::Utc::now().timestamp();
        let subject = match self.verifier.verify(token, now, audiences) {
            Outcome::NotMine => return TokenAuth::NotMine,
            Outcome::Invalid(why) => return TokenAuth::Refused(why),
            Outcome::Valid(s) => s,
        };
        match check_objects(state, &subject, token).await {
            Ok(user) => TokenAuth::User(user, subject.audiences),
            Err(why) => TokenAuth::Refused(why),
        }
    }
}

/// A stored object's JSON, from the watch cache when it holds it with `uid`, else from the
/// store itself (a ServiceAccount created a moment ago may not be cached yet).
async fn stored(
    state: &ApiState,
    plural: &str,
    namespace: Option<&str>,
    name: &str,
    uid: &str,
) -> Result<Option<Value>, String> {
    let table = state.registry.snapshot();
    let entry = table
        .get("", "v1", plural)
        .ok_or_else(|| format!("{plural} are not served"))?;
    let key = entry.key(namespace, name);
    if let Ok(cache) = state
        .caches
        .get(&entry.collection_prefix(None), Duration::from_secs(5))
        .await
    {
        let cached = cache
            .list(&key)
            .0
            .into_iter()
            .find(|kv| kv.key == key.as_bytes())
            .and_then(|kv| serde_json::from_slice::<Value>(&kv.value).ok());
        if let Some(obj) = cached.filter(|o| uid.is_empty() || o["metadata"]["uid"] == uid) {
            return Ok(Some(obj));
        }
    }
    let kv = state
        .store
        .get(key.as_bytes(), None)
        .await
        .map_err(|e| format!("looking up {plural} {name}: {e}"))?;
    Ok(kv.and_then(|kv| serde_json::from_slice(&kv.value).ok()))
}

fn deleting(obj: &Value) -> bool {
    obj["metadata"]
        .get("deletionTimestamp")
        .is_some_and(|t| !t.is_null())
}

fn uid_of(obj: &Value) -> &str {
    obj["metadata"]["uid"].as_str().unwrap_or_default()
}

/// Upstream's validator: the ServiceAccount and the bound objects must exist with the uids
/// the token names, not being deleted; a legacy token must still be its Secret's.
async fn check_objects(state: &ApiState, s: &Subject, token: &str) -> Result<User, String> {
    let ns = s.namespace.as_str();
    let sa_ref = &s.service_account;
    let mut extra: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if s.legacy {
        let secret_name = s.secret.as_ref().map(|r| r.name.as_str()).unwrap_or("");
        let secret = stored(state, "secrets", Some(ns), secret_name, "").await?;
        let Some(secret) = secret.filter(|o| !deleting(o)) else {
            return Err("Token has been invalidated".into());
        };
        if secret["metadata"]["labels"]
            .get(INVALID_SINCE_LABEL)
            .is_some()
        {
            return Err("Token has been invalidated".into());
        }
        let held = secret["data"]["token"].as_str().and_then(|b| {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.decode(b).ok()
        });
        if held.as_deref() != Some(token.as_bytes()) {
            return Err("Token does not match server's copy".into());
        }
    }
    let sa = stored(
        state,
        "serviceaccounts",
        Some(ns),
        &sa_ref.name,
        &sa_ref.uid,
    )
    .await?;
    let Some(sa) = sa.filter(|o| !deleting(o)) else {
        return Err(format!(
            "service account {ns}/{} has been deleted",
            sa_ref.name
        ));
    };
    if uid_of(&sa) != sa_ref.uid {
        return Err(format!(
            "service account UID ({}) does not match claim ({})",
            uid_of(&sa),
            sa_ref.uid
        ));
    }
    if !s.legacy {
        if let Some(r) = &s.secret {
            check_bound(state, "secrets", "secret", Some(ns), r).await?;
        }
        if let Some(r) = &s.pod {
            check_bound(state, "pods", "pod", Some(ns), r).await?;
            extra.insert(
                "authentication.kubernetes.io/pod-name".into(),
                vec![r.name.clone()],
            );
            extra.insert(
                "authentication.kubernetes.io/pod-uid".into(),
                vec![r.uid.clone()],
            );
        }
        if let Some(r) = &s.node {
            // A Pod-bound token names its Pod's node, which need not exist to be valid.
            if s.pod.is_none() {
                check_bound(state, "nodes", "node", None, r).await?;
            }
            extra.insert(
                "authentication.kubernetes.io/node-name".into(),
                vec![r.name.clone()],
            );
            extra.insert(
                "authentication.kubernetes.io/node-uid".into(),
                vec![r.uid.clone()],
            );
        }
        if let Some(id) = &s.id {
            extra.insert(CREDENTIAL_ID.into(), vec![format!("JTI={id}")]);
        }
    }
    let mut user = User::authenticated(
        &claims::user_name(ns, &sa_ref.name),
        &sa_ref.uid,
        vec![
            "system:serviceaccounts".to_owned(),
            format!("system:serviceaccounts:{ns}"),
        ],
    );
    user.extra = extra;
    Ok(user)
}

async fn check_bound(
    state: &ApiState,
    plural: &str,
    what: &str,
    namespace: Option<&str>,
    r: &kapi_serviceaccount::ObjectRef,
) -> Result<(), String> {
    let shown = match namespace {
        Some(ns) => format!("{ns}/{}", r.name),
        None => r.name.clone(),
    };
    let obj = stored(state, plural, namespace, &r.name, &r.uid).await?;
    let Some(obj) = obj.filter(|o| !deleting(o)) else {
        return Err(format!("{what} {shown} has been deleted"));
    };
    if uid_of(&obj) != r.uid {
        return Err(format!(
            "{what} UID ({}) does not match service account {what} ref claim ({})",
            uid_of(&obj),
            r.uid
        ));
    }
    Ok(())
}
