//! Binding a Pod to a node, as a scheduler does: `POST pods/{name}/binding` and the older
//! `POST namespaces/{ns}/bindings` take a core/v1 Binding, set the Pod's `spec.nodeName`,
//! merge the Binding's annotations and mark the Pod `PodScheduled`, inside the Pod's
//! guaranteed-update loop. A Pod already bound, being deleted or with scheduling gates
//! answers 409 on `pods/binding`; a Binding without a target answers 500 with upstream's
//! aggregate of field errors (upstream returns that as a plain error). The answer is a
//! `Success` Status with code 201, and the Pod's managedFields are left as they are.

use super::Ctx;
use super::body::{Decoded, decode_body};
use crate::status::ApiError;
use axum::body::Body;
use axum::response::Response;
use kapi_registry::Error;
use kapi_registry::field;
use kapi_registry::meta;
use kapi_registry::rest::options::{WriteOptions, WriteVerb};
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use serde_json::{Map, Value, json};

/// Whether the request binds a Pod (either URL form).
pub fn applies(ctx: &Ctx) -> bool {
    let core = ctx.entry.group.is_empty();
    let plural = ctx.entry.names.plural.as_str();
    core && (plural == "bindings"
        || (plural == "pods" && ctx.info.subresource.as_deref() == Some("binding")))
}

/// The Binding's field errors, as upstream's `ValidatePodBinding` aggregates them.
fn validate(binding: &Value) -> Result<(), Error> {
    let mut problems = Vec::new();
    let kind = meta::nested(binding, &["target", "kind"])
        .and_then(Value::as_str)
        .unwrap_or("");
    if !kind.is_empty() && kind != "Node" {
        let c = field::not_supported("target.kind", &Value::from(kind), &["Node", "<empty>"]);
        problems.push(format!("{}: {}", c.field, c.message));
    }
    let name = meta::nested(binding, &["target", "name"])
        .and_then(Value::as_str)
        .unwrap_or("");
    if name.is_empty() {
        let c = field::required("target.name", "");
        problems.push(format!("{}: {}", c.field, c.message));
    }
    match problems.len() {
        0 => Ok(()),
        1 => Err(Error::Unclassified(problems.remove(0))),
        _ => Err(Error::Unclassified(format!("[{}]", problems.join(", ")))),
    }
}

/// 409 on `pods/binding`, as upstream wraps the assignment's refusals.
fn refused(name: &str, message: String) -> Error {
    Error::Conflict {
        group: String::new(),
        resource: "pods/binding".into(),
        name: name.to_owned(),
        message,
    }
}

/// The stored Pod bound to the Binding's node.
fn bind(pod: &Value, binding: &Value, name: &str) -> Result<Value, Error> {
    if meta::meta(pod)
        .and_then(|m| m.get("deletionTimestamp"))
        .is_some_and(|t| !t.is_null())
    {
        return Err(refused(
            name,
            format!("pod {name} is being deleted, cannot be assigned to a host"),
        ));
    }
    let assigned = meta::nested(pod, &["spec", "nodeName"])
        .and_then(Value::as_str)
        .unwrap_or("");
    if !assigned.is_empty() {
        return Err(refused(
            name,
            format!(
                "pod {name} is already assigned to node {}",
                Value::from(assigned)
            ),
        ));
    }
    if meta::nested(pod, &["spec", "schedulingGates"])
        .and_then(Value::as_array)
        .is_some_and(|g| !g.is_empty())
    {
        return Err(refused(
            name,
            format!("pod {name} has non-empty .spec.schedulingGates"),
        ));
    }
    let node = meta::nested(binding, &["target", "name"]).cloned();
    let mut out = pod.clone();
    if let Some(spec) = out.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert("nodeName".into(), node.unwrap_or(Value::Null));
    }
    if let Some(extra) =
        meta::nested(binding, &["metadata", "annotations"]).and_then(Value::as_object)
        && !extra.is_empty()
    {
        let mut annotations = meta::nested(&out, &["metadata", "annotations"])
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        annotations.extend(extra.clone());
        meta::set_meta(&mut out, "annotations", Some(Value::Object(annotations)));
    }
    set_scheduled(&mut out);
    Ok(out)
}

