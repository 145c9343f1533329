//! Impersonation (`Impersonate-User`, `-Group`, `-Uid`, `-Extra-*`), as upstream's
//! `WithImpersonation`: each thing asked for is authorized for the requester with the
//! `impersonate` verb, then the request acts as the user the headers describe.

use crate::authn::{ANONYMOUS, AUTHENTICATED, UNAUTHENTICATED, User};
use crate::authz::Attributes;
use crate::state::ApiState;
use crate::status::ApiError;
use axum::http::{HeaderMap, HeaderValue};
use std::collections::BTreeMap;

const USER: &str = "impersonate-user";
const GROUP: &str = "impersonate-group";
const UID: &str = "impersonate-uid";
const EXTRA_PREFIX: &str = "impersonate-extra-";

/// What a request's `Impersonate-*` headers ask to act as.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Impersonation {
    /// `Impersonate-User`.
    pub user: String,
    /// Every `Impersonate-Group`, in order.
    pub groups: Vec<String>,
    /// `Impersonate-Uid`, empty when not asked for.
    pub uid: String,
    /// `Impersonate-Extra-<key>` values by unescaped key.
    pub extra: BTreeMap<String, Vec<String>>,
}

/// Why `Impersonate-*` headers cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImpersonationError {
    /// Groups, a uid or extras were asked for without a user (upstream answers 500).
    #[error("requested {0} without impersonating a user")]
    WithoutUser(&'static str),
}

fn text(value: &HeaderValue) -> String {
    value.to_str().unwrap_or_default().to_owned()
}

/// An extra's key from its header name: lower case, percent-decoded (upstream's
/// `unescapeExtraKey`; a key that does not decode is kept as sent).
fn unescape_extra_key(encoded: &str) -> String {
    let lower = encoded.to_ascii_lowercase();
    percent_encoding::percent_decode_str(&lower)
        .decode_utf8()
        .map(|k| k.into_owned())
        .unwrap_or(lower)
}

/// `system:serviceaccount:<namespace>:<name>` split, if the user name is one.
fn service_account_of(user: &str) -> Option<(&str, &str)> {
    let rest = user.strip_prefix("system:serviceaccount:")?;
    let (ns, name) = rest.split_once(':')?;
    (!ns.is_empty() && !name.is_empty() && !name.contains(':')).then_some((ns, name))
}

impl Impersonation {
    /// The impersonation `headers` ask for; `None` when they ask for none.
    pub fn of(headers: &HeaderMap) -> Result<Option<Self>, ImpersonationError> {
        let mut asked = Self {
            user: headers.get(USER).map(text).unwrap_or_default(),
            groups: headers.get_all(GROUP).iter().map(text).collect(),
            uid: headers.get(UID).map(text).unwrap_or_default(),
            extra: BTreeMap::new(),
        };
        for (name, value) in headers {
            if let Some(key) = name.as_str().strip_prefix(EXTRA_PREFIX) {
                let values = asked.extra.entry(unescape_extra_key(key)).or_default();
                values.push(text(value));
            }
        }
        if asked.user.is_empty() {
            let without = if !asked.groups.is_empty() {
                Some("groups")
            } else if !asked.uid.is_empty() {
                Some("uid")
            } else if !asked.extra.is_empty() {
                Some("user-extra")
            } else {
                None
            };
            return match without {
                Some(what) => Err(ImpersonationError::WithoutUser(what)),
                None => Ok(None),
            };
        }
        Ok(Some(asked))
    }

