//! The strategy of the built-in kinds with more than generic behaviour: the `scale`
//! subresource of Deployments, ReplicaSets, StatefulSets and ReplicationControllers
//! (an autoscaling/v1 Scale whose `status.selector` is the selector in string form, as
//! kube's `ScaleREST`s build it), and what an update of each may change (`pod_update`,
//! `job_update`, `apps_update`).

use super::pod_subresources::{self, POD_SUBRESOURCES};
use super::tolerations::pod_spec_tolerations;
use super::{apps_update, job_update, pod_update};
use crate::crd::scale::ScaleSpec;
use crate::error::StatusCause;
use crate::meta;
use crate::strategy::{
    CreateStrategy, DeleteStrategy, GenericStrategy, NameRule, Strategy, UpdateStrategy,
};
use serde_json::{Value, json};

/// How a kind's selector reads as a string for `Scale.status.selector`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectorForm {
    /// `spec.selector` is a LabelSelector (apps/v1).
    LabelSelector,
    /// `spec.selector` is a map of labels (ReplicationController).
    LabelMap,
}

/// Which workload a kind is; its scale, immutable fields, validation and create preparation
/// follow (kube's `ScaleREST`s, `ValidateXUpdate`, `ValidateX` and `PrepareForCreate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// Pods: at least one container; created `Pending` with their QoS class.
    Pod,
    /// Jobs: a template with a container; given a selector of their own uid and template
    /// labels (unless `manualSelector`); updates as `ValidateJobSpecUpdate` allows.
    Job,
    /// Deployments, ReplicaSets (`scale: true`) and DaemonSets: a selector that selects the
    /// template's labels, immutable; a template with a container.
    Controller {
        /// Whether the kind has a `scale` subresource.
        scale: bool,
    },
    /// StatefulSets: a Controller with a `scale` subresource whose spec an update changes
    /// only in the fields `ValidateStatefulSetUpdate` lists.
    StatefulSet,
    /// ReplicationControllers: a `scale` subresource over a map selector.
    ReplicationController,
}

impl Workload {
    /// The workload of a built-in resource, if it is one.
    pub fn of(group: &str, plural: &str) -> Option<Self> {
        Some(match (group, plural) {
            ("apps", "deployments" | "replicasets") => Workload::Controller { scale: true },
            ("apps", "statefulsets") => Workload::StatefulSet,
            ("apps", "daemonsets") => Workload::Controller { scale: false },
            ("", "replicationcontrollers") => Workload::ReplicationController,
            ("", "pods") => Workload::Pod,
            ("batch", "jobs") => Workload::Job,
            _ => return None,
        })
    }

    fn scale(self) -> Option<SelectorForm> {
        match self {
            Workload::Controller { scale: true } | Workload::StatefulSet => {
                Some(SelectorForm::LabelSelector)
            }
            Workload::ReplicationController => Some(SelectorForm::LabelMap),
            _ => None,
        }
    }
}

/// A built-in workload's strategy: the generic data-driven rules plus its [`Workload`] rules.
#[derive(Debug, Clone)]
pub struct WorkloadStrategy {
    /// The generic rules (status, generation, names, defaults, field labels).
    pub generic: GenericStrategy,
    /// Which workload it is.
    pub workload: Workload,
}

/// The QoS class of a pod (`pkg/apis/core/helper/qos`): BestEffort without any cpu or
/// memory request or limit, Guaranteed when every container limits both and requests
/// what it limits, else Burstable.
pub fn qos_class(pod: &Value) -> &'static str {
    let containers: Vec<&Value> = ["containers", "initContainers"]
        .iter()
        .filter_map(|k| meta::nested(pod, &["spec", k]).and_then(Value::as_array))
        .flatten()
        .collect();
    let get =
        |c: &Value, kind: &str, res: &str| meta::nested(c, &["resources", kind, res]).cloned();
    let mut any = false;
    let mut guaranteed = !containers.is_empty();
    for c in &containers {
        for res in ["cpu", "memory"] {
            let (req, lim) = (get(c, "requests", res), get(c, "limits", res));
            any |= req.is_some() || lim.is_some();
            if lim.is_none() || req.as_ref().is_some_and(|r| Some(r) != lim.as_ref()) {
                guaranteed = false;
            }
        }
    }
    match (any, guaranteed) {
        (false, _) => "BestEffort",
        (true, true) => "Guaranteed",
        (true, false) => "Burstable",
    }
}

