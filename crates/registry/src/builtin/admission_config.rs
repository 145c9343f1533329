//! The admissionregistration.k8s.io/v1 kinds as upstream defaults and validates them
//! (`pkg/apis/admissionregistration/v1/defaults.go`, `validation/validation.go`): webhook
//! configurations, ValidatingAdmissionPolicies and MutatingAdmissionPolicies with their
//! bindings. Defaults are filled on create and update; a configuration that could not work
//! (a webhook without a client config, a CEL expression that does not compile, a binding
//! without actions) is refused with a 422 and upstream's causes.

use super::GenericStrategy;
use crate::error::StatusCause;
use crate::field;
use crate::strategy::{CreateStrategy, DeleteStrategy, NameRule, Strategy, UpdateStrategy};
use kapi_apiextensions::cel::Expression;
use serde_json::{Map, Value, json};

/// Which admissionregistration kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdmissionKind {
    /// MutatingWebhookConfiguration.
    MutatingWebhooks,
    /// ValidatingWebhookConfiguration.
    ValidatingWebhooks,
    /// ValidatingAdmissionPolicy.
    ValidatingPolicy,
    /// ValidatingAdmissionPolicyBinding.
    ValidatingBinding,
    /// MutatingAdmissionPolicy.
    MutatingPolicy,
    /// MutatingAdmissionPolicyBinding.
    MutatingBinding,
}

impl AdmissionKind {
    /// The kind of an admissionregistration resource.
    pub fn of(plural: &str) -> Option<Self> {
        Some(match plural {
            "mutatingwebhookconfigurations" => Self::MutatingWebhooks,
            "validatingwebhookconfigurations" => Self::ValidatingWebhooks,
            "validatingadmissionpolicies" => Self::ValidatingPolicy,
            "validatingadmissionpolicybindings" => Self::ValidatingBinding,
            "mutatingadmissionpolicies" => Self::MutatingPolicy,
            "mutatingadmissionpolicybindings" => Self::MutatingBinding,
            _ => return None,
        })
    }
}

/// The strategy of the admissionregistration kinds.
#[derive(Debug, Clone)]
pub struct AdmissionConfigStrategy {
    /// Status, generation, names.
    pub generic: GenericStrategy,
    /// Which kind.
    pub kind: AdmissionKind,
}

fn set_default(obj: &mut Value, key: &str, value: Value) {
    if let Some(m) = obj.as_object_mut() {
        let slot = m.entry(key.to_owned()).or_insert(Value::Null);
        if slot.is_null() {
            *slot = value;
        }
    }
}

fn each_mut<'a>(v: &'a mut Value, key: &str) -> impl Iterator<Item = &'a mut Value> {
    v.get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
}

/// `SetDefaults_Rule`: scope `*`.
fn default_rules(v: &mut Value, key: &str) {
    for rule in each_mut(v, key) {
        set_default(rule, "scope", json!("*"));
    }
}

/// `SetDefaults_MatchResources`.
fn default_match_resources(m: &mut Value) {
    if !m.is_object() {
        return;
    }
    set_default(m, "matchPolicy", json!("Equivalent"));
    set_default(m, "namespaceSelector", json!({}));
    set_default(m, "objectSelector", json!({}));
    default_rules(m, "resourceRules");
    default_rules(m, "excludeResourceRules");
}

fn default_webhook(hook: &mut Value, mutating: bool) {
    set_default(hook, "failurePolicy", json!("Fail"));
    set_default(hook, "matchPolicy", json!("Equivalent"));
    set_default(hook, "namespaceSelector", json!({}));
    set_default(hook, "objectSelector", json!({}));
    set_default(hook, "timeoutSeconds", json!(10));
    if mutating {
        set_default(hook, "reinvocationPolicy", json!("Never"));
    }
    default_rules(hook, "rules");
    if let Some(service) = hook
        .get_mut("clientConfig")
        .and_then(|c| c.get_mut("service"))
        .filter(|s| s.is_object())
    {
        set_default(service, "port", json!(443));
    }
}

