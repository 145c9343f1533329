//! The strategy of a registry entry, in small traits as kube's registry has them: what a
//! create does ([`CreateStrategy`]), what an update does ([`UpdateStrategy`]), how a delete
//! goes ([`DeleteStrategy`]), and what the kind is beyond them ([`Strategy`]: status
//! subresource, views, field labels).

use crate::allocator::Allocator;
use crate::error::StatusCause;
use crate::meta;
use serde_json::Value;

/// Which names a kind accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// RFC 1123 subdomain (most kinds).
    Dns1123Subdomain,
    /// RFC 1123 label (namespaces).
    Dns1123Label,
    /// RFC 1035 label: a label that starts with a letter (services).
    Dns1035Label,
    /// Any name that is a valid path segment (custom kinds with their own rules).
    PathSegment,
}

/// What a create does to a new object before it is stored, and how it is validated (kube's
/// `RESTCreateStrategy`).
pub trait CreateStrategy: Send + Sync {
    /// Names this kind accepts.
    fn name_rule(&self) -> NameRule {
        NameRule::Dns1123Subdomain
    }

    /// Fills kind-specific defaults and server fields of a new object.
    fn prepare_for_create(&self, _obj: &mut Value) {}

    /// Kind-specific validation beyond metadata; causes with field paths.
    fn validate(&self, _obj: &Value) -> Vec<StatusCause> {
        Vec::new()
    }

    /// Why a create is refused right now, if it is (the objects of a CRD being deleted:
    /// kube-apiserver's 405 "create not allowed while custom resource definition is
    /// terminating").
    fn create_refusal(&self) -> Option<String> {
        None
    }
}

/// What an update does to an object before it is stored, and how it is validated against
/// the stored one (kube's `RESTUpdateStrategy`); an updated object also passes create's
/// validation unless the kind says otherwise.
pub trait UpdateStrategy: CreateStrategy {
    /// Kind-specific preparation of an update after the generic rules ran (`subresource`
    /// is `Some("status")` through `/status`); `old` is the stored object.
    fn prepare_for_update(&self, _new: &mut Value, _old: &Value, _subresource: Option<&str>) {}

    /// Validation of an update; by default [`CreateStrategy::validate`] of the new object.
    fn validate_update(
        &self,
        new: &Value,
        _old: &Value,
        _subresource: Option<&str>,
    ) -> Vec<StatusCause> {
        self.validate(new)
    }

    /// Whether updates through `sub` (besides `status`) are this strategy's to prepare
    /// ([`UpdateStrategy::prepare_subresource_update`]): a Namespace's `finalize`, a Pod's
    /// `ephemeralcontainers`, a CSR's `approval`.
    fn writes_subresource(&self, _sub: &str) -> bool {
        false
    }

    /// Prepares an update through a subresource other than `status` (e.g. a Namespace's
    /// `finalize`): `new` becomes what may be stored. Returns false when not handled.
    fn prepare_subresource_update(&self, _sub: &str, _new: &mut Value, _old: &Value) -> bool {
        false
    }

    /// Whether an update without `metadata.resourceVersion` is allowed (kube's
    /// `AllowUnconditionalUpdate`): true for most built-ins, false for custom resources
    /// and CRDs (R8.13).
    fn allow_unconditional_update(&self) -> bool {
        true
    }

    /// Whether PUT creates a missing object (kube's `AllowCreateOnUpdate`).
    fn allow_create_on_update(&self) -> bool {
        false
    }
}

/// How an object is deleted: finalizers the server adds, grace periods, what else keeps it
/// (kube's `RESTDeleteStrategy` and `RESTGracefulDeleteStrategy`).
pub trait DeleteStrategy: Send + Sync {
    /// A finalizer the server adds when deletion starts, so that a controller cleans up
    /// first (CRDs: `customresourcecleanup.apiextensions.k8s.io`).
    fn delete_finalizer(&self) -> Option<&'static str> {
        None
    }

    /// Whether deleting an object first empties the namespace it names (Namespaces).
    fn on_delete_finalizes_content(&self) -> bool {
        false
    }

    /// Whether something other than `metadata.finalizers` keeps an object that is being
    /// deleted (a Namespace's `spec.finalizers`).
    fn blocks_deletion(&self, _obj: &Value) -> bool {
        false
    }

    /// The grace period of deleting `obj` when the request asked for `requested` seconds
    /// (kube's `RESTGracefulDeleteStrategy.CheckGracefulDelete`): `None` for kinds deleted
    /// at once, which ignore `gracePeriodSeconds` as upstream's non-graceful kinds do.
    fn grace_period_seconds(&self, _obj: &Value, _requested: Option<i64>) -> Option<i64> {
        None
    }
}

