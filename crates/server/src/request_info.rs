//! Request info: what an `/api/...` or `/apis/...` request addresses (group, version,
//! namespace, resource, name, subresource, verb), parsed from the path, method and query
//! before any registry look-up, as kube-apiserver's RequestInfoFactory does.

use axum::http::Method;

/// The API verb of a resource request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// GET of one object.
    Get,
    /// GET of a collection.
    List,
    /// GET of a collection (or one object) with `watch=true`.
    Watch,
    /// POST.
    Create,
    /// PUT.
    Update,
    /// PATCH.
    Patch,
    /// DELETE of one object.
    Delete,
    /// DELETE of a collection.
    DeleteCollection,
}

impl Verb {
    /// The lower-case name kube-apiserver uses (discovery `verbs`, metrics).
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "deletecollection",
        }
    }
}

/// A discovery document path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiscoveryPath {
    /// `/api`.
    Api,
    /// `/api/<version>`.
    ApiVersion(String),
    /// `/apis`.
    Apis,
    /// `/apis/<group>`.
    Group(String),
    /// `/apis/<group>/<version>`.
    GroupVersion(String, String),
}

/// A request for a resource (collection, object or subresource).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRequest {
    /// The verb from the method, the presence of a name and `watch`.
    pub verb: Verb,
    /// API group; empty for core.
    pub group: String,
    /// API version.
    pub version: String,
    /// Namespace from the path, if any.
    pub namespace: Option<String>,
    /// Resource (plural).
    pub resource: String,
    /// Object name, if any.
    pub name: Option<String>,
    /// Subresource, e.g. `status`.
    pub subresource: Option<String>,
}

/// What a request under `/api` or `/apis` addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestInfo {
    /// A discovery document.
    Discovery(DiscoveryPath),
    /// A resource request.
    Resource(ResourceRequest),
}

/// Parses `path` (without query). `watch` is the value of the `watch` query parameter
/// (true for `true`/`1`). `None` means the path is not an API path (404 page not found).
pub fn parse(method: &Method, path: &str, watch: bool) -> Option<RequestInfo> {
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, rest) = match parts.as_slice() {
        ["api"] => return Some(RequestInfo::Discovery(DiscoveryPath::Api)),
        ["api", v] => return Some(RequestInfo::Discovery(DiscoveryPath::ApiVersion(s(v)))),
        ["apis"] => return Some(RequestInfo::Discovery(DiscoveryPath::Apis)),
        ["apis", g] => return Some(RequestInfo::Discovery(DiscoveryPath::Group(s(g)))),
        ["apis", g, v] => {
            return Some(RequestInfo::Discovery(DiscoveryPath::GroupVersion(
                s(g),
                s(v),
            )));
        }
        ["api", v, rest @ ..] => (("", *v), rest),
        ["apis", g, v, rest @ ..] => ((*g, *v), rest),
        _ => return None,
    };
    if parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let (watch_prefix, rest) = match rest {
        ["watch", rest @ ..] => (true, rest),
        _ => (false, rest),
    };
    let (namespace, rest) = split_namespace(rest);
    let (resource, name, subresource) = match rest {
        [r] => (*r, None, None),
        [r, n] => (*r, Some(s(n)), None),
        [r, n, sub] => (*r, Some(s(n)), Some(s(sub))),
        _ => return None,
    };
    let verb = verb_for(method, name.is_some(), watch || watch_prefix)?;
    Some(RequestInfo::Resource(ResourceRequest {
        verb,
        group: s(group.0),
        version: s(group.1),
        namespace,
        resource: s(resource),
        name,
        subresource,
    }))
}

/// `namespaces/<ns>/<resource>...` addresses a namespaced resource; `namespaces/<ns>` and
/// `namespaces/<ns>/status|finalize` address the Namespace object itself.
fn split_namespace<'a, 'b>(parts: &'b [&'a str]) -> (Option<String>, &'b [&'a str]) {
    match parts {
        ["namespaces", ns, next, ..] if *next != "status" && *next != "finalize" => {
            (Some(s(ns)), &parts[2..])
        }
        _ => (None, parts),
    }
}