impl AdmissionConfigStrategy {
    fn default(&self, obj: &mut Value) {
        match self.kind {
            AdmissionKind::MutatingWebhooks | AdmissionKind::ValidatingWebhooks => {
                let mutating = self.kind == AdmissionKind::MutatingWebhooks;
                for hook in each_mut(obj, "webhooks") {
                    default_webhook(hook, mutating);
                }
            }
            AdmissionKind::ValidatingPolicy | AdmissionKind::MutatingPolicy => {
                if let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) {
                    set_default(spec, "failurePolicy", json!("Fail"));
                    if let Some(m) = spec.get_mut("matchConstraints") {
                        default_match_resources(m);
                    }
                }
            }
            AdmissionKind::ValidatingBinding | AdmissionKind::MutatingBinding => {
                if let Some(m) = obj
                    .get_mut("spec")
                    .and_then(|s| s.get_mut("matchResources"))
                {
                    default_match_resources(m);
                }
            }
        }
    }
}

/// Collects causes under a path.
struct Check<'a> {
    causes: &'a mut Vec<StatusCause>,
}

fn s<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

fn list<'v>(v: &'v Value, key: &str) -> &'v [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

impl Check<'_> {
    fn push(&mut self, c: StatusCause) {
        self.causes.push(c);
    }

    fn enum_value(&mut self, v: &Value, key: &str, path: &str, supported: &[&str], required: bool) {
        match v.get(key) {
            None | Some(Value::Null) if required => {
                self.push(field::required(&format!("{path}.{key}"), ""))
            }
            None | Some(Value::Null) => {}
            Some(x) if x.as_str().is_some_and(|s| supported.contains(&s)) => {}
            Some(x) => self.push(field::not_supported(&format!("{path}.{key}"), x, supported)),
        }
    }

    /// A CEL expression that must be given and compile.
    fn expression(&mut self, v: &Value, key: &str, path: &str) {
        let at = format!("{path}.{key}");
        match v.get(key).and_then(Value::as_str) {
            None | Some("") => self.push(field::required(&at, "expression is not specified")),
            Some(src) => {
                if let Err(e) = Expression::compile(src) {
                    self.push(field::invalid(&at, &json!(src), &e));
                }
            }
        }
    }

    fn rules(&mut self, rules: &[Value], path: &str, named: bool) {
        for (i, rule) in rules.iter().enumerate() {
            let at = format!("{path}[{i}]");
            for op in list(rule, "operations") {
                if !op
                    .as_str()
                    .is_some_and(|o| ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"].contains(&o))
                {
                    self.push(field::not_supported(
                        &format!("{at}.operations"),
                        op,
                        &["*", "CONNECT", "CREATE", "DELETE", "UPDATE"],
                    ));
                }
            }
            for key in ["apiGroups", "apiVersions", "resources"] {
                if list(rule, key).is_empty() {
                    self.push(field::required(&format!("{at}.{key}"), ""));
                }
            }
            if rule.get("scope").is_some_and(|s| !s.is_null()) {
                self.enum_value(rule, "scope", &at, &["*", "Cluster", "Namespaced"], false);
            }
            let _ = named;
        }
    }

    fn match_conditions(&mut self, v: &Value, path: &str) {
        let conditions = list(v, "matchConditions");
        if conditions.len() > 64 {
            self.push(StatusCause {
                reason: "FieldValueTooMany".into(),
                message: format!("Too many: {}: must have at most 64 items", conditions.len()),
                field: format!("{path}.matchConditions"),
            });
        }
        let mut names = Vec::new();
        for (i, c) in conditions.iter().enumerate() {
            let at = format!("{path}.matchConditions[{i}]");
            match s(c, "name") {
                None | Some("") => self.push(field::required(&format!("{at}.name"), "")),
                Some(n) if names.contains(&n) => {
                    self.push(field::duplicate(&format!("{at}.name"), &json!(n)))
                }
                Some(n) => names.push(n),
            }
            self.expression(c, "expression", &at);
        }
    }

    fn match_resources(&mut self, m: &Value, path: &str, rules_required: bool) {
        let rules = list(m, "resourceRules");
        if rules_required && rules.is_empty() {
            self.push(field::required(&format!("{path}.resourceRules"), ""));
        }
        self.rules(rules, &format!("{path}.resourceRules"), true);
        self.rules(
            list(m, "excludeResourceRules"),
            &format!("{path}.excludeResourceRules"),
            true,
        );
        self.enum_value(m, "matchPolicy", path, &["Equivalent", "Exact"], false);
    }

    fn webhooks(&mut self, obj: &Value, mutating: bool) {
        let mut names = Vec::new();
        for (i, hook) in list(obj, "webhooks").iter().enumerate() {
            let at = format!("webhooks[{i}]");
            match s(hook, "name") {
                None | Some("") => self.push(field::required(&format!("{at}.name"), "")),
                Some(n) if names.contains(&n) => {
                    self.push(field::duplicate(&format!("{at}.name"), &json!(n)))
                }
                Some(n) => {
                    if n.split('.').filter(|p| !p.is_empty()).count() < 3 {
                        self.push(field::invalid(
                            &format!("{at}.name"),
                            &json!(n),
                            "should be a domain with at least three segments separated by dots",
                        ));
                    }
                    names.push(n);
                }
            }
            self.rules(list(hook, "rules"), &format!("{at}.rules"), false);
            match hook.get("sideEffects") {
                None | Some(Value::Null) => self.push(field::required(
                    &format!("{at}.sideEffects"),
                    "must specify one of None, NoneOnDryRun",
                )),
                Some(x)
                    if x.as_str()
                        .is_some_and(|s| s == "None" || s == "NoneOnDryRun") => {}
                Some(x) => self.push(field::not_supported(
                    &format!("{at}.sideEffects"),
                    x,
                    &["None", "NoneOnDryRun"],
                )),
            }
            let versions = list(hook, "admissionReviewVersions");
            if versions.is_empty() {
                self.push(field::required(
                    &format!("{at}.admissionReviewVersions"),
                    "must specify one of v1, v1beta1",
                ));
            } else if !versions.iter().any(|v| v == "v1" || v == "v1beta1") {
                self.push(field::invalid(
                    &format!("{at}.admissionReviewVersions"),
                    &Value::Array(versions.to_vec()),
                    "must include at least one of v1, v1beta1",
                ));
            }
            self.client_config(hook, &at);
            if let Some(t) = hook.get("timeoutSeconds").and_then(Value::as_i64)
                && !(1..=30).contains(&t)
            {
                self.push(field::invalid(
                    &format!("{at}.timeoutSeconds"),
                    &json!(t),
                    "the timeout value must be between 1 and 30 seconds",
                ));
            }
            self.enum_value(hook, "failurePolicy", &at, &["Fail", "Ignore"], false);
            self.enum_value(hook, "matchPolicy", &at, &["Equivalent", "Exact"], false);
            if mutating {
                self.enum_value(
                    hook,
                    "reinvocationPolicy",
                    &at,
                    &["IfNeeded", "Never"],
                    false,
                );
            }
            self.match_conditions(hook, &at);
        }
    }

    fn client_config(&mut self, hook: &Value, at: &str) {
        let cc = hook.get("clientConfig").cloned().unwrap_or(Value::Null);
        let url = s(&cc, "url");
        let service = cc.get("service").filter(|s| s.is_object());
        match (url, service) {
            (Some(u), None) => {
                let path = format!("{at}.clientConfig.url");
                match u.split_once("://") {
                    Some(("https", rest)) => {
                        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
                        if host.is_empty() {
                            self.push(field::invalid(&path, &json!(u), "host must be provided; desired format: https://host[/path]"));
                        } else if host.contains('@') {
                            self.push(field::invalid(&path, &json!(u), "user information is not permitted in the URL"));
                        } else if u.contains('#') {
                            self.push(field::invalid(&path, &json!(u), "fragments are not permitted in the URL"));
                        } else if u.contains('?') {
                            self.push(field::invalid(&path, &json!(u), "query parameters are not permitted in the URL"));
                        }
                    }
                    Some((scheme, _)) => self.push(field::invalid(
                        &path,
                        &json!(scheme),
                        "'https' is the only allowed URL scheme; desired format: https://host[/path]",
                    )),
                    None => self.push(field::invalid(
                        &path,
                        &json!(""),
                        "'https' is the only allowed URL scheme; desired format: https://host[/path]",
                    )),
                }
            }
            (None, Some(svc)) => {
                let path = format!("{at}.clientConfig.service");
                if s(svc, "name").is_none_or(str::is_empty) {
                    self.push(field::required(
                        &format!("{path}.name"),
                        "service name is required",
                    ));
                }
                if s(svc, "namespace").is_none_or(str::is_empty) {
                    self.push(field::required(
                        &format!("{path}.namespace"),
                        "service namespace is required",
                    ));
                }
                if let Some(p) = svc.get("port").and_then(Value::as_i64)
                    && !(1..=65535).contains(&p)
                {
                    self.push(field::invalid(
                        &format!("{path}.port"),
                        &json!(p),
                        "port is not valid: must be between 1 and 65535, inclusive",
                    ));
                }
            }
            _ => self.push(field::required(
                &format!("{at}.clientConfig"),
                "exactly one of url or service is required",
            )),
        }
    }

    fn variables(&mut self, spec: &Value) {
        for (i, v) in list(spec, "variables").iter().enumerate() {
            let at = format!("spec.variables[{i}]");
            let name = s(v, "name").unwrap_or("");
            let ident = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if name.is_empty() {
                self.push(field::required(&format!("{at}.name"), ""));
            } else if !ident {
                self.push(field::invalid(
                    &format!("{at}.name"),
                    &json!(name),
                    "name is not a valid CEL identifier",
                ));
            }
            self.expression(v, "expression", &at);
        }
    }

    fn policy_common(&mut self, spec: &Value) {
        self.enum_value(spec, "failurePolicy", "spec", &["Fail", "Ignore"], true);
        match spec.get("matchConstraints").filter(|m| m.is_object()) {
            None => self.push(field::required("spec.matchConstraints", "")),
            Some(m) => self.match_resources(m, "spec.matchConstraints", true),
        }
        if let Some(kind) = spec.get("paramKind").filter(|k| k.is_object()) {
            for key in ["apiVersion", "kind"] {
                if s(kind, key).is_none_or(str::is_empty) {
                    self.push(field::required(&format!("spec.paramKind.{key}"), ""));
                }
            }
        }
        self.match_conditions(spec, "spec");
        self.variables(spec);
    }

    fn validating_policy(&mut self, spec: &Value) {
        let validations = list(spec, "validations");
        let audits = list(spec, "auditAnnotations");
        if validations.is_empty() && audits.is_empty() {
            let why = "validations or auditAnnotations must contain at least one item";
            self.push(field::required("spec.validations", why));
            self.push(field::required("spec.auditAnnotations", why));
        }
        self.policy_common(spec);
        for (i, v) in validations.iter().enumerate() {
            let at = format!("spec.validations[{i}]");
            self.expression(v, "expression", &at);
            if let Some(m) = s(v, "message")
                && m.contains(['\n', '\r'])
            {
                self.push(field::invalid(
                    &format!("{at}.message"),
                    &json!(m),
                    "message must not contain line breaks",
                ));
            }
            if let Some(src) = s(v, "messageExpression") {
                if src.trim().is_empty() {
                    self.push(field::required(
                        &format!("{at}.messageExpression"),
                        "must be non-empty if specified",
                    ));
                } else if let Err(e) = Expression::compile(src) {
                    self.push(field::invalid(
                        &format!("{at}.messageExpression"),
                        &json!(src),
                        &e,
                    ));
                }
            }
            if v.get("reason").is_some_and(|r| !r.is_null()) {
                self.enum_value(
                    v,
                    "reason",
                    &at,
                    &[
                        "Forbidden",
                        "Invalid",
                        "RequestEntityTooLarge",
                        "Unauthorized",
                    ],
                    false,
                );
            }
        }
        let mut keys = Vec::new();
        for (i, a) in audits.iter().enumerate() {
            let at = format!("spec.auditAnnotations[{i}]");
            match s(a, "key") {
                None | Some("") => self.push(field::required(&format!("{at}.key"), "")),
                Some(k) if keys.contains(&k) => {
                    self.push(field::duplicate(&format!("{at}.key"), &json!(k)))
                }
                Some(k) => keys.push(k),
            }
            self.expression(a, "valueExpression", &at);
        }
        if audits.len() > 20 {
            self.push(field::invalid(
                "spec.auditAnnotations",
                &json!(audits.len()),
                "must not have more than 20 auditAnnotations",
            ));
        }
    }

    fn mutating_policy(&mut self, spec: &Value) {
        self.policy_common(spec);
        // A mutation has no object to change on a delete: upstream's mutating policies
        // support every operation but DELETE.
        const MUTABLE: [&str; 4] = ["*", "CONNECT", "CREATE", "UPDATE"];
        for rule in list(&spec["matchConstraints"], "resourceRules") {
            for op in list(rule, "operations") {
                if !op.as_str().is_some_and(|o| MUTABLE.contains(&o)) {
                    self.push(field::not_supported(
                        "spec.matchConstraints.resourceRules.operations",
                        op,
                        &MUTABLE,
                    ));
                }
            }
        }
        let mutations = list(spec, "mutations");
        if mutations.is_empty() {
            self.push(field::required(
                "spec.mutations",
                "mutations must contain at least one item",
            ));
        }
        for (i, m) in mutations.iter().enumerate() {
            let at = format!("spec.mutations[{i}]");
            match s(m, "patchType") {
                Some("ApplyConfiguration") => self.expression(
                    m.get("applyConfiguration").unwrap_or(&Value::Null),
                    "expression",
                    &format!("{at}.applyConfiguration"),
                ),
                Some("JSONPatch") => self.expression(
                    m.get("jsonPatch").unwrap_or(&Value::Null),
                    "expression",
                    &format!("{at}.jsonPatch"),
                ),
                _ => self.enum_value(
                    m,
                    "patchType",
                    &at,
                    &["ApplyConfiguration", "JSONPatch"],
                    true,
                ),
            }
        }
        self.enum_value(
            spec,
            "reinvocationPolicy",
            "spec",
            &["IfNeeded", "Never"],
            true,
        );
    }

    fn binding(&mut self, spec: &Value, validating: bool) {
        if s(spec, "policyName").is_none_or(str::is_empty) {
            self.push(field::required("spec.policyName", ""));
        }
        if let Some(m) = spec.get("matchResources").filter(|m| m.is_object()) {
            self.match_resources(m, "spec.matchResources", false);
        }
        if let Some(p) = spec.get("paramRef").filter(|p| p.is_object()) {
            let name = s(p, "name").filter(|n| !n.is_empty());
            let selector = p.get("selector").filter(|s| s.is_object());
            match (name, selector) {
                (None, None) => self.push(field::required(
                    "spec.paramRef",
                    "one of name or selector must be specified",
                )),
                (Some(_), Some(_)) => {
                    self.push(field::forbidden(
                        "spec.paramRef.name",
                        "name and selector are mutually exclusive",
                    ));
                    self.push(field::forbidden(
                        "spec.paramRef.selector",
                        "name and selector are mutually exclusive",
                    ));
                }
                _ => {}
            }
            self.enum_value(
                p,
                "parameterNotFoundAction",
                "spec.paramRef",
                &["Deny", "Allow"],
                true,
            );
        }
        if !validating {
            return;
        }
        let actions = list(spec, "validationActions");
        if actions.is_empty() {
            self.push(field::required(
                "spec.validationActions",
                "at least one validation action is required",
            ));
        }
        let mut seen = Vec::new();
        for (i, a) in actions.iter().enumerate() {
            let at = format!("spec.validationActions[{i}]");
            if seen.contains(&a) {
                self.push(field::duplicate(&at, a));
                continue;
            }
            seen.push(a);
            if !a
                .as_str()
                .is_some_and(|x| ["Audit", "Deny", "Warn"].contains(&x))
            {
                self.push(field::not_supported(&at, a, &["Audit", "Deny", "Warn"]));
            }
        }
        if actions.iter().any(|a| a == "Deny") && actions.iter().any(|a| a == "Warn") {
            self.push(field::invalid(
                "spec.validationActions",
                &Value::Array(actions.to_vec()),
                "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
            ));
        }
    }
}

