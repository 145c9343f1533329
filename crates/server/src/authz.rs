//! Authorization (`--authorization-mode`): `AlwaysAllow`, or `RBAC` (the default) — Roles,
//! ClusterRoles, RoleBindings and ClusterRoleBindings evaluated per request, as
//! kube-apiserver's RBAC authorizer does: members of `system:masters` may do anything;
//! otherwise a request is allowed when a rule of a role bound to the user (by name, by one
//! of its groups, or as a ServiceAccount) covers its verb, API group, resource (with
//! subresource), name and namespace, or its non-resource path. The policy is read from the
//! watch caches of the four RBAC resources and rebuilt only when one of them moved. A denial
//! is upstream's 403 Status: `configmaps is forbidden: User "alice" cannot list resource
//! "configmaps" in API group "" in the namespace "default"`, with `: RBAC: …` naming the
//! bindings whose role is missing. Impersonation (`crate::impersonation`) is applied first.

use crate::authn::{MASTERS, User};
use crate::request_info::{self, RequestInfo};
use crate::state::ApiState;
use crate::status::ApiError;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use kapi_registry::cache::Cacher;
use kapi_registry::rest::WriteGuard;
use kapi_storage::{KeyValue, RangeRequest, Store};
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How requests are authorized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Every authenticated request is allowed.
    AlwaysAllow,
    /// RBAC (kube-apiserver's default on clusters).
    #[default]
    Rbac,
}

impl Mode {
    /// Parses `--authorization-mode`, a chain as kube-apiserver takes it (`Node,RBAC`): a
    /// chain with `AlwaysAllow` allows everything (every request reaches it when the others
    /// have no opinion); `Node` is accepted and has no opinion (kapi has no nodes' users);
    /// `Webhook`, `ABAC` and `AlwaysDeny` are refused.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut out = None;
        for m in text.split(',').map(str::trim) {
            match m {
                "RBAC" => out = Some(out.unwrap_or(Mode::Rbac)),
                "AlwaysAllow" => out = Some(Mode::AlwaysAllow),
                "Node" => {}
                other => {
                    return Err(format!(
                        "authorization mode {other:?} is not supported (kapi knows RBAC, Node and AlwaysAllow)"
                    ));
                }
            }
        }
        out.ok_or_else(|| {
            format!("{text:?} names no authorizer kapi can run (RBAC or AlwaysAllow)")
        })
    }
}