/// The whole per-kind behaviour of an entry: its create, update and delete strategies, and
/// what the kind is beyond them (status subresource, views, patch types, field labels,
/// warnings).
pub trait Strategy: UpdateStrategy + DeleteStrategy {
    /// Whether a `status` subresource exists: the main resource then ignores status
    /// changes, and `/status` ignores everything but status.
    fn has_status(&self) -> bool {
        false
    }

    /// Whether spec changes bump `metadata.generation` (kinds with a status subresource).
    fn tracks_generation(&self) -> bool {
        self.has_status()
    }

    /// Whether `subresource` is a different kind over the same object (`scale`): served by
    /// [`Strategy::view`] and [`Strategy::apply_view`].
    fn has_view(&self, _subresource: &str) -> bool {
        false
    }

    /// The object as the subresource's kind (a Scale), when [`Strategy::has_view`].
    fn view(&self, _subresource: &str, _obj: &Value) -> Option<Value> {
        None
    }

    /// Writes a changed view back into the object; causes of a 422 when it is invalid.
    fn apply_view(
        &self,
        _subresource: &str,
        _obj: &mut Value,
        _view: &Value,
    ) -> Result<(), Vec<StatusCause>> {
        Ok(())
    }

    /// Whether strategic merge patch applies (custom resources answer 415, R3.x).
    fn supports_strategic_merge_patch(&self) -> bool {
        true
    }

    /// `Warning` headers sent with every response (a deprecated version's warning).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// Field labels for field selectors besides `metadata.name` / `metadata.namespace`.
    fn field_labels(&self, _obj: &Value) -> Vec<(String, String)> {
        Vec::new()
    }

    /// What the kind takes from shared pools around its writes (a Service's cluster IPs).
    fn allocator(&self) -> Option<&dyn Allocator> {
        None
    }
}