    /// The attributes to authorize for the requester, one per thing asked for: `users` (or
    /// the namespaced `serviceaccounts`), `groups`, `uids` and `userextras/<key>`.
    pub fn requests(&self) -> Vec<Attributes> {
        let ask =
            |group: &str, resource: &str, sub: &str, name: &str, ns: &str| Attributes::Resource {
                verb: "impersonate".into(),
                group: group.into(),
                version: String::new(),
                resource: resource.into(),
                subresource: sub.into(),
                name: name.into(),
                namespace: ns.into(),
            };
        let mut out = vec![match service_account_of(&self.user) {
            Some((ns, name)) => ask("", "serviceaccounts", "", name, ns),
            None => ask("", "users", "", &self.user, ""),
        }];
        out.extend(self.groups.iter().map(|g| ask("", "groups", "", g, "")));
        if !self.uid.is_empty() {
            out.push(ask("authentication.k8s.io", "uids", "", &self.uid, ""));
        }
        for (key, values) in &self.extra {
            out.extend(
                values
                    .iter()
                    .map(|v| ask("authentication.k8s.io", "userextras", key, v, "")),
            );
        }
        out
    }

    /// The user the request then acts as: the groups given, else a ServiceAccount's own;
    /// plus `system:authenticated` (`system:unauthenticated` for `system:anonymous`) unless
    /// either is among them.
    pub fn acting_user(self) -> User {
        let mut groups = self.groups;
        if groups.is_empty()
            && let Some((ns, _)) = service_account_of(&self.user)
        {
            groups = vec![
                "system:serviceaccounts".to_owned(),
                format!("system:serviceaccounts:{ns}"),
            ];
        }
        let has = |g: &str| groups.iter().any(|x| x == g);
        let implied = if self.user == ANONYMOUS {
            (!has(UNAUTHENTICATED)).then_some(UNAUTHENTICATED)
        } else {
            (!has(AUTHENTICATED) && !has(UNAUTHENTICATED)).then_some(AUTHENTICATED)
        };
        groups.extend(implied.map(str::to_owned));
        User {
            name: self.user,
            uid: self.uid,
            groups,
            extra: self.extra,
        }
    }
}