/// What a request asks to do (kube's `authorizer.Attributes`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attributes {
    /// A request for an API resource.
    Resource {
        /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`.
        verb: String,
        /// API group (empty for core).
        group: String,
        /// API version.
        version: String,
        /// Resource (plural).
        resource: String,
        /// Subresource, empty for none.
        subresource: String,
        /// Object name, empty for collections.
        name: String,
        /// Namespace, empty for cluster scope.
        namespace: String,
    },
    /// Any other path (discovery, OpenAPI, metrics): the lower-case HTTP method and path.
    NonResource {
        /// `get`, `post`, `put`, `patch`, `delete`.
        verb: String,
        /// The request path.
        path: String,
    },
}

impl Attributes {
    /// The attributes of a request.
    pub fn of(method: &axum::http::Method, path: &str, query: Option<&str>) -> Self {
        let watch = query.is_some_and(|q| {
            form_urlencoded::parse(q.as_bytes())
                .any(|(k, v)| k == "watch" && matches!(v.as_ref(), "true" | "1"))
        });
        match request_info::parse(method, path, watch) {
            Some(RequestInfo::Resource(r)) => Attributes::Resource {
                verb: r.verb.as_str().to_owned(),
                group: r.group,
                version: r.version,
                resource: r.resource,
                subresource: r.subresource.unwrap_or_default(),
                name: r.name.unwrap_or_default(),
                namespace: r.namespace.unwrap_or_default(),
            },
            _ => Attributes::NonResource {
                verb: match *method {
                    axum::http::Method::HEAD => "get".to_owned(),
                    ref m => m.as_str().to_ascii_lowercase(),
                },
                path: path.to_owned(),
            },
        }
    }

    /// Upstream's 403 for a denial with `reason` (`responsewriters.Forbidden`).
    pub fn forbidden(&self, user: &User, reason: &str) -> ApiError {
        let suffix = if reason.is_empty() {
            String::new()
        } else {
            format!(": {reason}")
        };
        match self {
            Attributes::NonResource { verb, path } => ApiError::forbidden(
                "",
                "",
                "",
                &format!("User {:?} cannot {verb} path {path:?}{suffix}", user.name),
            ),
            Attributes::Resource {
                verb,
                group,
                resource,
                subresource,
                name,
                namespace,
                ..
            } => {
                let full = combined(resource, subresource);
                let scope = if namespace.is_empty() {
                    "at the cluster scope".to_owned()
                } else {
                    format!("in the namespace {namespace:?}")
                };
                ApiError::forbidden(
                    group,
                    resource,
                    name,
                    &format!(
                        "User {:?} cannot {verb} resource {full:?} in API group {group:?} {scope}{suffix}",
                        user.name
                    ),
                )
            }
        }
    }
}

/// One policy rule of a role.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    #[serde(default)]
    verbs: Vec<String>,
    #[serde(default)]
    api_groups: Vec<String>,
    #[serde(default)]
    resources: Vec<String>,
    #[serde(default)]
    resource_names: Vec<String>,
    #[serde(default, rename = "nonResourceURLs")]
    non_resource_urls: Vec<String>,
}

/// `resource` or `resource/subresource`, as rules and messages name a request's resource.
fn combined(resource: &str, subresource: &str) -> String {
    if subresource.is_empty() {
        resource.to_owned()
    } else {
        format!("{resource}/{subresource}")
    }
}

fn has(list: &[String], value: &str) -> bool {
    list.iter().any(|v| v == "*" || v == value)
}

impl Rule {
    /// Whether the rule covers the request (upstream's `RuleAllows`).
    pub fn allows(&self, a: &Attributes) -> bool {
        match a {
            Attributes::Resource {
                verb,
                group,
                resource,
                subresource,
                name,
                ..
            } => {
                let combined = combined(resource, subresource);
                has(&self.verbs, verb)
                    && has(&self.api_groups, group)
                    && self.resources.iter().any(|r| {
                        r == "*"
                            || *r == combined
                            || (!subresource.is_empty() && *r == format!("*/{subresource}"))
                    })
                    && (self.resource_names.is_empty() || self.resource_names.contains(name))
            }
            Attributes::NonResource { verb, path } => {
                has(&self.verbs, verb)
                    && self.non_resource_urls.iter().any(|u| {
                        u == "*"
                            || u == path
                            || u.strip_suffix('*')
                                .is_some_and(|prefix| path.starts_with(prefix))
                    })
            }
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
struct Meta {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
struct StoredRole {
    #[serde(default)]
    metadata: Meta,
    #[serde(default)]
    rules: Option<Vec<Rule>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
struct RoleRef {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    name: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
struct Subject {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredBinding {
    #[serde(default)]
    metadata: Meta,
    #[serde(default)]
    role_ref: RoleRef,
    #[serde(default)]
    subjects: Option<Vec<Subject>>,
}

impl Subject {
    /// Whether the subject names the user (upstream's `appliesToUser`); `namespace` is the
    /// binding's (empty for a ClusterRoleBinding).
    fn applies_to(&self, user: &User, namespace: &str) -> bool {
        match self.kind.as_str() {
            "User" => self.name == user.name,
            "Group" => user.in_group(&self.name),
            "ServiceAccount" => {
                let ns = if self.namespace.is_empty() {
                    namespace
                } else {
                    &self.namespace
                };
                !ns.is_empty() && user.name == format!("system:serviceaccount:{ns}:{}", self.name)
            }
            _ => false,
        }
    }
}

/// One atomic permission of a rule: a verb on one group/resource (and name), or on one
/// non-resource URL.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Atom {
    verb: String,
    group: Option<String>,
    resource: String,
    name: Option<String>,
    url: Option<String>,
}

impl Atom {
    /// Whether an owner's rule holds this permission (upstream's `ruleCovers`).
    fn covered_by(&self, owner: &Rule) -> bool {
        if !has(&owner.verbs, &self.verb) {
            return false;
        }
        if let Some(url) = &self.url {
            return owner.non_resource_urls.iter().any(|u| {
                u == "*" || u == url || u.strip_suffix('*').is_some_and(|p| url.starts_with(p))
            });
        }
        let group = self.group.as_deref().unwrap_or_default();
        let resource_ok = owner.resources.iter().any(|r| {
            r == "*"
                || *r == self.resource
                || r.strip_prefix("*/")
                    .is_some_and(|sub| self.resource.split_once('/').is_some_and(|(_, s)| s == sub))
        });
        let name_ok = owner.resource_names.is_empty()
            || self
                .name
                .as_ref()
                .is_some_and(|n| owner.resource_names.contains(n));
        has(&owner.api_groups, group) && resource_ok && name_ok
    }
}

fn atoms(rule: &Rule) -> Vec<Atom> {
    let mut out = Vec::new();
    for verb in &rule.verbs {
        for url in &rule.non_resource_urls {
            out.push(Atom {
                verb: verb.clone(),
                group: None,
                resource: String::new(),
                name: None,
                url: Some(url.clone()),
            });
        }
        for group in &rule.api_groups {
            for resource in &rule.resources {
                let names: Vec<Option<String>> = if rule.resource_names.is_empty() {
                    vec![None]
                } else {
                    rule.resource_names.iter().cloned().map(Some).collect()
                };
                for name in names {
                    out.push(Atom {
                        verb: verb.clone(),
                        group: Some(group.clone()),
                        resource: resource.clone(),
                        name,
                        url: None,
                    });
                }
            }
        }
    }
    out
}

/// The permissions of `requested` that `owner` does not hold, as upstream prints them
/// (compacted per group and resource, `{APIGroups:["x"], Resources:["y"], Verbs:["get"]}`,
/// sorted, each once).
fn uncovered(owner: &[Rule], requested: &[Rule]) -> Vec<String> {
    let missing: Vec<Atom> = requested
        .iter()
        .flat_map(atoms)
        .filter(|a| !owner.iter().any(|o| a.covered_by(o)))
        .collect();
    // Compact: one rule per (group, resource, name/url) with its verbs.
    let mut compact: Vec<(Atom, Vec<String>)> = Vec::new();
    for a in missing {
        let key = Atom {
            verb: String::new(),
            ..a.clone()
        };
        match compact.iter_mut().find(|(k, _)| *k == key) {
            Some((_, verbs)) if !verbs.contains(&a.verb) => verbs.push(a.verb),
            Some(_) => {}
            None => compact.push((key, vec![a.verb])),
        }
    }
    let quoted = |v: &[String]| {
        let parts: Vec<String> = v.iter().map(|s| format!("{s:?}")).collect();
        format!("[{}]", parts.join(" "))
    };
    let mut out: Vec<String> = compact
        .into_iter()
        .map(|(a, verbs)| {
            let mut parts = Vec::new();
            if let Some(g) = &a.group {
                parts.push(format!("APIGroups:{}", quoted(std::slice::from_ref(g))));
                parts.push(format!(
                    "Resources:{}",
                    quoted(std::slice::from_ref(&a.resource))
                ));
            }
            if let Some(u) = &a.url {
                parts.push(format!(
                    "NonResourceURLs:{}",
                    quoted(std::slice::from_ref(u))
                ));
            }
            if let Some(n) = &a.name {
                parts.push(format!("ResourceNames:{}", quoted(std::slice::from_ref(n))));
            }
            parts.push(format!("Verbs:{}", quoted(&verbs)));
            format!("{{{}}}", parts.join(", "))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The RBAC objects at some revisions.
#[derive(Default)]
struct Policy {
    revisions: [i64; 4],
    cluster_roles: HashMap<String, Vec<Rule>>,
    roles: HashMap<(String, String), Vec<Rule>>,
    cluster_bindings: Vec<StoredBinding>,
    bindings: HashMap<String, Vec<StoredBinding>>,
}

fn parse_all<T: for<'de> Deserialize<'de>>(kvs: &[KeyValue]) -> Vec<T> {
    kvs.iter()
        .filter_map(|kv| serde_json::from_slice(&kv.value).ok())
        .collect()
}

/// Every object under `prefix`, read from the store itself.
async fn read_prefix(store: &dyn Store, prefix: &str) -> Result<Vec<KeyValue>, ApiError> {
    let mut out = Vec::new();
    let mut page = RangeRequest::prefix(prefix.as_bytes()).with_limit(1000);
    loop {
        let resp = store
            .range(page.clone())
            .await
            .map_err(|e| ApiError::internal(format!("reading the RBAC policy: {e}")))?;
        let last = resp.kvs.last().map(|kv| kv.key.clone());
        out.extend(resp.kvs);
        page.revision = Some(resp.revision);
        match last {
            Some(key) if resp.more => page.start_after = Some(key),
            _ => return Ok(out),
        }
    }
}

impl Policy {
    /// The policy of the four collections' objects (roles, clusterroles, rolebindings,
    /// clusterrolebindings).
    fn load(objects: [Vec<KeyValue>; 4], revisions: [i64; 4]) -> Self {
        let roles: Vec<StoredRole> = parse_all(&objects[0]);
        let cluster_roles: Vec<StoredRole> = parse_all(&objects[1]);
        let bindings: Vec<StoredBinding> = parse_all(&objects[2]);
        let cluster_bindings: Vec<StoredBinding> = parse_all(&objects[3]);
        let mut by_ns: HashMap<String, Vec<StoredBinding>> = HashMap::new();
        for b in bindings {
            by_ns
                .entry(b.metadata.namespace.clone())
                .or_default()
                .push(b);
        }
        Policy {
            revisions,
            cluster_roles: cluster_roles
                .into_iter()
                .map(|r| (r.metadata.name, r.rules.unwrap_or_default()))
                .collect(),
            roles: roles
                .into_iter()
                .map(|r| {
                    (
                        (r.metadata.namespace, r.metadata.name),
                        r.rules.unwrap_or_default(),
                    )
                })
                .collect(),
            cluster_bindings,
            bindings: by_ns,
        }
    }

    /// The rules of a binding's role, or why there are none.
    fn rules_of(&self, binding: &StoredBinding) -> Result<&[Rule], String> {
        let r = &binding.role_ref;
        match r.kind.as_str() {
            "ClusterRole" => self
                .cluster_roles
                .get(&r.name)
                .map(Vec::as_slice)
                .ok_or_else(|| {
                    format!(
                        "clusterrole.rbac.authorization.k8s.io {:?} not found",
                        r.name
                    )
                }),
            "Role" => self
                .roles
                .get(&(binding.metadata.namespace.clone(), r.name.clone()))
                .map(Vec::as_slice)
                .ok_or_else(|| format!("role.rbac.authorization.k8s.io {:?} not found", r.name)),
            other => Err(format!("unknown role kind {other:?}")),
        }
    }

    /// Allowed, or the errors met on the way (upstream's `VisitRulesFor`).
    /// Every rule bound to `user` cluster-wide and in `namespace`, as rules, and the
    /// bindings whose role is missing.
    fn owned_rules(&self, user: &User, namespace: &str) -> (Vec<Rule>, Vec<String>) {
        let mut rules = Vec::new();
        let mut errors = Vec::new();
        let cluster = self.cluster_bindings.iter().map(|b| (b, ""));
        let local = self
            .bindings
            .get(namespace)
            .filter(|_| !namespace.is_empty())
            .into_iter()
            .flatten()
            .map(|b| (b, namespace));
        for (binding, ns) in cluster.chain(local) {
            let subjects = binding.subjects.as_deref().unwrap_or_default();
            if !subjects.iter().any(|s| s.applies_to(user, ns)) {
                continue;
            }
            match self.rules_of(binding) {
                Ok(r) => rules.extend_from_slice(r),
                Err(e) => errors.push(e),
            }
        }
        (rules, errors)
    }

    /// Every rule bound to `user` cluster-wide and in `namespace`.
    fn rules_for(&self, user: &User, namespace: &str) -> Rules {
        let mut out = Rules::default();
        let cluster = self.cluster_bindings.iter().map(|b| (b, ""));
        let local = self
            .bindings
            .get(namespace)
            .filter(|_| !namespace.is_empty())
            .into_iter()
            .flatten()
            .map(|b| (b, namespace));
        for (binding, ns) in cluster.chain(local) {
            let subjects = binding.subjects.as_deref().unwrap_or_default();
            if !subjects.iter().any(|s| s.applies_to(user, ns)) {
                continue;
            }
            match self.rules_of(binding) {
                Ok(rules) => rules.iter().for_each(|r| out.add(r)),
                Err(e) => out.errors.push(e),
            }
        }
        out
    }

    /// `Ok(why)` when a bound rule allows the request (`allowed by RoleBinding "b/ns" of Role
    /// "r" to User "alice"`), else the errors met on the way (upstream's `VisitRulesFor`).
    fn authorize(&self, user: &User, a: &Attributes) -> Result<String, Vec<String>> {
        let mut errors = Vec::new();
        let namespace = match a {
            Attributes::Resource { namespace, .. } => namespace.as_str(),
            Attributes::NonResource { .. } => "",
        };
        let cluster = self.cluster_bindings.iter().map(|b| (b, ""));
        let local = self
            .bindings
            .get(namespace)
            .filter(|_| !namespace.is_empty())
            .into_iter()
            .flatten()
            .map(|b| (b, namespace));
        for (binding, ns) in cluster.chain(local) {
            let subjects = binding.subjects.as_deref().unwrap_or_default();
            let Some(subject) = subjects.iter().find(|s| s.applies_to(user, ns)) else {
                continue;
            };
            match self.rules_of(binding) {
                Ok(rules) if rules.iter().any(|r| r.allows(a)) => {
                    return Ok(describe(binding, subject, ns));
                }
                Ok(_) => {}
                Err(e) => errors.push(e),
            }
        }
        Err(errors)
    }
}

