//! Authentication: client certificates signed by the CA (CN = user, O = groups), bearer
//! tokens of the token files (kapi's own `tokens.csv` and `--token-auth-file`, each token
//! naming a user, uid and groups), or ServiceAccount tokens (signed JWTs, see
//! [`crate::service_accounts`]). Every authenticated user is also in
//! `system:authenticated`. Everything else gets 401, unless `--anonymous-auth` lets it act
//! as `system:anonymous` (group `system:unauthenticated`), which RBAC lets read the health
//! and version endpoints.

use crate::listener::{ClientCertRejected, ClientCertUser};
use crate::service_accounts::{ServiceAccountTokens, TokenAuth};
use crate::state::ApiState;
use crate::status::ApiError;
use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The group of every authenticated user.
pub const AUTHENTICATED: &str = "system:authenticated";
/// The group whose members every authorizer allows everything.
pub const MASTERS: &str = "system:masters";

/// The authenticated user of a request (kube's `user.Info`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// User name.
    pub name: String,
    /// Unique id (may be empty).
    pub uid: String,
    /// Groups, `system:authenticated` among them.
    pub groups: Vec<String>,
    /// Extra attributes (`authentication.kubernetes.io/credential-id`, a bound token's pod).
    pub extra: BTreeMap<String, Vec<String>>,
}

impl User {
    /// An authenticated user: `groups` plus `system:authenticated`.
    pub fn authenticated(name: &str, uid: &str, mut groups: Vec<String>) -> Self {
        if !groups.iter().any(|g| g == AUTHENTICATED) {
            groups.push(AUTHENTICATED.to_owned());
        }
        Self {
            name: name.to_owned(),
            uid: uid.to_owned(),
            groups,
            extra: BTreeMap::new(),
        }
    }

    /// The user as authentication.k8s.io's `UserInfo` (reviews, AdmissionReview): username,
    /// uid and extra when set, groups.
    pub fn info_json(&self) -> serde_json::Value {
        let mut info = serde_json::Map::new();
        info.insert("username".into(), self.name.clone().into());
        if !self.uid.is_empty() {
            info.insert("uid".into(), self.uid.clone().into());
        }
        info.insert("groups".into(), serde_json::json!(self.groups));
        if !self.extra.is_empty() {
            info.insert("extra".into(), serde_json::json!(self.extra));
        }
        serde_json::Value::Object(info)
    }

    /// Whether the user is in `group`.
    pub fn in_group(&self, group: &str) -> bool {
        self.groups.iter().any(|g| g == group)
    }
}

/// The user of a request without credentials when `--anonymous-auth` is on.
pub const ANONYMOUS: &str = "system:anonymous";
/// The group of requests without credentials.
pub const UNAUTHENTICATED: &str = "system:unauthenticated";

/// Accepted bearer tokens and whom each authenticates.
#[derive(Debug, Default)]
pub struct Authenticator {
    tokens: HashMap<String, User>,
    anonymous: bool,
    service_accounts: Option<Arc<ServiceAccountTokens>>,
}

/// Why a request did not authenticate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// It carried no credentials.
    NoCredentials,
    /// Its credentials are not valid, and why (logged, never sent).
    Invalid(String),
}

impl Authenticator {
    /// Accepts exactly these bearer tokens (plus CA-signed client certificates); requests
    /// without credentials are `system:anonymous` when `anonymous`, else refused (401).
    pub fn new(tokens: HashMap<String, User>, anonymous: bool) -> Self {
        Self {
            tokens,
            anonymous,
            service_accounts: None,
        }
    }

    /// Also accepts ServiceAccount tokens signed by these keys.
    pub fn with_service_accounts(mut self, tokens: Arc<ServiceAccountTokens>) -> Self {
        self.service_accounts = Some(tokens);
        self
    }

    /// The ServiceAccount keys and issuers, if configured.
    pub fn service_accounts(&self) -> Option<&Arc<ServiceAccountTokens>> {
        self.service_accounts.as_ref()
    }