/// A strategy described by data: the common case for built-in kinds and custom resources.
#[derive(Debug, Clone)]
pub struct GenericStrategy {
    /// Has a status subresource.
    pub status: bool,
    /// Spec changes bump `metadata.generation` (set to 1 on create).
    pub generation: bool,
    /// Name rule.
    pub names: NameRule,
    /// Top-level fields defaulted on create when absent (e.g. Secret `type: Opaque`).
    pub defaults: Vec<(&'static str, Value)>,
    /// Field labels: selector key and the path of object keys it reads.
    pub field_paths: Vec<(&'static str, Vec<&'static str>)>,
    /// What a field label reads when its path is absent (Go's zero value: `false`, `0`).
    pub field_defaults: Vec<(&'static str, &'static str)>,
    /// `Warning` headers of every response (a deprecated kind's notice).
    pub warnings: Vec<&'static str>,
}

impl Default for GenericStrategy {
    fn default() -> Self {
        Self {
            status: false,
            generation: false,
            names: NameRule::Dns1123Subdomain,
            defaults: Vec::new(),
            field_paths: Vec::new(),
            field_defaults: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

impl CreateStrategy for GenericStrategy {
    fn name_rule(&self) -> NameRule {
        self.names
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        if let Some(map) = obj.as_object_mut() {
            for (k, v) in &self.defaults {
                map.entry(k.to_string()).or_insert_with(|| v.clone());
            }
        }
    }
}

impl UpdateStrategy for GenericStrategy {}

impl DeleteStrategy for GenericStrategy {}

impl Strategy for GenericStrategy {
    fn has_status(&self) -> bool {
        self.status
    }

    fn tracks_generation(&self) -> bool {
        self.generation
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.iter().map(|w| w.to_string()).collect()
    }

    fn field_labels(&self, obj: &Value) -> Vec<(String, String)> {
        self.field_paths
            .iter()
            .map(|(label, path)| {
                let zero = || {
                    self.field_defaults
                        .iter()
                        .find(|(l, _)| l == label)
                        .map(|(_, v)| (*v).to_owned())
                        .unwrap_or_default()
                };
                let value = match meta::nested(obj, path) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => zero(),
                    Some(other) => other.to_string(),
                };
                (label.to_string(), value)
            })
            .collect()
    }
}

/// The strategy of Namespaces: DNS-label names, `spec.finalizers: [kubernetes]`,
/// `status.phase: Active`, the `kubernetes.io/metadata.name` label, and content
/// finalization on delete.
#[derive(Debug, Clone, Default)]
pub struct NamespaceStrategy;

impl CreateStrategy for NamespaceStrategy {
    fn name_rule(&self) -> NameRule {
        NameRule::Dns1123Label
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        let name = meta::name(obj).to_owned();
        let labels = meta::meta_mut(obj)
            .entry("labels")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Some(l) = labels.as_object_mut() {
            l.insert("kubernetes.io/metadata.name".into(), Value::String(name));
        }
        if let Some(map) = obj.as_object_mut() {
            map.insert(
                "spec".into(),
                serde_json::json!({"finalizers": ["kubernetes"]}),
            );
            map.insert("status".into(), serde_json::json!({"phase": "Active"}));
        }
    }
}

impl UpdateStrategy for NamespaceStrategy {
    fn writes_subresource(&self, sub: &str) -> bool {
        sub == "finalize"
    }

    /// `finalize` only sets `spec.finalizers`.
    fn prepare_subresource_update(&self, sub: &str, new: &mut Value, old: &Value) -> bool {
        if sub != "finalize" {
            return false;
        }
        let finalizers = meta::nested(new, &["spec", "finalizers"]).cloned();
        let mut merged = old.clone();
        if let Some(map) = merged.as_object_mut() {
            let spec = map
                .entry("spec")
                .or_insert_with(|| Value::Object(Default::default()));
            if let Some(spec) = spec.as_object_mut() {
                match finalizers {
                    Some(f) => spec.insert("finalizers".into(), f),
                    None => spec.remove("finalizers"),
                };
            }
        }
        *new = merged;
        true
    }
}

impl DeleteStrategy for NamespaceStrategy {
    fn on_delete_finalizes_content(&self) -> bool {
        true
    }

    fn blocks_deletion(&self, obj: &Value) -> bool {
        meta::nested(obj, &["spec", "finalizers"])
            .and_then(Value::as_array)
            .is_some_and(|f| !f.is_empty())
    }
}

impl Strategy for NamespaceStrategy {
    fn has_status(&self) -> bool {
        true
    }

    fn tracks_generation(&self) -> bool {
        false
    }

    fn field_labels(&self, obj: &Value) -> Vec<(String, String)> {
        let phase = meta::nested(obj, &["status", "phase"])
            .and_then(Value::as_str)
            .unwrap_or("");
        vec![("status.phase".into(), phase.into())]
    }
}

const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

fn is_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// Problems with `name` under `rule`, as Kubernetes words them (without the field prefix).
pub fn name_problems(rule: NameRule, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    match rule {
        NameRule::Dns1123Subdomain => {
            if name.len() > 253 {
                out.push("must be no more than 253 characters".to_owned());
            }
            if !name.split('.').all(is_label) {
                out.push(SUBDOMAIN_MSG.to_owned());
            }
        }
        NameRule::Dns1123Label => {
            if name.len() > 63 {
                out.push("must be no more than 63 characters".to_owned());
            }
            if !is_label(name) {
                out.push(LABEL_MSG.to_owned());
            }
        }
        NameRule::Dns1035Label => {
            if name.len() > 63 {
                out.push("must be no more than 63 characters".to_owned());
            }
            if !is_label(name) || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
                out.push(DNS1035_MSG.to_owned());
            }
        }
        NameRule::PathSegment => {}
    }
    if name == "." || name == ".." {
        out.push(format!("may not be '{name}'"));
    } else if name.contains('/') || name.contains('%') {
        out.push("may not contain '/' or '%'".to_owned());
    }
    out
}

/// Validates `metadata.name` (after generateName): the causes of a 422.
pub fn validate_name(rule: NameRule, obj: &Value) -> Vec<StatusCause> {
    let name = meta::name(obj);
    if name.is_empty() {
        return vec![StatusCause {
            reason: "FieldValueRequired".into(),
            message: "Required value: name or generateName is required".into(),
            field: "metadata.name".into(),
        }];
    }
    name_problems(rule, name)
        .into_iter()
        .map(|p| StatusCause {
            reason: "FieldValueInvalid".into(),
            message: format!("Invalid value: {}: {p}", Value::String(name.to_owned())),
            field: "metadata.name".into(),
        })
        .collect()
}

const QUALIFIED_NAME_MSG: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, non-empty.
fn is_qualified_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
}

/// Problems of a qualified name (`validation.IsQualifiedName`), as label and annotation
/// keys are: an optional DNS-subdomain prefix and `/`, then a name part of at most 63
/// characters.
pub fn qualified_name_problems(key: &str) -> Vec<String> {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    let mut out = Vec::new();
    if name.is_empty() {
        out.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        out.push("name part must be no more than 63 characters".to_owned());
    }
    // An empty name part fails the pattern too, as upstream reports it.
    if !is_qualified_part(name) {
        out.push(QUALIFIED_NAME_MSG.to_owned());
    }
    if let Some(p) = prefix {
        if p.is_empty() {
            out.push("prefix part must be non-empty".to_owned());
        } else if !p.split('.').all(is_label) || p.len() > 253 {
            out.push(format!("prefix part {SUBDOMAIN_MSG}"));
        }
    }
    out
}

/// Problems of a label value (`validation.IsValidLabelValue`): at most 63 characters,
/// empty or alphanumeric at both ends with `-`, `_` and `.` between.
pub fn label_value_problems(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    if value.len() > 63 {
        out.push("must be no more than 63 characters".to_owned());
    }
    if !value.is_empty() && !is_qualified_part(value) {
        out.push(LABEL_VALUE_MSG.to_owned());
    }
    out
}

fn invalid(field: &str, value: &str, problem: String) -> StatusCause {
    StatusCause {
        reason: "FieldValueInvalid".into(),
        message: format!(
            "Invalid value: {}: {problem}",
            Value::String(value.to_owned())
        ),
        field: field.into(),
    }
}

/// Validates `metadata.labels` (keys and values) and `metadata.annotations` keys.
pub fn validate_labels_and_annotations(obj: &Value) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    for (k, v) in meta::labels(obj) {
        for p in qualified_name_problems(k) {
            causes.push(invalid("metadata.labels", k, p));
        }
        for p in label_value_problems(v) {
            causes.push(invalid("metadata.labels", v, p));
        }
    }
    let annotations = meta::meta(obj)
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object);
    for k in annotations.into_iter().flat_map(|a| a.keys()) {
        for p in qualified_name_problems(k) {
            causes.push(invalid("metadata.annotations", k, p));
        }
    }
    causes
}