/// The rules bound to a user in a namespace (what a SelfSubjectRulesReview answers).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rules {
    /// `resourceRules` items.
    pub resource: Vec<serde_json::Value>,
    /// `nonResourceRules` items.
    pub non_resource: Vec<serde_json::Value>,
    /// Bindings whose role is missing.
    pub errors: Vec<String>,
}

impl Rules {
    fn add(&mut self, rule: &Rule) {
        use serde_json::{Map, Value, json};
        if !rule.resources.is_empty() {
            let mut r = Map::new();
            r.insert("verbs".into(), json!(rule.verbs));
            for (key, list) in [
                ("apiGroups", &rule.api_groups),
                ("resources", &rule.resources),
                ("resourceNames", &rule.resource_names),
            ] {
                if !list.is_empty() {
                    r.insert(key.into(), json!(list));
                }
            }
            self.resource.push(Value::Object(r));
        }
        if !rule.non_resource_urls.is_empty() {
            self.non_resource
                .push(json!({"verbs": rule.verbs, "nonResourceURLs": rule.non_resource_urls}));
        }
    }
}

/// How upstream names the binding that allowed a request.
fn describe(binding: &StoredBinding, subject: &Subject, namespace: &str) -> String {
    let who = match subject.kind.as_str() {
        "ServiceAccount" => {
            let ns = if subject.namespace.is_empty() {
                namespace
            } else {
                &subject.namespace
            };
            format!("{} {:?}", subject.kind, format!("{ns}/{}", subject.name))
        }
        kind => format!("{kind} {:?}", subject.name),
    };
    let (kind, name) = if namespace.is_empty() {
        ("ClusterRoleBinding", binding.metadata.name.clone())
    } else {
        (
            "RoleBinding",
            format!("{}/{}", binding.metadata.name, namespace),
        )
    };
    format!(
        "{kind} {name:?} of {} {:?} to {who}",
        binding.role_ref.kind, binding.role_ref.name
    )
}