/// Job's `generateSelector`: the selector and template labels of its own uid and name.
fn generate_job_selector(job: &mut Value) {
    let manual = meta::nested(job, &["spec", "manualSelector"]).and_then(Value::as_bool);
    if manual == Some(true) {
        return;
    }
    let uid = meta::meta_str(job, "uid").to_owned();
    let name = meta::name(job).to_owned();
    let Some(spec) = job.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    spec.insert("manualSelector".into(), json!(false));
    spec.insert(
        "selector".into(),
        json!({"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}),
    );
    let template = spec.entry("template").or_insert_with(|| json!({}));
    if let Some(t) = template.as_object_mut() {
        let md = t.entry("metadata").or_insert_with(|| json!({}));
        if let Some(md) = md.as_object_mut() {
            let labels = md.entry("labels").or_insert_with(|| json!({}));
            if let Some(l) = labels.as_object_mut() {
                for (k, v) in [
                    ("batch.kubernetes.io/controller-uid", &uid),
                    ("batch.kubernetes.io/job-name", &name),
                    ("controller-uid", &uid),
                    ("job-name", &name),
                ] {
                    l.insert(k.into(), json!(v));
                }
            }
        }
    }
}

/// batch/v1 `SetDefaults_Job`: a Job without labels takes its template's. kube applies it
/// whenever it decodes a Job, so after the selector's labels are generated every read shows
/// them; kapi stores them at create, which reads the same.
fn default_job_labels(job: &mut Value) {
    let template_labels = meta::nested(job, &["spec", "template", "metadata", "labels"])
        .filter(|l| l.as_object().is_some_and(|m| !m.is_empty()))
        .cloned();
    let Some(labels) = template_labels else {
        return;
    };
    if let Some(md) = job.get_mut("metadata").and_then(Value::as_object_mut) {
        let empty = md
            .get("labels")
            .and_then(Value::as_object)
            .is_none_or(|m| m.is_empty());
        if empty {
            md.insert("labels".into(), labels);
        }
    }
}

/// `matchLabels` and `matchExpressions` as a selector string (`a=b,c in (x,y)`), as
/// `metav1.LabelSelectorAsSelector(...).String()` writes it: requirements sorted by key.
pub fn label_selector_string(sel: &Value) -> String {
    let mut reqs: Vec<(String, String)> = Vec::new();
    if let Some(m) = sel.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in m {
            reqs.push((k.clone(), format!("{k}={}", v.as_str().unwrap_or_default())));
        }
    }
    for e in sel
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = e["key"].as_str().unwrap_or_default();
        let mut values: Vec<&str> = e["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        values.sort_unstable();
        let text = match e["operator"].as_str().unwrap_or_default() {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_owned(),
            "DoesNotExist" => format!("!{key}"),
            _ => continue,
        };
        reqs.push((key.to_owned(), text));
    }
    reqs.sort();
    reqs.into_iter()
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join(",")
}

/// A map of labels as a selector string (`a=b,c=d`, sorted), as `labels.Set.String()`.
pub(crate) fn label_map_string(sel: &Value) -> String {
    let mut pairs: Vec<String> = sel
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    pairs.sort();
    pairs.join(",")
}

/// The Scale of a workload: replicas at `.spec.replicas`/`.status.replicas` (as a CRD's
/// scale paths), and the selector in string form.
fn replicas() -> ScaleSpec {
    ScaleSpec {
        spec_replicas: ".spec.replicas".into(),
        status_replicas: ".status.replicas".into(),
        label_selector: None,
    }
}

fn scale_view(form: SelectorForm, obj: &Value) -> Value {
    let mut view = replicas().view(obj);
    let selector = meta::nested(obj, &["spec", "selector"]).map(|s| match form {
        SelectorForm::LabelSelector => label_selector_string(s),
        SelectorForm::LabelMap => label_map_string(s),
    });
    if let Some(sel) = selector.filter(|s| !s.is_empty()) {
        view["status"]["selector"] = json!(sel);
    }
    view
}

fn required(field: &str) -> StatusCause {
    StatusCause {
        reason: "FieldValueRequired".into(),
        message: "Required value".into(),
        field: field.into(),
    }
}

/// Whether `selector` (a LabelSelector) selects `labels`.
pub fn selects(selector: &Value, labels: &serde_json::Map<String, Value>) -> bool {
    let match_labels = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .all(|(k, v)| labels.get(k) == Some(v));
    let expressions = selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .all(|e| {
            let key = e["key"].as_str().unwrap_or_default();
            let values: Vec<&Value> = e["values"].as_array().into_iter().flatten().collect();
            let has = labels.get(key);
            match e["operator"].as_str().unwrap_or_default() {
                "In" => has.is_some_and(|v| values.contains(&v)),
                "NotIn" => has.is_none_or(|v| !values.contains(&v)),
                "Exists" => has.is_some(),
                "DoesNotExist" => has.is_none(),
                _ => false,
            }
        });
    match_labels && expressions
}

/// Upstream's `ValidatePodSpec` rule every workload relies on: at least one container.
fn validate_pod_spec(spec: Option<&Value>, path: &str, causes: &mut Vec<StatusCause>) {
    let containers = spec
        .and_then(|s| s.get("containers"))
        .and_then(Value::as_array);
    if containers.is_none_or(|c| c.is_empty()) {
        causes.push(required(&format!("{path}.containers")));
    }
}

/// What a Pod (not a template) must have on create, so that every later update, which
/// re-checks it (`ValidatePodUpdate`), can pass: an image on each container without
/// surrounding whitespace (`validateContainersOnlyForPod`) and an `activeDeadlineSeconds`
/// of 1 to 2147483647 (`ValidatePodSpec`).
fn validate_pod_only(spec: &Value, causes: &mut Vec<StatusCause>) {
    for key in ["initContainers", "containers"] {
        let containers = spec.get(key).and_then(Value::as_array);
        pod_update::image_problems(containers.map_or(&[], Vec::as_slice), key, causes);
    }
    if let Some(v) = spec.get("activeDeadlineSeconds").filter(|v| !v.is_null()) {
        let in_range = v
            .as_i64()
            .is_some_and(|n| (1..=i64::from(i32::MAX)).contains(&n));
        if !in_range {
            causes.push(crate::field::invalid(
                "spec.activeDeadlineSeconds",
                v,
                "must be between 1 and 2147483647, inclusive",
            ));
        }
    }
}

/// A controller's selector: required, non-empty, and selecting its template's labels
/// (`ValidateDeploymentSpec` and its siblings).
fn validate_selector(obj: &Value, causes: &mut Vec<StatusCause>) {
    let Some(selector) = meta::nested(obj, &["spec", "selector"]).filter(|s| !s.is_null()) else {
        causes.push(required("spec.selector"));
        return;
    };
    let labels = meta::nested(obj, &["spec", "template", "metadata", "labels"]);
    let empty_map = serde_json::Map::new();
    let label_map = labels.and_then(Value::as_object).unwrap_or(&empty_map);
    if !selects(selector, label_map) {
        causes.push(StatusCause {
            reason: "FieldValueInvalid".into(),
            message: format!(
                "Invalid value: {}: `selector` does not match template `labels`",
                labels.cloned().unwrap_or(Value::Null)
            ),
            field: "spec.template.metadata.labels".into(),
        });
    }
}

impl CreateStrategy for WorkloadStrategy {
    fn name_rule(&self) -> NameRule {
        self.generic.name_rule()
    }

    fn validate(&self, obj: &Value) -> Vec<StatusCause> {
        let mut causes = Vec::new();
        let template = meta::nested(obj, &["spec", "template", "spec"]);
        match self.workload {
            Workload::Pod => {
                validate_pod_spec(obj.get("spec"), "spec", &mut causes);
                if let Some(spec) = obj.get("spec") {
                    validate_pod_only(spec, &mut causes);
                }
                causes.extend(pod_spec_tolerations(obj.get("spec"), "spec"));
            }
            Workload::Job => {
                validate_pod_spec(template, "spec.template.spec", &mut causes);
                causes.extend(pod_spec_tolerations(template, "spec.template.spec"));
            }
            Workload::Controller { .. } | Workload::StatefulSet => {
                validate_selector(obj, &mut causes);
                validate_pod_spec(template, "spec.template.spec", &mut causes);
                causes.extend(pod_spec_tolerations(template, "spec.template.spec"));
            }
            Workload::ReplicationController => {
                causes.extend(pod_spec_tolerations(template, "spec.template.spec"));
            }
        }
        causes
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        self.generic.prepare_for_create(obj);
        match self.workload {
            Workload::Pod => {
                let qos = qos_class(obj);
                if let Some(map) = obj.as_object_mut() {
                    map.insert(
                        "status".into(),
                        json!({"phase": "Pending", "qosClass": qos}),
                    );
                }
            }
            Workload::Job => {
                generate_job_selector(obj);
                default_job_labels(obj);
            }
            Workload::Controller { .. }
            | Workload::StatefulSet
            | Workload::ReplicationController => {}
        }
    }
}

impl UpdateStrategy for WorkloadStrategy {
    fn writes_subresource(&self, sub: &str) -> bool {
        self.workload == Workload::Pod && POD_SUBRESOURCES.contains(&sub)
    }

    fn prepare_subresource_update(&self, sub: &str, new: &mut Value, old: &Value) -> bool {
        if !self.writes_subresource(sub) {
            return false;
        }
        match sub {
            "ephemeralcontainers" => pod_subresources::prepare_ephemeral_containers(new, old),
            "resize" => pod_subresources::prepare_resize(new, old),
            // The binding handler builds the bound Pod from the stored one.
            _ => {}
        }
        if self.generic.tracks_generation() {
            pod_subresources::bump_generation_on_spec_change(new, old);
        }
        true
    }

    fn validate_update(&self, new: &Value, old: &Value, sub: Option<&str>) -> Vec<StatusCause> {
        let mut causes = self.validate(new);
        match sub {
            Some("ephemeralcontainers") if self.workload == Workload::Pod => {
                causes.extend(pod_subresources::validate_ephemeral_containers(new, old));
                return causes;
            }
            Some("resize") if self.workload == Workload::Pod => {
                causes.extend(pod_subresources::validate_resize(new, old));
                return causes;
            }
            Some(_) => return causes,
            None => {}
        }
        match self.workload {
            Workload::Pod => causes.extend(pod_update::validate_pod_update(new, old)),
            Workload::Job => causes.extend(job_update::validate_job_update(new, old)),
            Workload::StatefulSet => causes.extend(apps_update::statefulset_update(new, old)),
            Workload::Controller { .. } => causes.extend(apps_update::selector_update(new, old)),
            Workload::ReplicationController => {}
        }
        causes
    }
}

impl DeleteStrategy for WorkloadStrategy {
    /// Pods are deleted gracefully (kube's pod strategy `CheckGracefulDelete`): the period
    /// asked for, else `spec.terminationGracePeriodSeconds`; at once (0) when the Pod is
    /// not bound to a node or has finished; a negative period counts as 1 s.
    fn grace_period_seconds(&self, obj: &Value, requested: Option<i64>) -> Option<i64> {
        if self.workload != Workload::Pod {
            return None;
        }
        let default = || {
            meta::nested(obj, &["spec", "terminationGracePeriodSeconds"])
                .and_then(Value::as_i64)
                .unwrap_or(0)
        };
        let mut period = requested.unwrap_or_else(default);
        let unbound = meta::nested(obj, &["spec", "nodeName"])
            .and_then(Value::as_str)
            .is_none_or(str::is_empty);
        let phase = meta::nested(obj, &["status", "phase"]).and_then(Value::as_str);
        if unbound || matches!(phase, Some("Failed" | "Succeeded")) {
            period = 0;
        }
        Some(if period < 0 { 1 } else { period })
    }
}

impl Strategy for WorkloadStrategy {
    fn has_status(&self) -> bool {
        self.generic.has_status()
    }

    fn tracks_generation(&self) -> bool {
        self.generic.tracks_generation()
    }

    fn field_labels(&self, obj: &Value) -> Vec<(String, String)> {
        self.generic.field_labels(obj)
    }

    fn has_view(&self, subresource: &str) -> bool {
        subresource == "scale" && self.workload.scale().is_some()
    }

    fn view(&self, subresource: &str, obj: &Value) -> Option<Value> {
        let form = self.workload.scale().filter(|_| subresource == "scale")?;
        Some(scale_view(form, obj))
    }

    fn apply_view(
        &self,
        subresource: &str,
        obj: &mut Value,
        view: &Value,
    ) -> Result<(), Vec<StatusCause>> {
        if subresource != "scale" || self.workload.scale().is_none() {
            return Ok(());
        }
        replicas().apply(obj, view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployments() -> WorkloadStrategy {
        WorkloadStrategy {
            generic: GenericStrategy::default(),
            workload: Workload::Controller { scale: true },
        }
    }

    fn pods() -> WorkloadStrategy {
        WorkloadStrategy {
            generic: GenericStrategy::default(),
            workload: Workload::Pod,
        }
    }

    #[test]
    fn a_bound_pod_gets_the_grace_asked_for_else_its_termination_grace_period() {
        let pod = json!({"spec": {"nodeName": "n1", "terminationGracePeriodSeconds": 30},
            "status": {"phase": "Running"}});
        assert_eq!(pods().grace_period_seconds(&pod, None), Some(30));
        assert_eq!(pods().grace_period_seconds(&pod, Some(5)), Some(5));
        assert_eq!(pods().grace_period_seconds(&pod, Some(-3)), Some(1));
    }

    #[test]
    fn an_unbound_or_finished_pod_is_deleted_at_once() {
        let unbound = json!({"spec": {"terminationGracePeriodSeconds": 30}});
        let done = json!({"spec": {"nodeName": "n1"}, "status": {"phase": "Succeeded"}});
        assert_eq!(pods().grace_period_seconds(&unbound, Some(10)), Some(0));
        assert_eq!(pods().grace_period_seconds(&done, None), Some(0));
    }

    #[test]
    fn controllers_are_not_deleted_gracefully() {
        assert_eq!(
            deployments().grace_period_seconds(&json!({}), Some(10)),
            None
        );
    }

    #[test]
    fn a_selector_that_misses_the_template_labels_is_invalid() {
        let d = json!({"spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "other"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
        let causes = deployments().validate(&d);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec.template.metadata.labels");
        assert!(
            causes[0]
                .message
                .ends_with("`selector` does not match template `labels`")
        );
    }

    #[test]
    fn a_pod_without_an_image_or_with_a_negative_deadline_is_invalid_on_create() {
        let pod = json!({"metadata": {"name": "p"}, "spec": {
            "containers": [{"name": "c"}, {"name": "d", "image": " x"}],
            "activeDeadlineSeconds": -5}});
        let causes = pods().validate(&pod);
        let fields: Vec<&str> = causes.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.containers[0].image",
                "spec.containers[1].image",
                "spec.activeDeadlineSeconds"
            ]
        );
        assert_eq!(causes[0].reason, "FieldValueRequired");
        assert!(
            causes[2]
                .message
                .ends_with("must be between 1 and 2147483647, inclusive")
        );
    }

    #[test]
    fn a_template_without_an_image_is_valid_as_upstream_lets_admission_fill_it() {
        let d = json!({"metadata": {"name": "d"}, "spec": {
            "selector": {"matchLabels": {"a": "b"}},
            "template": {"metadata": {"labels": {"a": "b"}},
                "spec": {"containers": [{"name": "c"}]}}}});
        assert!(deployments().validate(&d).is_empty());
    }

    #[test]
    fn a_template_without_containers_is_invalid() {
        let d = json!({"spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {}}}});
        let causes = deployments().validate(&d);
        assert_eq!(causes[0].field, "spec.template.spec.containers");
        assert_eq!(causes[0].message, "Required value");
    }

    #[test]
    fn qos_class_follows_requests_and_limits() {
        let pod = |res: Value| json!({"spec": {"containers": [{"name": "c", "resources": res}]}});
        assert_eq!(qos_class(&pod(json!({}))), "BestEffort");
        assert_eq!(
            qos_class(&pod(json!({"requests": {"cpu": "1"}}))),
            "Burstable"
        );
        let both = json!({"cpu": "1", "memory": "1Gi"});
        assert_eq!(
            qos_class(&pod(json!({"limits": both, "requests": both}))),
            "Guaranteed"
        );
    }

    #[test]
    fn selector_strings_sort_requirements_by_key() {
        let sel = json!({
            "matchLabels": {"tier": "web", "app": "a"},
            "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]}]
        });
        assert_eq!(
            label_selector_string(&sel),
            "app=a,env in (dev,prod),tier=web"
        );
    }

    #[test]
    fn the_scale_of_a_deployment_carries_its_selector_string() {
        let s = deployments();
        let d = json!({"metadata": {"name": "web", "namespace": "n", "labels": {"x": "y"}},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}},
            "status": {"replicas": 1}});
        let v = s.view("scale", &d).unwrap();
        assert_eq!(v["spec"]["replicas"], 2);
        assert_eq!(v["status"], json!({"replicas": 1, "selector": "app=web"}));
        assert!(v["metadata"].get("labels").is_none());
    }

    #[test]
    fn an_immutable_field_change_is_refused_on_the_main_resource_only() {
        let s = WorkloadStrategy {
            generic: GenericStrategy::default(),
            workload: Workload::Controller { scale: false },
        };
        let with = |app: &str| {
            json!({"spec": {"selector": {"matchLabels": {"app": app}},
                "template": {"metadata": {"labels": {"app": app}},
                    "spec": {"containers": [{"name": "c", "image": "i"}]}}}})
        };
        let (old, new) = (with("a"), with("b"));
        let causes = s.validate_update(&new, &old, None);
        assert_eq!(causes[0].field, "spec.selector");
        assert!(causes[0].message.ends_with("field is immutable"));
        assert!(s.validate_update(&new, &old, Some("status")).is_empty());
    }
}