/// `PodScheduled=True`, replacing an earlier PodScheduled condition (its reason and message
/// go; its transition time stays when the status was already True).
fn set_scheduled(pod: &mut Value) {
    let Some(map) = pod.as_object_mut() else {
        return;
    };
    let status = map
        .entry("status")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(status) = status.as_object_mut() else {
        return;
    };
    let list = status
        .entry("conditions")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Some(list) = list.as_array_mut() else {
        return;
    };
    let now = Value::from(meta::now_rfc3339());
    let mut condition = json!({"type": "PodScheduled", "status": "True",
        "lastProbeTime": null, "lastTransitionTime": now});
    match list.iter_mut().find(|c| c["type"] == "PodScheduled") {
        Some(existing) => {
            if existing["status"] == "True" {
                condition["lastTransitionTime"] = existing["lastTransitionTime"].clone();
            }
            *existing = condition;
        }
        None => list.push(condition),
    }
}

/// POST of a Binding.
pub async fn create(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let opts = WriteOptions::from_query(&ctx.query.0, WriteVerb::Create)?;
        let (Some(bindings), Some(pods)) = (
            ctx.table.get("", "v1", "bindings").cloned(),
            ctx.table.get("", "v1", "pods").cloned(),
        ) else {
            return Err(ApiError::internal("pods or bindings are not registered"));
        };
        let as_binding = Ctx {
            state: ctx.state.clone(),
            table: ctx.table.clone(),
            entry: bindings,
            info: ctx.info.clone(),
            query: ctx.query.clone(),
            headers: ctx.headers.clone(),
            user: ctx.user.clone(),
            guard: None,
            writer: ctx.writer,
            warnings: ctx.warnings.clone(),
        };
        let Decoded { obj: binding, .. } =
            decode_body(&as_binding, body, opts.field_validation).await?;
        let name = match ctx.info.subresource {
            Some(_) if meta::name(&binding) != ctx.name() => {
                return Err(Error::bad_request(
                    "name in URL does not match name in Binding object",
                )
                .into());
            }
            Some(_) => ctx.name().to_owned(),
            None => meta::name(&binding).to_owned(),
        };
        validate(&binding)?;
        let rest = RestStore::new(ctx.state.store.as_ref(), &ctx.table, &pods);
        let w = WriteContext {
            namespace: ctx.info.namespace.clone(),
            subresource: Some("binding".into()),
            manager: ctx.manager(&opts),
            dry_run: opts.dry_run,
            guard: None,
            admission: None,
        };
        let mut info = UpdateFn::new(|current: Option<&Value>| match current {
            Some(pod) => bind(pod, &binding, &name),
            None => Err(rest.not_found(&name)),
        })
        .without_update_record();
        rest.update(&w, &name, &mut info).await?;
        Ok::<_, ApiError>(())
    }
    .await;
    super::created_success(ctx, result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(node: &str) -> Value {
        json!({"metadata": {"name": "p", "annotations": {"a": "1"}},
            "target": {"kind": "Node", "name": node}})
    }

    #[test]
    fn binding_sets_the_node_annotations_and_pod_scheduled() {
        let pod = json!({"metadata": {"name": "p"}, "spec": {"containers": []},
            "status": {"phase": "Pending"}});
        let bound = bind(&pod, &binding("n1"), "p").unwrap();
        assert_eq!(bound["spec"]["nodeName"], "n1");
        assert_eq!(bound["metadata"]["annotations"]["a"], "1");
        assert_eq!(bound["status"]["conditions"][0]["type"], "PodScheduled");
        assert_eq!(bound["status"]["conditions"][0]["status"], "True");
    }

    #[test]
    fn a_bound_pod_cannot_be_bound_again() {
        let pod = json!({"metadata": {"name": "p"}, "spec": {"nodeName": "n0"}});
        let e = bind(&pod, &binding("n1"), "p").unwrap_err();
        assert_eq!(
            e.to_string(),
            "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to node \"n0\""
        );
    }

    #[test]
    fn a_binding_without_a_target_name_is_refused() {
        let e = validate(&json!({"target": {"kind": "Pod"}})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "[target.kind: Unsupported value: \"Pod\": supported values: \"Node\", \"<empty>\", target.name: Required value]"
        );
    }
}