/// An authorizer's answer: allowed or not, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Whether the request is allowed.
    pub allowed: bool,
    /// Why (`RBAC: allowed by …`, or the errors that kept a binding from counting).
    pub reason: String,
}

/// The RBAC authorizer over the server's watch caches.
pub struct Rbac {
    policy: Mutex<Option<Arc<Policy>>>,
}

/// The storage prefixes of roles, clusterroles, rolebindings and clusterrolebindings.
const RESOURCES: [&str; 4] = [
    "roles",
    "clusterroles",
    "rolebindings",
    "clusterrolebindings",
];
/// How long the first authorization may wait for the RBAC caches to load.
const LOAD: Duration = Duration::from_secs(5);

impl Rbac {
    /// An authorizer that reads the policy when first asked.
    pub fn new() -> Self {
        Self {
            policy: Mutex::new(None),
        }
    }

    fn prefixes(state: &ApiState) -> Result<[String; 4], ApiError> {
        let table = state.registry.snapshot();
        let mut out = Vec::with_capacity(4);
        for plural in RESOURCES {
            let entry = table
                .get("rbac.authorization.k8s.io", "v1", plural)
                .ok_or_else(|| ApiError::internal("the RBAC resources are not served"))?;
            out.push(entry.collection_prefix(None));
        }
        out.try_into()
            .map_err(|_| ApiError::internal("the RBAC resources are not served"))
    }

