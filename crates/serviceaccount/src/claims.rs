//! What ServiceAccount tokens say, as kube-apiserver writes and checks them: bound tokens
//! (TokenRequest: issuer, audiences, expiry, the `kubernetes.io` claim naming the
//! ServiceAccount and the Pod, Secret or Node the token is bound to, a `jti`) and legacy
//! tokens (issuer `kubernetes/serviceaccount`, written into Secrets of type
//! `kubernetes.io/service-account-token`, no expiry). [`Verifier::verify`] checks the
//! signature, issuer, audiences and times; whether the named objects still exist is the
//! caller's lookup.

use crate::jws::Unverified;
use crate::keys::VerifyingKey;
use serde_json::{Map, Value, json};

/// The issuer of legacy, Secret-based tokens.
pub const LEGACY_ISSUER: &str = "kubernetes/serviceaccount";
/// How far clocks may disagree (go-jose's default leeway, which upstream uses).
pub const LEEWAY_SECONDS: i64 = 60;
/// The user-name prefix of ServiceAccounts.
pub const USER_PREFIX: &str = "system:serviceaccount:";

/// A named object with its uid.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ObjectRef {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid`.
    pub uid: String,
}

impl ObjectRef {
    fn json(&self) -> Value {
        json!({"name": self.name, "uid": self.uid})
    }

    fn from_json(v: &Value) -> Option<Self> {
        let name = v.get("name")?.as_str()?.to_owned();
        let uid = v.get("uid").and_then(Value::as_str).unwrap_or_default();
        Some(Self {
            name,
            uid: uid.to_owned(),
        })
    }
}

/// The user name of a ServiceAccount.
pub fn user_name(namespace: &str, name: &str) -> String {
    format!("{USER_PREFIX}{namespace}:{name}")
}

/// A bound token to issue (a TokenRequest's answer).
#[derive(Debug, Clone, Default)]
pub struct BoundToken {
    /// `iss`: the first `--service-account-issuer`.
    pub issuer: String,
    /// `aud`.
    pub audiences: Vec<String>,
    /// `iat` and `nbf` (Unix seconds).
    pub issued_at: i64,
    /// `exp` (Unix seconds).
    pub expires_at: i64,
    /// The ServiceAccount's namespace.
    pub namespace: String,
    /// The ServiceAccount.
    pub service_account: ObjectRef,
    /// The Pod the token is bound to.
    pub pod: Option<ObjectRef>,
    /// The Secret the token is bound to.
    pub secret: Option<ObjectRef>,
    /// The Node the token is bound to (or the Pod's node).
    pub node: Option<ObjectRef>,
    /// `jti`: the token's id, the `credential-id` its user carries.
    pub id: String,
}

impl BoundToken {
    /// The token's claims.
    pub fn claims(&self) -> Value {
        let mut k = Map::new();
        k.insert("namespace".into(), json!(self.namespace));
        k.insert("serviceaccount".into(), self.service_account.json());
        for (key, r) in [
            ("pod", &self.pod),
            ("secret", &self.secret),
            ("node", &self.node),
        ] {
            if let Some(r) = r {
                k.insert(key.into(), r.json());
            }
        }
        json!({
            "aud": self.audiences,
            "exp": self.expires_at,
            "iat": self.issued_at,
            "iss": self.issuer,
            "jti": self.id,
            "kubernetes.io": k,
            "nbf": self.issued_at,
            "sub": user_name(&self.namespace, &self.service_account.name),
        })
    }
}

/// The claims of a legacy token kept in Secret `secret` of ServiceAccount `sa`.
pub fn legacy_claims(namespace: &str, sa: &ObjectRef, secret: &str) -> Value {
    json!({
        "iss": LEGACY_ISSUER,
        "kubernetes.io/serviceaccount/namespace": namespace,
        "kubernetes.io/serviceaccount/secret.name": secret,
        "kubernetes.io/serviceaccount/service-account.name": sa.name,
        "kubernetes.io/serviceaccount/service-account.uid": sa.uid,
        "sub": user_name(namespace, &sa.name),
    })
}

/// What a valid token says; the caller checks that the objects still exist.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Subject {
    /// The ServiceAccount's namespace.
    pub namespace: String,
    /// The ServiceAccount.
    pub service_account: ObjectRef,
    /// The Pod a bound token is bound to.
    pub pod: Option<ObjectRef>,
    /// The Secret a bound token is bound to, or a legacy token's Secret (uid empty).
    pub secret: Option<ObjectRef>,
    /// The Node a bound token is bound to.
    pub node: Option<ObjectRef>,
    /// A bound token's `jti`.
    pub id: Option<String>,
    /// Whether this is a legacy (Secret-based) token.
    pub legacy: bool,
    /// The audiences the token is good for among those asked (kube's response audiences).
    pub audiences: Vec<String>,
}

