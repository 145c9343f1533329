//! `metadata.managedFields`: which manager set which fields (FieldsV1), maintained on every
//! write, and server-side apply's ownership rules: conflicts with other managers (409,
//! R8.19), `force`, and removal of fields a manager stops applying. Fields are walked with
//! the kind's schema ([`crate::field_schema`]), so list items are owned by key
//! (`k:{"name":"app"}`) or value (`v:"x"`) and merge item by item, as upstream's
//! structured-merge-diff does.

use crate::entry::ResourceEntry;
use crate::error::{Error, StatusCause};
use crate::field_path::{self, FieldSet, Path, display, from_fields_v1, to_fields_v1};
use crate::field_schema::Node;
use crate::meta;
use crate::typed_fields::{self, compare, merge, to_field_set};
use serde_json::{Value, json};

/// Metadata fields the server owns; never tracked.
const UNTRACKED_META: [&str; 10] = [
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
];

/// What managedFields need to know of an entry's kind: its schema, its Go zero value (what
/// a create is compared with) and whether `status` is a subresource.
pub struct KindFields {
    custom: Option<Value>,
    builtin: Option<Node<'static>>,
    zero: Option<Value>,
    has_status: bool,
}

impl KindFields {
    /// The schema and zero value of an entry's kind.
    pub fn of(entry: &ResourceEntry) -> Self {
        let builtin = Node::builtin(&entry.group, &entry.version, &entry.names.kind);
        Self {
            custom: builtin
                .is_none()
                .then(|| entry.codec.openapi_schema())
                .flatten(),
            builtin,
            zero: entry.codec.zero_object(),
            has_status: entry.strategy.has_status(),
        }
    }

    /// A kind with no schema (shapes deduced from values) and no status subresource.
    pub fn untyped() -> Self {
        Self {
            custom: None,
            builtin: None,
            zero: None,
            has_status: false,
        }
    }

    /// The root of the kind's schema.
    pub fn node(&self) -> Node<'_> {
        match (&self.builtin, &self.custom) {
            (Some(n), _) => *n,
            (None, Some(schema)) => Node::custom(schema),
            (None, None) => Node::deduced(),
        }
    }

    /// Paths a write through `subresource` does not own: the status of the main resource,
    /// the spec of `status` (upstream's reset fields).
    fn ignored(&self, subresource: &str) -> Option<&'static str> {
        match subresource {
            "" if self.has_status => Some("status"),
            "status" => Some("spec"),
            _ => None,
        }
    }

    /// `set` without what no manager owns: type and server-owned metadata, reset fields.
    fn strip(&self, set: &mut FieldSet, subresource: &str) {
        for top in ["apiVersion", "kind", "metadata"] {
            set.remove(&field_path::fields(&[top]));
        }
        for key in UNTRACKED_META {
            field_path::remove_prefix(set, &field_path::fields(&["metadata", key]));
        }
        if let Some(top) = self.ignored(subresource) {
            field_path::remove_prefix(set, &field_path::fields(&[top]));
        }
    }
}

/// One managedFields entry.
#[derive(Debug, Clone)]
struct Entry {
    manager: String,
    operation: String,
    api_version: String,
    subresource: String,
    time: Option<Value>,
    fields: FieldSet,
}

impl Entry {
    fn is_apply_of(&self, w: &Writer) -> bool {
        self.manager == w.manager && self.operation == "Apply" && self.subresource == w.subresource
    }

    fn is_update_of(&self, w: &Writer) -> bool {
        self.manager == w.manager
            && self.operation == "Update"
            && self.api_version == w.api_version
            && self.subresource == w.subresource
    }

    /// How conflicts name it: `"kubectl" using v1` for updates, `"kubectl"` for appliers.
    fn printed(&self) -> String {
        let mut s = Value::from(self.manager.as_str()).to_string();
        if !self.subresource.is_empty() {
            s.push_str(&format!(
                " with subresource {}",
                Value::from(self.subresource.as_str())
            ));
        }
        if self.operation == "Update" {
            s.push_str(&format!(" using {}", self.api_version));
        }
        s
    }
}