    /// The policy as the watch caches hold it, rebuilt when one of them moved.
    async fn cached_policy(&self, state: &ApiState) -> Result<Arc<Policy>, ApiError> {
        let mut caches = Vec::with_capacity(4);
        for prefix in Self::prefixes(state)? {
            caches.push(state.caches.get(&prefix, LOAD).await?);
        }
        let revisions = [0, 1, 2, 3].map(|i| caches[i].revision());
        let mut held = self.policy.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = held.as_ref().filter(|p| p.revisions == revisions) {
            return Ok(p.clone());
        }
        let objects = [0, 1, 2, 3].map(|i| {
            let cache: &Cacher = &caches[i];
            cache.list(cache.prefix()).0
        });
        let fresh = Arc::new(Policy::load(objects, revisions));
        *held = Some(fresh.clone());
        Ok(fresh)
    }

    /// The policy read from the store: what every write committed before now says.
    async fn stored_policy(&self, state: &ApiState) -> Result<Policy, ApiError> {
        let mut objects = Vec::with_capacity(4);
        for prefix in Self::prefixes(state)? {
            objects.push(read_prefix(state.store.as_ref(), &prefix).await?);
        }
        let objects: [Vec<KeyValue>; 4] = objects
            .try_into()
            .map_err(|_| ApiError::internal("the RBAC resources are not served"))?;
        Ok(Policy::load(objects, [0; 4]))
    }