    /// Whom a bearer token authenticates as, for `audiences` (the API's when `None`), and
    /// the audiences it was accepted for (TokenReview's answer): `Ok(None)` for a token no
    /// authenticator knows, `Err` with the reason for one that must be refused.
    pub async fn authenticate_token(
        &self,
        state: &ApiState,
        token: &str,
        audiences: Option<&[String]>,
    ) -> Result<Option<(User, Vec<String>)>, String> {
        if let Some(user) = self.tokens.get(token) {
            let auds = match (audiences, &self.service_accounts) {
                (Some(a), _) => a.to_vec(),
                (None, Some(sa)) => sa.api_audiences().to_vec(),
                (None, None) => Vec::new(),
            };
            return Ok(Some((user.clone(), auds)));
        }
        let Some(sa) = &self.service_accounts else {
            return Ok(None);
        };
        match sa.authenticate(state, token, audiences).await {
            TokenAuth::User(user, auds) => Ok(Some((user, auds))),
            TokenAuth::Refused(why) => Err(why),
            TokenAuth::NotMine => Ok(None),
        }
    }

    /// The user a request authenticates as: its client certificate's, else its bearer
    /// token's.
    pub async fn authenticate(
        &self,
        state: &ApiState,
        presented: Presented,
    ) -> Result<User, Refusal> {
        match presented {
            Presented::Certificate(user) => Ok(user),
            Presented::Bearer(token) => match self.authenticate_token(state, &token, None).await {
                Ok(Some((user, _))) => Ok(user),
                Ok(None) => Err(Refusal::Invalid("invalid bearer token".into())),
                Err(why) => Err(Refusal::Invalid(format!("[invalid bearer token, {why}]"))),
            },
            Presented::Malformed => Err(Refusal::Invalid(
                "the Authorization header is not a bearer token".into(),
            )),
            Presented::RejectedCertificate(why) => Err(Refusal::Invalid(why)),
            Presented::Nothing => Err(Refusal::NoCredentials),
        }
    }
}

/// The credentials a request presents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presented {
    /// A client certificate the CA signed, and its user.
    Certificate(User),
    /// A bearer token.
    Bearer(String),
    /// An `Authorization` header that is not a bearer token.
    Malformed,
    /// Only a client certificate the CA did not sign, and why.
    RejectedCertificate(String),
    /// None.
    Nothing,
}

impl Presented {
    /// What `req` presents: a client certificate the CA signed first, then a bearer token
    /// (as upstream's union, a rejected certificate does not stop a valid token).
    pub fn of(req: &Request) -> Self {
        if let Some(c) = req.extensions().get::<ClientCertUser>() {
            return Self::Certificate(c.0.clone());
        }
        match req.headers().get(AUTHORIZATION) {
            None => match req.extensions().get::<ClientCertRejected>() {
                Some(r) => Self::RejectedCertificate(r.0.clone()),
                None => Self::Nothing,
            },
            Some(value) => match value.to_str().ok().and_then(strip_bearer) {
                Some(token) => Self::Bearer(token.to_owned()),
                None => Self::Malformed,
            },
        }
    }
}

fn strip_bearer(header: &str) -> Option<&str> {
    let (scheme, token) = header.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// Middleware: authenticates every request, the health and version paths included (as
/// kube-apiserver: without credentials they are answered only with `--anonymous-auth`, then
/// as RBAC's `system:public-info-viewer` lets `system:unauthenticated` read them).
pub async fn authenticate(
    State(state): State<Arc<ApiState>>,
    mut req: Request,
    next: Next,
) -> Response {
    let auth = state.authenticator.clone();
    match auth.authenticate(&state, Presented::of(&req)).await {
        Ok(user) => {
            req.extensions_mut().insert(user);
            next.run(req).await
        }
        // Wrong credentials are 401 whatever the anonymous setting, as upstream.
        Err(Refusal::NoCredentials) if auth.anonymous => {
            req.extensions_mut().insert(User {
                name: ANONYMOUS.to_owned(),
                uid: String::new(),
                groups: vec![UNAUTHENTICATED.to_owned()],
                extra: BTreeMap::new(),
            });
            next.run(req).await
        }
        Err(Refusal::NoCredentials) => ApiError::unauthorized().into_response(),
        Err(Refusal::Invalid(why)) => {
            // The reason only: never the credential itself.
            tracing::info!(reason = %why, path = %req.uri().path(), "Unable to authenticate the request");
            ApiError::unauthorized().into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_bearer_accepts_any_case_scheme() {
        assert_eq!(strip_bearer("bearer abc"), Some("abc"));
        assert_eq!(strip_bearer("Bearer  abc "), Some("abc"));
        assert_eq!(strip_bearer("Basic abc"), None);
        assert_eq!(strip_bearer("Bearer "), None);
    }
}