/// The result of checking a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Not a ServiceAccount token of this server (another authenticator may know it).
    NotMine,
    /// A ServiceAccount token that must be refused, and why.
    Invalid(String),
    /// A valid token.
    Valid(Box<Subject>),
}

/// Checks tokens against the verifying keys, issuers and audiences of a server.
#[derive(Debug, Clone, Default)]
pub struct Verifier {
    /// Accepted issuers of bound tokens (`--service-account-issuer`, every value).
    pub issuers: Vec<String>,
    /// The keys that verify signatures (`--service-account-key-file` and the signing key).
    pub keys: Vec<VerifyingKey>,
    /// The audiences the API accepts (`--api-audiences`, default the issuers).
    pub api_audiences: Vec<String>,
}

fn audiences_of(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// Go's `%q` of a string list: `["a" "b"]`.
fn go_quoted(list: &[String]) -> String {
    let items: Vec<String> = list.iter().map(|s| format!("{s:?}")).collect();
    format!("[{}]", items.join(" "))
}

impl Verifier {
    /// Checks `token` at Unix time `now` for `audiences` (the API's when `None`).
    pub fn verify(&self, token: &str, now: i64, audiences: Option<&[String]>) -> Outcome {
        let Some(t) = Unverified::parse(token) else {
            return Outcome::NotMine;
        };
        let issuer = t.claims["iss"].as_str().unwrap_or_default();
        let legacy = issuer == LEGACY_ISSUER;
        if !legacy && !self.issuers.iter().any(|i| i == issuer) {
            return Outcome::NotMine;
        }
        if !t.verified_by(&self.keys) {
            return Outcome::Invalid("token signature could not be verified by any key".into());
        }
        let mut token_auds = audiences_of(&t.claims["aud"]);
        if token_auds.is_empty() {
            // Legacy tokens name no audience: they are good for the API's.
            token_auds = self.api_audiences.clone();
        }
        let wanted = audiences.unwrap_or(&self.api_audiences);
        let auds: Vec<String> = token_auds
            .iter()
            .filter(|a| wanted.contains(a))
            .cloned()
            .collect();
        if auds.is_empty() && !self.api_audiences.is_empty() {
            return Outcome::Invalid(format!(
                "token audiences {} is invalid for the target audiences {}",
                go_quoted(&token_auds),
                go_quoted(wanted)
            ));
        }
        let time = |k: &str| t.claims[k].as_i64();
        if time("exp").is_some_and(|exp| now > exp + LEEWAY_SECONDS) {
            return Outcome::Invalid("service account token has expired".into());
        }
        if time("nbf").is_some_and(|nbf| now + LEEWAY_SECONDS < nbf) {
            return Outcome::Invalid("service account token is not valid yet".into());
        }
        if time("iat").is_some_and(|iat| now + LEEWAY_SECONDS < iat) {
            return Outcome::Invalid("service account token is issued in the future".into());
        }
        let subject = if legacy {
            legacy_subject(&t.claims)
        } else {
            bound_subject(&t.claims)
        };
        match subject {
            Ok(mut s) => {
                s.audiences = auds;
                Outcome::Valid(Box::new(s))
            }
            Err(reason) => Outcome::Invalid(reason),
        }
    }
}

fn bound_subject(claims: &Value) -> Result<Subject, String> {
    let k = claims
        .get("kubernetes.io")
        .filter(|k| k.is_object())
        .ok_or("token could not be validated.")?;
    let namespace = k["namespace"].as_str().unwrap_or_default().to_owned();
    let sa = ObjectRef::from_json(&k["serviceaccount"]).unwrap_or_default();
    if namespace.is_empty() || sa.name.is_empty() || sa.uid.is_empty() {
        return Err("token could not be validated.".into());
    }
    if claims["sub"].as_str() != Some(user_name(&namespace, &sa.name).as_str()) {
        return Err("token sub claim does not name its service account".into());
    }
    Ok(Subject {
        namespace,
        service_account: sa,
        pod: ObjectRef::from_json(&k["pod"]),
        secret: ObjectRef::from_json(&k["secret"]),
        node: ObjectRef::from_json(&k["node"]),
        id: claims["jti"].as_str().map(str::to_owned),
        legacy: false,
        audiences: Vec::new(),
    })
}

fn legacy_subject(claims: &Value) -> Result<Subject, String> {
    let claim = |name: &str, what: &str| -> Result<String, String> {
        claims[format!("kubernetes.io/serviceaccount/{name}")]
            .as_str()
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| format!("{what} claim is missing"))
    };
    let sub = claims["sub"].as_str().ok_or("sub claim is missing")?;
    let namespace = claim("namespace", "namespace")?;
    let secret = claim("secret.name", "secretName")?;
    let name = claim("service-account.name", "serviceAccountName")?;
    let uid = claim("service-account.uid", "serviceAccountUID")?;
    if sub != user_name(&namespace, &name) {
        return Err("sub claim is invalid".into());
    }
    Ok(Subject {
        namespace,
        service_account: ObjectRef { name, uid },
        secret: Some(ObjectRef {
            name: secret,
            uid: String::new(),
        }),
        legacy: true,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jws;
    use crate::keys::SigningKey;

    const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

    fn setup() -> (SigningKey, Verifier) {
        let (key, _) = SigningKey::generate().unwrap();
        let v = Verifier {
            issuers: vec![ISSUER.into()],
            keys: vec![key.verifying_key().clone()],
            api_audiences: vec![ISSUER.into()],
        };
        (key, v)
    }

    fn bound(now: i64) -> BoundToken {
        BoundToken {
            issuer: ISSUER.into(),
            audiences: vec![ISSUER.into()],
            issued_at: now,
            expires_at: now + 600,
            namespace: "team".into(),
            service_account: ObjectRef {
                name: "robot".into(),
                uid: "u-1".into(),
            },
            id: "j-1".into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_bound_token_names_its_service_account_and_id() {
        let (key, v) = setup();
        let token = jws::sign(&key, &bound(1000).claims()).unwrap();
        let Outcome::Valid(s) = v.verify(&token, 1000, None) else {
            panic!("refused");
        };
        assert_eq!(s.namespace, "team");
        assert_eq!(s.service_account.uid, "u-1");
        assert_eq!(s.id.as_deref(), Some("j-1"));
        assert_eq!(s.audiences, vec![ISSUER.to_owned()]);
        assert!(!s.legacy);
    }

    #[test]
    fn an_expired_token_is_refused_after_the_leeway() {
        let (key, v) = setup();
        let token = jws::sign(&key, &bound(1000).claims()).unwrap();
        assert!(matches!(
            v.verify(&token, 1600 + 60, None),
            Outcome::Valid(_)
        ));
        assert_eq!(
            v.verify(&token, 1600 + 61, None),
            Outcome::Invalid("service account token has expired".into())
        );
    }

    #[test]
    fn a_token_from_the_future_is_refused() {
        let (key, v) = setup();
        let token = jws::sign(&key, &bound(5000).claims()).unwrap();
        assert_eq!(
            v.verify(&token, 1000, None),
            Outcome::Invalid("service account token is not valid yet".into())
        );
    }

    #[test]
    fn a_token_signed_by_another_key_is_refused() {
        let (_, v) = setup();
        let (other, _) = SigningKey::generate().unwrap();
        let token = jws::sign(&other, &bound(1000).claims()).unwrap();
        assert!(matches!(v.verify(&token, 1000, None), Outcome::Invalid(_)));
    }

    #[test]
    fn a_token_of_another_issuer_is_not_ours() {
        let (key, v) = setup();
        let mut t = bound(1000);
        t.issuer = "https://elsewhere".into();
        let token = jws::sign(&key, &t.claims()).unwrap();
        assert_eq!(v.verify(&token, 1000, None), Outcome::NotMine);
        assert_eq!(v.verify("static-token", 1000, None), Outcome::NotMine);
    }

    #[test]
    fn a_token_for_another_audience_is_refused_with_both_lists() {
        let (key, v) = setup();
        let mut t = bound(1000);
        t.audiences = vec!["vault".into()];
        let token = jws::sign(&key, &t.claims()).unwrap();
        assert_eq!(
            v.verify(&token, 1000, None),
            Outcome::Invalid(format!(
                "token audiences [\"vault\"] is invalid for the target audiences [\"{ISSUER}\"]"
            ))
        );
        let Outcome::Valid(s) = v.verify(&token, 1000, Some(&["vault".to_owned()])) else {
            panic!("refused for its own audience");
        };
        assert_eq!(s.audiences, vec!["vault".to_owned()]);
    }

    #[test]
    fn a_legacy_token_names_its_secret_and_has_the_api_audiences() {
        let (key, v) = setup();
        let sa = ObjectRef {
            name: "robot".into(),
            uid: "u-1".into(),
        };
        let token = jws::sign(&key, &legacy_claims("team", &sa, "robot-token")).unwrap();
        let Outcome::Valid(s) = v.verify(&token, 1000, None) else {
            panic!("refused");
        };
        assert!(s.legacy);
        assert_eq!(s.secret.unwrap().name, "robot-token");
        assert_eq!(s.audiences, vec![ISSUER.to_owned()]);
    }

    #[test]
    fn a_legacy_token_whose_sub_differs_from_its_claims_is_refused() {
        let (key, v) = setup();
        let sa = ObjectRef {
            name: "robot".into(),
            uid: "u-1".into(),
        };
        let mut claims = legacy_claims("team", &sa, "robot-token");
        claims["sub"] = json!("system:serviceaccount:kube-system:admin");
        let token = jws::sign(&key, &claims).unwrap();
        assert_eq!(
            v.verify(&token, 1000, None),
            Outcome::Invalid("sub claim is invalid".into())
        );
    }
}
