//! Authentication: bearer tokens of the token files (kapi's own `tokens.csv` and
//! `--token-auth-file`, each token naming a user, uid and groups), or client certificates
//! signed by the CA (CN = user, O = groups). Every authenticated user is also in
//! `system:authenticated`. Everything else gets 401, except the health and version
//! endpoints.

use crate::listener::ClientCertUser;
use crate::status::ApiError;
use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
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
        }
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
}

impl Authenticator {
    /// Accepts exactly these bearer tokens (plus CA-signed client certificates); requests
    /// without credentials are `system:anonymous` when `anonymous`, else refused (401).
    pub fn new(tokens: HashMap<String, User>, anonymous: bool) -> Self {
        Self { tokens, anonymous }
    }

    /// The user a request authenticates as, if any.
    pub fn authenticate(&self, req: &Request) -> Option<User> {
        if let Some(value) = req.headers().get(AUTHORIZATION)
            && let Ok(text) = value.to_str()
            && let Some(token) = strip_bearer(text)
            && let Some(user) = self.tokens.get(token)
        {
            return Some(user.clone());
        }
        req.extensions()
            .get::<ClientCertUser>()
            .map(|c| c.0.clone())
    }
}

fn strip_bearer(header: &str) -> Option<&str> {
    let (scheme, token) = header.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// Paths served without authentication (kube-apiserver's `system:public-info-viewer`).
fn is_public(path: &str) -> bool {
    matches!(path, "/healthz" | "/livez" | "/readyz" | "/version")
        || ["/healthz/", "/livez/", "/readyz/", "/version/"]
            .iter()
            .any(|p| path.starts_with(p))
}

/// Middleware: lets public paths through, authenticates everything else.
pub async fn authenticate(
    State(auth): State<Arc<Authenticator>>,
    mut req: Request,
    next: Next,
) -> Response {
    if is_public(req.uri().path()) {
        return next.run(req).await;
    }
    let has_credentials = req.headers().contains_key(AUTHORIZATION)
        || req.extensions().get::<ClientCertUser>().is_some();
    match auth.authenticate(&req) {
        Some(user) => {
            req.extensions_mut().insert(user);
            next.run(req).await
        }
        // Wrong credentials are 401 whatever the anonymous setting, as upstream.
        None if auth.anonymous && !has_credentials => {
            req.extensions_mut().insert(User {
                name: ANONYMOUS.to_owned(),
                uid: String::new(),
                groups: vec![UNAUTHENTICATED.to_owned()],
            });
            next.run(req).await
        }
        None => ApiError::unauthorized().into_response(),
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

    #[test]
    fn health_and_version_paths_are_public() {
        assert!(is_public("/readyz"));
        assert!(is_public("/healthz/ping"));
        assert!(!is_public("/api"));
        assert!(!is_public("/metrics"));
    }
}