    /// Whether the user may do what `a` describes, and why.
    pub async fn decide(
        &self,
        state: &ApiState,
        user: &User,
        a: &Attributes,
    ) -> Result<Decision, ApiError> {
        let allowed = |why: String| Decision {
            allowed: true,
            reason: format!("RBAC: allowed by {why}"),
        };
        if let Ok(why) = self.cached_policy(state).await?.authorize(user, a) {
            return Ok(allowed(why));
        }
        // The caches follow the store a moment behind: a denial is checked against the
        // store itself, so a binding written before the request always counts.
        Ok(match self.stored_policy(state).await?.authorize(user, a) {
            Ok(why) => allowed(why),
            Err(errors) => Decision {
                allowed: false,
                reason: match errors.len() {
                    0 => String::new(),
                    1 => format!("RBAC: {}", errors[0]),
                    _ => format!("RBAC: [{}]", errors.join(", ")),
                },
            },
        })
    }
}

impl Default for Rbac {
    fn default() -> Self {
        Self::new()
    }
}

/// The authorizer of a server: kube-apiserver's chain of the privileged group
/// (`system:masters`), then the mode's authorizer.
#[derive(Default)]
pub struct Authorizer {
    mode: Mode,
    rbac: Rbac,
}

impl Authorizer {
    /// An authorizer in `mode`.
    pub fn new(mode: Mode) -> Self {
        Self {
            mode,
            rbac: Rbac::new(),
        }
    }

    /// Whether `user` may do what `a` describes (what the access reviews answer).
    pub async fn decide(
        &self,
        state: &ApiState,
        user: &User,
        a: &Attributes,
    ) -> Result<Decision, ApiError> {
        if user.in_group(MASTERS) || self.mode == Mode::AlwaysAllow {
            return Ok(Decision {
                allowed: true,
                reason: String::new(),
            });
        }
        self.rbac.decide(state, user, a).await
    }

    /// The rules bound to `user` in `namespace` (AlwaysAllow: everything).
    pub async fn rules_for(
        &self,
        state: &ApiState,
        user: &User,
        namespace: &str,
    ) -> Result<Rules, ApiError> {
        if self.mode == Mode::AlwaysAllow {
            let all = vec!["*".to_owned()];
            let mut rules = Rules::default();
            rules.add(&Rule {
                verbs: all.clone(),
                api_groups: all.clone(),
                resources: all.clone(),
                ..Rule::default()
            });
            rules.add(&Rule {
                verbs: all.clone(),
                non_resource_urls: all,
                ..Rule::default()
            });
            return Ok(rules);
        }
        Ok(self
            .rbac
            .stored_policy(state)
            .await?
            .rules_for(user, namespace))
    }

    /// The check of a write of a Role, ClusterRole, RoleBinding or ClusterRoleBinding by
    /// `user` (upstream's escalation and bind checks), or `None` when nothing is checked
    /// (members of `system:masters`, AlwaysAllow, other resources).
    pub async fn escalation_guard(
        &self,
        state: &ApiState,
        user: &User,
        plural: &str,
        namespace: &str,
    ) -> Result<Option<WriteGuard>, ApiError> {
        if user.in_group(MASTERS) || self.mode == Mode::AlwaysAllow || !RESOURCES.contains(&plural)
        {
            return Ok(None);
        }
        let policy = Arc::new(self.rbac.stored_policy(state).await?);
        let (user, plural, namespace) = (user.clone(), plural.to_owned(), namespace.to_owned());
        Ok(Some(WriteGuard(Arc::new(
            move |obj: &serde_json::Value| {
                check_escalation(&policy, &user, &plural, &namespace, obj)
            },
        ))))
    }

    /// Allows the request, or answers upstream's 403.
    pub async fn authorize(
        &self,
        state: &ApiState,
        user: &User,
        a: &Attributes,
    ) -> Result<(), ApiError> {
        let d = self.decide(state, user, a).await?;
        if d.allowed {
            Ok(())
        } else {
            Err(a.forbidden(user, &d.reason))
        }
    }
}