fn verb_for(method: &Method, has_name: bool, watch: bool) -> Option<Verb> {
    Some(match *method {
        Method::GET | Method::HEAD if watch => Verb::Watch,
        Method::GET | Method::HEAD if has_name => Verb::Get,
        Method::GET | Method::HEAD => Verb::List,
        Method::POST => Verb::Create,
        Method::PUT => Verb::Update,
        Method::PATCH => Verb::Patch,
        Method::DELETE if has_name => Verb::Delete,
        Method::DELETE => Verb::DeleteCollection,
        _ => return None,
    })
}

fn s(v: &str) -> String {
    v.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(method: Method, path: &str, watch: bool) -> ResourceRequest {
        match parse(&method, path, watch) {
            Some(RequestInfo::Resource(r)) => r,
            other => panic!("not a resource request: {other:?}"),
        }
    }

    #[test]
    fn parse_core_namespaced_object() {
        let r = res(
            Method::GET,
            "/api/v1/namespaces/default/configmaps/cfg",
            false,
        );
        assert_eq!(r.verb, Verb::Get);
        assert_eq!(r.group, "");
        assert_eq!(r.namespace.as_deref(), Some("default"));
        assert_eq!(r.resource, "configmaps");
        assert_eq!(r.name.as_deref(), Some("cfg"));
    }

    #[test]
    fn parse_namespace_object_is_cluster_scoped_namespaces() {
        let r = res(Method::GET, "/api/v1/namespaces/default", false);
        assert_eq!(r.namespace, None);
        assert_eq!(r.resource, "namespaces");
        assert_eq!(r.name.as_deref(), Some("default"));
    }

    #[test]
    fn parse_namespace_status_is_a_subresource_of_namespaces() {
        let r = res(Method::PUT, "/api/v1/namespaces/ns1/status", false);
        assert_eq!(r.resource, "namespaces");
        assert_eq!(r.subresource.as_deref(), Some("status"));
        assert_eq!(r.verb, Verb::Update);
    }

    #[test]
    fn parse_group_list_with_watch_param_is_watch() {
        let r = res(
            Method::GET,
            "/apis/coordination.k8s.io/v1/namespaces/n/leases",
            true,
        );
        assert_eq!(r.verb, Verb::Watch);
        assert_eq!(r.group, "coordination.k8s.io");
    }

    #[test]
    fn parse_legacy_watch_prefix_is_watch() {
        let r = res(Method::GET, "/api/v1/watch/namespaces/n/configmaps", false);
        assert_eq!(r.verb, Verb::Watch);
        assert_eq!(r.resource, "configmaps");
    }

    #[test]
    fn parse_delete_without_name_is_deletecollection() {
        let r = res(Method::DELETE, "/api/v1/namespaces/n/secrets", false);
        assert_eq!(r.verb, Verb::DeleteCollection);
    }

    #[test]
    fn parse_discovery_paths() {
        let p = |path| parse(&Method::GET, path, false);
        assert_eq!(p("/api"), Some(RequestInfo::Discovery(DiscoveryPath::Api)));
        assert_eq!(
            p("/apis/autoscaling/v2"),
            Some(RequestInfo::Discovery(DiscoveryPath::GroupVersion(
                "autoscaling".into(),
                "v2".into()
            )))
        );
    }

    #[test]
    fn parse_rejects_non_api_and_too_deep_paths() {
        assert_eq!(parse(&Method::GET, "/foo", false), None);
        assert_eq!(
            parse(&Method::GET, "/api/v1/namespaces/n/configmaps/a/b/c", false),
            None
        );
        assert_eq!(parse(&Method::GET, "/api/v1//configmaps", false), None);
    }
}