fn entries(obj: &Value) -> Vec<Entry> {
    meta::meta(obj)
        .and_then(|m| m.get("managedFields"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|e| Entry {
                    manager: meta::top_str(e, "manager").to_owned(),
                    operation: meta::top_str(e, "operation").to_owned(),
                    api_version: meta::top_str(e, "apiVersion").to_owned(),
                    subresource: meta::top_str(e, "subresource").to_owned(),
                    time: e.get("time").cloned(),
                    fields: e.get("fieldsV1").map(from_fields_v1).unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Stores the entries that own anything, sorted as upstream sorts them (operation, time,
/// manager, apiVersion, subresource). An entry whose fields did not change keeps its time,
/// so a no-op write stays a no-op (as kube-apiserver); a changed one gets the time now.
fn store_entries(obj: &mut Value, list: Vec<Entry>, before: &[Entry]) {
    let now = Value::from(meta::now_rfc3339());
    let mut list: Vec<Entry> = list
        .into_iter()
        .filter(|e| !e.fields.is_empty())
        .map(|mut e| {
            let unchanged = before.iter().any(|b| {
                b.manager == e.manager
                    && b.operation == e.operation
                    && b.api_version == e.api_version
                    && b.subresource == e.subresource
                    && b.fields == e.fields
            });
            if !unchanged || e.time.is_none() {
                e.time = Some(now.clone());
            }
            e
        })
        .collect();
    list.sort_by(|a, b| {
        let time = |e: &Entry| {
            e.time
                .as_ref()
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        (
            &a.operation,
            time(a),
            &a.manager,
            &a.api_version,
            &a.subresource,
        )
            .cmp(&(
                &b.operation,
                time(b),
                &b.manager,
                &b.api_version,
                &b.subresource,
            ))
    });
    let values: Vec<Value> = list
        .into_iter()
        .map(|e| {
            let mut v = json!({
                "manager": e.manager,
                "operation": e.operation,
                "apiVersion": e.api_version,
                "time": e.time,
                "fieldsType": "FieldsV1",
                "fieldsV1": to_fields_v1(&e.fields),
            });
            if !e.subresource.is_empty() {
                v["subresource"] = json!(e.subresource);
            }
            v
        })
        .collect();
    let value = (!values.is_empty()).then_some(Value::Array(values));
    meta::set_meta(obj, "managedFields", value);
}

/// Who writes: manager name, apiVersion and subresource of the request.
pub struct Writer<'a> {
    /// `fieldManager`, or the User-Agent's product name.
    pub manager: &'a str,
    /// apiVersion of the request.
    pub api_version: &'a str,
    /// `status` for status writes, else empty.
    pub subresource: &'a str,
}

/// The manager of a request: `fieldManager`, else the User-Agent up to its first `/`.
pub fn manager_name(field_manager: Option<&str>, user_agent: Option<&str>) -> String {
    field_manager
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .or_else(|| {
            user_agent
                .and_then(|ua| ua.split('/').next())
                .map(str::to_owned)
        })
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Records an Update operation: the writer owns what it added or changed; what it removed
/// is forgotten by everyone, and others lose what it changed. `old` is `None` on create,
/// which compares with the kind's zero value as upstream does.
pub fn record_update(new: &mut Value, old: Option<&Value>, w: &Writer, kind: &KindFields) {
    if meta::meta(new)
        .and_then(|m| m.get("managedFields"))
        .is_none()
        && let Some(prev) = old
            .and_then(|o| meta::meta(o))
            .and_then(|m| m.get("managedFields"))
    {
        meta::set_meta(new, "managedFields", Some(prev.clone()));
    }
    let empty = json!({});
    let base = old.or(kind.zero.as_ref()).unwrap_or(&empty);
    let c = compare(base, new, &kind.node());
    let mut changed: FieldSet = c.added.union(&c.modified).cloned().collect();
    kind.strip(&mut changed, w.subresource);
    let before = entries(new);
    let mut list = before.clone();
    let mine = list.iter().position(|e| e.is_update_of(w));
    for (i, e) in list.iter_mut().enumerate() {
        e.fields.retain(|p| !c.removed.contains(p));
        if Some(i) != mine {
            e.fields.retain(|p| !changed.contains(p));
        }
    }
    match mine {
        Some(i) => list[i].fields.extend(changed),
        None => list.push(Entry {
            manager: w.manager.to_owned(),
            operation: "Update".into(),
            api_version: w.api_version.to_owned(),
            subresource: w.subresource.to_owned(),
            time: None,
            fields: changed,
        }),
    }
    store_entries(new, list, &before);
}

/// The object an apply is about, for its errors.
pub struct Target<'a> {
    /// API group of the resource.
    pub group: &'a str,
    /// Resource (plural).
    pub resource: &'a str,
    /// Kind, for errors that name the type.
    pub kind: &'a str,
    /// apiVersion of the request.
    pub api_version: &'a str,
    /// Namespace, empty for cluster-scoped objects.
    pub namespace: &'a str,
    /// Object name.
    pub name: &'a str,
}

fn conflict_error(t: &Target, conflicts: &mut [(String, Path)]) -> Error {
    conflicts.sort();
    let n = conflicts.len();
    let message = if n == 1 {
        let (m, p) = &conflicts[0];
        format!(
            "Apply failed with 1 conflict: conflict with {m}: {}",
            display(p)
        )
    } else {
        let mut lines = Vec::new();
        let mut last: Option<&String> = None;
        for (m, p) in conflicts.iter() {
            if last != Some(m) {
                lines.push(format!("conflicts with {m}:"));
                last = Some(m);
            }
            lines.push(format!("- {}", display(p)));
        }
        format!("Apply failed with {n} conflicts: {}", lines.join("\n"))
    };
    let causes = conflicts
        .iter()
        .map(|(m, p)| StatusCause {
            reason: "FieldManagerConflict".into(),
            message: format!("conflict with {m}"),
            field: display(p),
        })
        .collect();
    Error::ApplyConflict {
        group: t.group.to_owned(),
        resource: t.resource.to_owned(),
        name: t.name.to_owned(),
        message,
        causes,
    }
}

/// Server-side apply of `applied` onto `current` by the writer: the configuration merged
/// into the object by the kind's schema, fields this manager applied before and no longer
/// does removed unless someone else owns them, conflicts with other managers over fields
/// whose value would change (409 unless `force`, which takes them over). Returns the new
/// object with managedFields updated.
pub fn apply(
    current: &Value,
    applied: &Value,
    w: &Writer,
    force: bool,
    target: &Target,
    kind: &KindFields,
) -> Result<Value, Error> {
    let node = kind.node();
    let mut set = to_field_set(applied, &node).map_err(|e| {
        let ns = if target.namespace.is_empty() {
            String::new()
        } else {
            format!("{}/", target.namespace)
        };
        Error::Unclassified(format!(
            "failed to create typed patch object ({ns}{}; {}, Kind={}): {e}",
            target.name, target.api_version, target.kind
        ))
    })?;
    kind.strip(&mut set, w.subresource);
    let before = entries(current);
    let mut list = before.clone();
    let last: FieldSet = list
        .iter()
        .filter(|e| e.is_apply_of(w))
        .flat_map(|e| e.fields.iter().cloned())
        .collect();
    let mut obj = merge(current, applied, &node);
    let mut keep = set.clone();
    for e in list.iter().filter(|e| !e.is_apply_of(w)) {
        keep.extend(e.fields.iter().cloned());
    }
    for p in last.difference(&set) {
        if !field_path::has_prefix(&keep, p) {
            typed_fields::remove(&mut obj, p);
        }
    }
    let c = compare(current, &obj, &node);
    let mut conflicts = Vec::new();
    for e in list.iter().filter(|e| !e.is_apply_of(w)) {
        for p in e.fields.iter() {
            if c.added.contains(p) || c.modified.contains(p) {
                conflicts.push((e.printed(), p.clone()));
            }
        }
    }
    if !conflicts.is_empty() && !force {
        return Err(conflict_error(target, &mut conflicts));
    }
    let taken: FieldSet = conflicts.into_iter().map(|(_, p)| p).collect();
    list.retain(|e| !e.is_apply_of(w));
    for e in &mut list {
        e.fields
            .retain(|p| !taken.contains(p) && !c.removed.contains(p));
    }
    list.push(Entry {
        manager: w.manager.to_owned(),
        operation: "Apply".into(),
        api_version: w.api_version.to_owned(),
        subresource: w.subresource.to_owned(),
        time: before
            .iter()
            .find(|e| e.is_apply_of(w))
            .and_then(|e| e.time.clone()),
        fields: set,
    });
    store_entries(&mut obj, list, &before);
    Ok(obj)
}

/// Merges without deleting and without a schema: apply's merge for callers that only need
/// the configuration's values on the object (dry views of a patch).
pub fn apply_merge(target: &mut Value, applied: &Value) {
    *target = merge(target, applied, &Node::deduced());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writer(manager: &str) -> Writer<'_> {
        Writer {
            manager,
            api_version: "v1",
            subresource: "",
        }
    }

    fn target<'a>(kind: &'a str, name: &'a str) -> Target<'a> {
        Target {
            group: "",
            resource: "configmaps",
            kind,
            api_version: "v1",
            namespace: "default",
            name,
        }
    }

    fn builtin(group: &str, version: &str, kind: &str) -> KindFields {
        KindFields {
            custom: None,
            builtin: Node::builtin(group, version, kind),
            zero: None,
            has_status: true,
        }
    }

    #[test]
    fn fields_v1_of_a_created_configmap_matches_kube_apiserver() {
        let mut cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cfg", "labels": {"app": "web"}},
            "data": {"a": "1"}});
        let zero = json!({"metadata": {"creationTimestamp": null}});
        let kind = KindFields {
            zero: Some(zero),
            ..builtin("", "v1", "ConfigMap")
        };
        record_update(&mut cm, None, &writer("kubectl-create"), &kind);
        assert_eq!(
            cm["metadata"]["managedFields"][0]["fieldsV1"],
            json!({"f:data": {".": {}, "f:a": {}}, "f:metadata": {"f:labels": {".": {}, "f:app": {}}}})
        );
    }

    #[test]
    fn apply_conflicts_with_another_managers_field_r8_19() {
        let mut cm = json!({"metadata": {"name": "c"}, "data": {"a": "1"}});
        let kind = builtin("", "v1", "ConfigMap");
        record_update(&mut cm, None, &writer("kubectl-create"), &kind);
        let applied = json!({"metadata": {"name": "c"}, "data": {"a": "2"}});
        let t = target("ConfigMap", "c");
        let err = apply(&cm, &applied, &writer("ssa"), false, &t, &kind).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Apply failed with 1 conflict: conflict with \"kubectl-create\" using v1: .data.a"
        );
        let forced = apply(&cm, &applied, &writer("ssa"), true, &t, &kind).unwrap();
        assert_eq!(forced["data"]["a"], "2");
    }

    #[test]
    fn applying_the_same_value_as_another_manager_shares_the_field() {
        let mut cm = json!({"metadata": {"name": "c"}, "data": {"a": "1"}});
        let kind = builtin("", "v1", "ConfigMap");
        record_update(&mut cm, None, &writer("kubectl-create"), &kind);
        let applied = json!({"data": {"a": "1"}});
        let obj = apply(
            &cm,
            &applied,
            &writer("ssa"),
            false,
            &target("ConfigMap", "c"),
            &kind,
        )
        .unwrap();
        let owners: Vec<&str> = obj["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["fieldsV1"]["f:data"].get("f:a").is_some())
            .map(|e| e["manager"].as_str().unwrap())
            .collect();
        assert_eq!(owners, vec!["ssa", "kubectl-create"]);
    }

    #[test]
    fn apply_removes_fields_the_manager_stopped_applying() {
        let kind = builtin("", "v1", "ConfigMap");
        let w = writer("ssa");
        let t = target("ConfigMap", "c");
        let first = json!({"metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}});
        let obj = apply(
            &json!({"metadata": {"name": "c"}}),
            &first,
            &w,
            false,
            &t,
            &kind,
        )
        .unwrap();
        let second = json!({"metadata": {"name": "c"}, "data": {"a": "1"}});
        let obj = apply(&obj, &second, &w, false, &t, &kind).unwrap();
        assert_eq!(obj["data"], json!({"a": "1"}));
    }

    fn deployment(containers: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"template": {"spec": {"containers": containers}}}})
    }

    fn apply_deployment(
        current: &Value,
        containers: Value,
        manager: &str,
        force: bool,
    ) -> Result<Value, Error> {
        let kind = builtin("apps", "v1", "Deployment");
        let w = Writer {
            manager,
            api_version: "apps/v1",
            subresource: "",
        };
        let t = Target {
            group: "apps",
            resource: "deployments",
            kind: "Deployment",
            api_version: "apps/v1",
            namespace: "default",
            name: "d",
        };
        apply(current, &deployment(containers), &w, force, &t, &kind)
    }

    #[test]
    fn two_appliers_each_own_their_container_r8_19() {
        let obj = apply_deployment(
            &json!({}),
            json!([{"name": "a", "image": "one"}]),
            "first",
            false,
        )
        .unwrap();
        let obj = apply_deployment(
            &obj,
            json!([{"name": "b", "image": "two"}]),
            "second",
            false,
        )
        .unwrap();
        let names: Vec<&str> = obj["spec"]["template"]["spec"]["containers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, vec!["a", "b"]);
        let second = &obj["metadata"]["managedFields"][1];
        assert_eq!(second["manager"], "second");
        assert_eq!(
            second["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"],
            json!({"k:{\"name\":\"b\"}": {".": {}, "f:image": {}, "f:name": {}}})
        );
    }

    #[test]
    fn changing_another_appliers_container_conflicts_on_that_field_only() {
        let obj = apply_deployment(
            &json!({}),
            json!([{"name": "a", "image": "one"}]),
            "first",
            false,
        )
        .unwrap();
        let err = apply_deployment(
            &obj,
            json!([{"name": "a", "image": "two"}]),
            "second",
            false,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Apply failed with 1 conflict: conflict with \"first\": .spec.template.spec.containers[name=\"a\"].image"
        );
    }

    #[test]
    fn an_applier_that_drops_its_container_removes_it() {
        let obj = apply_deployment(
            &json!({}),
            json!([{"name": "a", "image": "one"}, {"name": "b", "image": "two"}]),
            "first",
            false,
        )
        .unwrap();
        let obj =
            apply_deployment(&obj, json!([{"name": "b", "image": "two"}]), "first", false).unwrap();
        assert_eq!(
            obj["spec"]["template"]["spec"]["containers"],
            json!([{"name": "b", "image": "two"}])
        );
    }

    #[test]
    fn a_dropped_container_stays_while_another_manager_owns_a_field_of_it() {
        let obj = apply_deployment(
            &json!({}),
            json!([{"name": "a", "image": "one"}]),
            "first",
            false,
        )
        .unwrap();
        let obj = apply_deployment(
            &obj,
            json!([{"name": "a", "imagePullPolicy": "Always"}]),
            "second",
            false,
        )
        .unwrap();
        let obj = apply_deployment(&obj, json!([]), "first", false).unwrap();
        assert_eq!(
            obj["spec"]["template"]["spec"]["containers"],
            json!([{"name": "a", "imagePullPolicy": "Always"}])
        );
    }

    #[test]
    fn multiple_conflicts_are_listed_per_manager() {
        let mut cm = json!({"metadata": {"name": "c"}, "data": {"a": "1", "b": "1"}});
        let kind = builtin("", "v1", "ConfigMap");
        record_update(&mut cm, None, &writer("kubectl-create"), &kind);
        let applied = json!({"data": {"a": "2", "b": "2"}});
        let err = apply(
            &cm,
            &applied,
            &writer("ssa"),
            false,
            &target("ConfigMap", "c"),
            &kind,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Apply failed with 2 conflicts: conflicts with \"kubectl-create\" using v1:\n- .data.a\n- .data.b"
        );
    }
}