/// Upstream's `ConfirmNoEscalation` and `BindingAuthorized`: a role may only grant what its
/// writer holds (unless they may `escalate` it); a binding may only bind a role whose
/// permissions its writer holds (unless they may `bind` it).
fn check_escalation(
    policy: &Policy,
    user: &User,
    plural: &str,
    namespace: &str,
    obj: &serde_json::Value,
) -> Result<(), kapi_registry::Error> {
    const GROUP: &str = "rbac.authorization.k8s.io";
    let name = obj["metadata"]["name"].as_str().unwrap_or_default();
    let may = |verb: &str, resource: &str, target: &str| {
        policy
            .authorize(
                user,
                &Attributes::Resource {
                    verb: verb.into(),
                    group: GROUP.into(),
                    version: "v1".into(),
                    resource: resource.into(),
                    subresource: String::new(),
                    name: target.into(),
                    namespace: namespace.into(),
                },
            )
            .is_ok()
    };
    let forbidden = |message: String| kapi_registry::Error::Forbidden {
        group: GROUP.into(),
        resource: plural.into(),
        name: name.into(),
        message,
    };
    let requested: Vec<Rule> = match plural {
        "roles" | "clusterroles" => {
            if may("escalate", plural, name) {
                return Ok(());
            }
            serde_json::from_value(obj["rules"].clone()).unwrap_or_default()
        }
        _ => {
            let binding: StoredBinding = serde_json::from_value(obj.clone()).unwrap_or_default();
            let role_resource = match binding.role_ref.kind.as_str() {
                "Role" => "roles",
                _ => "clusterroles",
            };
            if may("bind", role_resource, &binding.role_ref.name) {
                return Ok(());
            }
            let mut binding = binding;
            binding.metadata.namespace = namespace.to_owned();
            policy.rules_of(&binding).map_err(forbidden)?.to_vec()
        }
    };
    let (owned, errors) = policy.owned_rules(user, namespace);
    let missing = uncovered(&owned, &requested);
    if missing.is_empty() {
        return Ok(());
    }
    let groups: Vec<String> = user.groups.iter().map(|g| format!("{g:?}")).collect();
    let mut message = format!(
        "user {:?} (groups=[{}]) is attempting to grant RBAC permissions not currently held:\n{}",
        user.name,
        groups.join(" "),
        missing.join("\n")
    );
    if !errors.is_empty() {
        message.push_str(&format!("; resolution errors: [{}]", errors.join(", ")));
    }
    Err(forbidden(message))
}