impl CreateStrategy for AdmissionConfigStrategy {
    fn name_rule(&self) -> NameRule {
        self.generic.name_rule()
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        self.generic.prepare_for_create(obj);
        self.default(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<StatusCause> {
        let mut causes = Vec::new();
        let mut check = Check {
            causes: &mut causes,
        };
        let empty = Value::Object(Map::new());
        let spec = obj.get("spec").unwrap_or(&empty);
        match self.kind {
            AdmissionKind::MutatingWebhooks => check.webhooks(obj, true),
            AdmissionKind::ValidatingWebhooks => check.webhooks(obj, false),
            AdmissionKind::ValidatingPolicy => check.validating_policy(spec),
            AdmissionKind::MutatingPolicy => check.mutating_policy(spec),
            AdmissionKind::ValidatingBinding => check.binding(spec, true),
            AdmissionKind::MutatingBinding => check.binding(spec, false),
        }
        causes
    }
}

impl UpdateStrategy for AdmissionConfigStrategy {
    fn prepare_for_update(&self, new: &mut Value, _old: &Value, subresource: Option<&str>) {
        if subresource.is_none() {
            self.default(new);
        }
    }
}

impl DeleteStrategy for AdmissionConfigStrategy {}

impl Strategy for AdmissionConfigStrategy {
    fn has_status(&self) -> bool {
        self.generic.has_status()
    }

    fn tracks_generation(&self) -> bool {
        self.generic.tracks_generation()
    }

    fn field_labels(&self, obj: &Value) -> Vec<(String, String)> {
        self.generic.field_labels(obj)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strategy(kind: AdmissionKind) -> AdmissionConfigStrategy {
        AdmissionConfigStrategy {
            generic: GenericStrategy::default(),
            kind,
        }
    }

    fn messages(causes: &[StatusCause]) -> Vec<String> {
        causes
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    fn mutating_policy_on(operations: Value) -> Value {
        json!({"spec": {"failurePolicy": "Fail", "reinvocationPolicy": "Never",
            "matchConstraints": {"resourceRules": [{"operations": operations, "apiGroups": [""],
                "apiVersions": ["v1"], "resources": ["configmaps"]}]},
            "mutations": [{"patchType": "JSONPatch",
                "jsonPatch": {"expression": "[JSONPatch{op: 'add', path: '/data/x', value: 'y'}]"}}]}})
    }

    #[test]
    fn a_mutating_policy_may_not_match_delete() {
        let causes = messages(
            &strategy(AdmissionKind::MutatingPolicy)
                .validate(&mutating_policy_on(json!(["CREATE", "DELETE"]))),
        );
        assert_eq!(
            causes,
            [
                r#"spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE""#
            ]
        );
    }

    #[test]
    fn a_mutating_policy_may_match_create_update_connect_and_all() {
        for ops in [json!(["CREATE", "UPDATE", "CONNECT"]), json!(["*"])] {
            let causes = strategy(AdmissionKind::MutatingPolicy).validate(&mutating_policy_on(ops));
            assert_eq!(messages(&causes), Vec::<String>::new());
        }
    }

    #[test]
    fn a_webhook_gets_upstreams_defaults() {
        let mut obj = json!({"webhooks": [{"name": "a.b.c", "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}], "clientConfig": {"service": {"namespace": "x", "name": "y"}}}]});
        strategy(AdmissionKind::MutatingWebhooks).prepare_for_create(&mut obj);
        let hook = &obj["webhooks"][0];
        assert_eq!(hook["failurePolicy"], "Fail");
        assert_eq!(hook["matchPolicy"], "Equivalent");
        assert_eq!(hook["timeoutSeconds"], 10);
        assert_eq!(hook["reinvocationPolicy"], "Never");
        assert_eq!(hook["namespaceSelector"], json!({}));
        assert_eq!(hook["rules"][0]["scope"], "*");
        assert_eq!(hook["clientConfig"]["service"]["port"], 443);
    }

    #[test]
    fn a_webhook_without_side_effects_versions_or_client_config_is_invalid() {
        let obj = json!({"webhooks": [{"name": "short.name"}]});
        let got = messages(&strategy(AdmissionKind::ValidatingWebhooks).validate(&obj));
        assert_eq!(
            got,
            vec![
                "webhooks[0].name: Invalid value: \"short.name\": should be a domain with at least three segments separated by dots",
                "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
                "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
                "webhooks[0].clientConfig: Required value: exactly one of url or service is required",
            ]
        );
    }

    #[test]
    fn a_plain_http_url_is_refused() {
        let obj = json!({"webhooks": [{"name": "a.b.c", "sideEffects": "None", "admissionReviewVersions": ["v1"], "clientConfig": {"url": "http://x/y"}}]});
        let got = messages(&strategy(AdmissionKind::ValidatingWebhooks).validate(&obj));
        assert_eq!(
            got,
            vec![
                "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]"
            ]
        );
    }

    #[test]
    fn a_policy_expression_that_does_not_compile_is_invalid() {
        let obj = json!({"spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": [{"operations": ["CREATE"], "apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"]}]}, "validations": [{"expression": "object.spec.replicas <="}]}});
        let got = messages(&strategy(AdmissionKind::ValidatingPolicy).validate(&obj));
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(
            got[0].starts_with("spec.validations[0].expression: Invalid value: \"object.spec.replicas <=\": compilation failed: "),
            "{got:?}"
        );
    }

    #[test]
    fn a_policy_needs_validations_or_audit_annotations() {
        let obj = json!({"spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}]}}});
        let got = messages(&strategy(AdmissionKind::ValidatingPolicy).validate(&obj));
        assert_eq!(
            got,
            vec![
                "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
                "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
            ]
        );
    }

    #[test]
    fn a_binding_may_not_both_deny_and_warn() {
        let obj = json!({"spec": {"policyName": "p", "validationActions": ["Deny", "Warn"]}});
        let got = messages(&strategy(AdmissionKind::ValidatingBinding).validate(&obj));
        assert_eq!(
            got,
            vec![
                "spec.validationActions: Invalid value: [\"Deny\",\"Warn\"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"
            ]
        );
    }

    #[test]
    fn a_binding_needs_actions_and_a_param_ref_names_one_way() {
        let obj = json!({"spec": {"policyName": "p", "paramRef": {"name": "a", "selector": {}, "parameterNotFoundAction": "Deny"}}});
        let got = messages(&strategy(AdmissionKind::ValidatingBinding).validate(&obj));
        assert_eq!(
            got,
            vec![
                "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
                "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
                "spec.validationActions: Required value: at least one validation action is required",
            ]
        );
    }
}