#[cfg(test)]
mod tests {
    #[test]
    fn label_value_with_a_space_is_invalid() {
        let obj = serde_json::json!({"metadata": {"labels": {"app": "bad value"}}});
        let c = validate_labels_and_annotations(&obj);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].field, "metadata.labels");
        assert!(
            c[0].message
                .starts_with("Invalid value: \"bad value\": a valid label")
        );
    }

    #[test]
    fn prefixed_label_keys_are_valid() {
        let obj = serde_json::json!({"metadata": {"labels": {"app.kubernetes.io/name": "web"}, "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}}});
        assert!(validate_labels_and_annotations(&obj).is_empty());
    }

    use super::*;

    #[test]
    fn subdomain_rejects_underscore_with_kubernetes_message() {
        let p = name_problems(NameRule::Dns1123Subdomain, "Bad_Name");
        assert_eq!(p, vec![SUBDOMAIN_MSG.to_owned()]);
    }

    #[test]
    fn label_rejects_dots() {
        assert!(!name_problems(NameRule::Dns1123Label, "a.b").is_empty());
        assert!(name_problems(NameRule::Dns1123Label, "a-b").is_empty());
    }

    #[test]
    fn missing_name_is_required_value() {
        let c = validate_name(NameRule::Dns1123Subdomain, &serde_json::json!({}));
        assert_eq!(c[0].reason, "FieldValueRequired");
    }
}