/// Middleware (after authentication): applies `Impersonate-*` headers, then authorizes
/// every request that carries a user.
pub async fn authorize(
    State(state): State<Arc<ApiState>>,
    mut req: Request,
    next: Next,
) -> Response {
    let Some(mut user) = req.extensions().get::<User>().cloned() else {
        // Authentication puts a user on every request it lets through.
        return ApiError::unauthorized().into_response();
    };
    match crate::impersonation::impersonate(&state, &user, req.headers()).await {
        Ok(Some(acting)) => {
            tracing::debug!(requester = %user.name, acting = %acting.name, "impersonation");
            user = acting;
            req.extensions_mut().insert(user.clone());
        }
        Ok(None) => {}
        Err(e) => return e.into_response(),
    }
    let a = Attributes::of(req.method(), req.uri().path(), req.uri().query());
    match state.authorizer.authorize(&state, &user, &a).await {
        Ok(()) => next.run(req).await,
        Err(e) => e.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(v: serde_json::Value) -> Rule {
        serde_json::from_value(v).unwrap()
    }

    fn res(verb: &str, group: &str, resource: &str, sub: &str, name: &str, ns: &str) -> Attributes {
        Attributes::Resource {
            verb: verb.into(),
            group: group.into(),
            version: "v1".into(),
            resource: resource.into(),
            subresource: sub.into(),
            name: name.into(),
            namespace: ns.into(),
        }
    }

    fn alice() -> User {
        User::authenticated("alice", "", vec!["dev".into()])
    }

    #[test]
    fn a_rule_matches_verb_group_resource_and_name() {
        let r = rule(
            json!({"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"],
            "resourceNames": ["app"]}),
        );
        assert!(r.allows(&res("get", "", "configmaps", "", "app", "default")));
        assert!(!r.allows(&res("get", "", "configmaps", "", "other", "default")));
        assert!(!r.allows(&res("list", "", "configmaps", "", "", "default")));
        assert!(!r.allows(&res("get", "apps", "configmaps", "", "app", "default")));
    }

    #[test]
    fn subresources_need_their_own_rule_or_a_star_form() {
        let pods = rule(json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}));
        let logs = rule(json!({"verbs": ["get"], "apiGroups": [""], "resources": ["*/log"]}));
        assert!(!pods.allows(&res("get", "", "pods", "log", "p", "ns")));
        assert!(logs.allows(&res("get", "", "pods", "log", "p", "ns")));
        assert!(!logs.allows(&res("get", "", "pods", "", "p", "ns")));
    }

    #[test]
    fn non_resource_urls_match_exactly_or_by_star_prefix() {
        let r = rule(json!({"verbs": ["get"], "nonResourceURLs": ["/apis", "/apis/*"]}));
        let path = |p: &str| Attributes::NonResource {
            verb: "get".into(),
            path: p.into(),
        };
        assert!(r.allows(&path("/apis")));
        assert!(r.allows(&path("/apis/apps/v1")));
        assert!(!r.allows(&path("/api")));
    }

    #[test]
    fn service_account_subjects_name_the_account_in_its_namespace() {
        let s = Subject {
            kind: "ServiceAccount".into(),
            name: "ci".into(),
            namespace: String::new(),
        };
        let sa = User::authenticated("system:serviceaccount:build:ci", "", vec![]);
        assert!(s.applies_to(&sa, "build"));
        assert!(!s.applies_to(&sa, "other"));
        assert!(!s.applies_to(&sa, ""));
    }

    #[test]
    fn a_binding_to_a_missing_role_is_named_in_the_reason() {
        let policy = Policy {
            bindings: HashMap::from([(
                "default".to_owned(),
                vec![StoredBinding {
                    metadata: Meta {
                        name: "b".into(),
                        namespace: "default".into(),
                    },
                    role_ref: RoleRef {
                        kind: "Role".into(),
                        name: "gone".into(),
                    },
                    subjects: Some(vec![Subject {
                        kind: "Group".into(),
                        name: "dev".into(),
                        namespace: String::new(),
                    }]),
                }],
            )]),
            ..Policy::default()
        };
        let errors = policy
            .authorize(&alice(), &res("get", "", "pods", "", "p", "default"))
            .unwrap_err();
        assert_eq!(
            errors,
            [r#"role.rbac.authorization.k8s.io "gone" not found"#]
        );
    }

    #[test]
    fn the_forbidden_message_is_upstreams() {
        let e = res("list", "", "configmaps", "", "", "default").forbidden(&alice(), "");
        assert_eq!(
            e.message,
            r#"configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default""#
        );
        let e = res("get", "apps", "deployments", "scale", "web", "").forbidden(&alice(), "");
        assert_eq!(
            e.message,
            r#"deployments.apps "web" is forbidden: User "alice" cannot get resource "deployments/scale" in API group "apps" at the cluster scope"#
        );
        let e = Attributes::NonResource {
            verb: "get".into(),
            path: "/metrics".into(),
        }
        .forbidden(&alice(), "");
        assert_eq!(
            e.message,
            r#"forbidden: User "alice" cannot get path "/metrics""#
        );
    }

    #[test]
    fn uncovered_permissions_are_compacted_per_resource_and_sorted() {
        let owner = vec![rule(
            json!({"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"]}),
        )];
        let requested = vec![rule(json!({"verbs": ["get", "list"], "apiGroups": [""],
            "resources": ["configmaps", "secrets"]}))];
        assert_eq!(
            uncovered(&owner, &requested),
            [
                r#"{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}"#,
                r#"{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}"#,
            ]
        );
    }

    #[test]
    fn a_star_is_only_covered_by_a_star() {
        let owner = vec![rule(json!({"verbs": ["get", "list"], "apiGroups": ["*"],
            "resources": ["*"]}))];
        let all_verbs = vec![rule(json!({"verbs": ["*"], "apiGroups": [""],
            "resources": ["pods"]}))];
        assert_eq!(uncovered(&owner, &all_verbs).len(), 1);
        let named = vec![rule(json!({"verbs": ["get"], "apiGroups": ["apps"],
            "resources": ["deployments/scale"], "resourceNames": ["web"]}))];
        assert!(uncovered(&owner, &named).is_empty());
    }

    #[test]
    fn modes_parse_as_kube_apiservers_flag() {
        assert_eq!(Mode::parse("RBAC"), Ok(Mode::Rbac));
        assert_eq!(Mode::parse("AlwaysAllow"), Ok(Mode::AlwaysAllow));
        assert_eq!(Mode::parse("RBAC,AlwaysAllow"), Ok(Mode::AlwaysAllow));
        assert_eq!(Mode::parse("Node,RBAC"), Ok(Mode::Rbac));
        assert!(Mode::parse("Node").is_err());
        assert!(Mode::parse("Webhook,RBAC").is_err());
    }
}