/// The user a request acts as after its `Impersonate-*` headers, each authorized for the
/// requester; `None` when it asks for no impersonation.
pub async fn impersonate(
    state: &ApiState,
    requester: &User,
    headers: &HeaderMap,
) -> Result<Option<User>, ApiError> {
    let asked = match Impersonation::of(headers) {
        Ok(Some(asked)) => asked,
        Ok(None) => return Ok(None),
        Err(e) => return Err(ApiError::internal(e)),
    };
    for a in asked.requests() {
        let d = state.authorizer.decide(state, requester, &a).await?;
        if !d.allowed {
            return Err(a.forbidden(requester, &d.reason));
        }
    }
    Ok(Some(asked.acting_user()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            let name = axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap();
            map.append(name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn asked(pairs: &[(&str, &str)]) -> Impersonation {
        Impersonation::of(&headers(pairs)).unwrap().unwrap()
    }

    fn targets(pairs: &[(&str, &str)]) -> Vec<(String, String, String, String)> {
        let target = |a: &Attributes| match a {
            Attributes::Resource {
                verb,
                group,
                resource,
                subresource,
                name,
                namespace,
                ..
            } if verb == "impersonate" => (
                group.clone(),
                format!("{resource}/{subresource}"),
                name.clone(),
                namespace.clone(),
            ),
            other => panic!("not an impersonate request: {other:?}"),
        };
        asked(pairs).requests().iter().map(target).collect()
    }

    fn t(g: &str, r: &str, n: &str, ns: &str) -> (String, String, String, String) {
        (g.into(), r.into(), n.into(), ns.into())
    }

    #[test]
    fn no_impersonate_header_asks_for_nothing() {
        let plain = headers(&[("authorization", "Bearer x")]);
        assert_eq!(Impersonation::of(&plain), Ok(None));
    }

    #[test]
    fn a_user_is_authorized_on_users_by_name() {
        assert_eq!(
            targets(&[("impersonate-user", "bob")]),
            vec![t("", "users/", "bob", "")]
        );
    }

    #[test]
    fn a_service_account_user_is_authorized_on_serviceaccounts_in_its_namespace() {
        assert_eq!(
            targets(&[("impersonate-user", "system:serviceaccount:build:ci")]),
            vec![t("", "serviceaccounts/", "ci", "build")]
        );
    }

    #[test]
    fn each_group_is_authorized_on_groups() {
        assert_eq!(
            targets(&[
                ("impersonate-user", "bob"),
                ("impersonate-group", "dev"),
                ("impersonate-group", "ops"),
            ])[1..],
            [t("", "groups/", "dev", ""), t("", "groups/", "ops", "")]
        );
    }

    #[test]
    fn a_uid_is_authorized_on_uids_of_authentication_k8s_io() {
        assert_eq!(
            targets(&[("impersonate-user", "bob"), ("impersonate-uid", "u-1")])[1..],
            [t("authentication.k8s.io", "uids/", "u-1", "")]
        );
    }

    #[test]
    fn each_extra_value_is_authorized_on_userextras_with_the_unescaped_key() {
        assert_eq!(
            targets(&[
                ("impersonate-user", "bob"),
                ("impersonate-extra-example.com%2fscopes", "read"),
                ("impersonate-extra-example.com%2fscopes", "write"),
            ])[1..],
            [
                t(
                    "authentication.k8s.io",
                    "userextras/example.com/scopes",
                    "read",
                    ""
                ),
                t(
                    "authentication.k8s.io",
                    "userextras/example.com/scopes",
                    "write",
                    ""
                ),
            ]
        );
    }

    #[test]
    fn groups_a_uid_or_extras_without_a_user_are_refused() {
        for (name, what) in [
            ("impersonate-group", "groups"),
            ("impersonate-uid", "uid"),
            ("impersonate-extra-scopes", "user-extra"),
        ] {
            assert_eq!(
                Impersonation::of(&headers(&[(name, "x")])),
                Err(ImpersonationError::WithoutUser(what))
            );
        }
    }

    #[test]
    fn an_impersonated_user_without_groups_is_only_authenticated() {
        let user = asked(&[("impersonate-user", "bob")]).acting_user();
        assert_eq!(user.name, "bob");
        assert_eq!(user.groups, ["system:authenticated"]);
    }

    #[test]
    fn given_groups_are_kept_and_system_authenticated_added() {
        let user =
            asked(&[("impersonate-user", "bob"), ("impersonate-group", "dev")]).acting_user();
        assert_eq!(user.groups, ["dev", "system:authenticated"]);
    }

    #[test]
    fn system_unauthenticated_among_the_groups_keeps_system_authenticated_out() {
        let user = asked(&[
            ("impersonate-user", "bob"),
            ("impersonate-group", "system:unauthenticated"),
        ])
        .acting_user();
        assert_eq!(user.groups, ["system:unauthenticated"]);
    }

    #[test]
    fn an_impersonated_anonymous_user_is_unauthenticated() {
        let user = asked(&[("impersonate-user", "system:anonymous")]).acting_user();
        assert_eq!(user.groups, ["system:unauthenticated"]);
    }

    #[test]
    fn a_service_account_gets_its_groups_unless_groups_are_given() {
        let sa = "system:serviceaccount:build:ci";
        let own = asked(&[("impersonate-user", sa)]).acting_user();
        assert_eq!(
            own.groups,
            [
                "system:serviceaccounts",
                "system:serviceaccounts:build",
                "system:authenticated"
            ]
        );
        let given = asked(&[("impersonate-user", sa), ("impersonate-group", "dev")]).acting_user();
        assert_eq!(given.groups, ["dev", "system:authenticated"]);
    }

    #[test]
    fn the_uid_and_extras_reach_the_acting_user() {
        let user = asked(&[
            ("impersonate-user", "bob"),
            ("impersonate-uid", "u-1"),
            ("impersonate-extra-Example.com%2Fscopes", "read"),
        ])
        .acting_user();
        assert_eq!(user.uid, "u-1");
        assert_eq!(
            user.extra,
            BTreeMap::from([("example.com/scopes".to_owned(), vec!["read".to_owned()])])
        );
    }
}
