//! ComponentStatus (deprecated upstream since 1.19, still served): `GET componentstatuses`
//! and `GET componentstatuses/{name}` probe the control plane's parts when asked and store
//! nothing. kube-apiserver probes the controller-manager's and scheduler's `/healthz` and
//! each etcd server; kapi answers for what it is made of:
//! - `controller-manager`: the controllers kapi runs in-process, healthy once each has
//!   started (their `/readyz` post-start hooks); unhealthy when none runs here;
//! - `scheduler`: kapi runs none, so unhealthy, saying so (envtest's kube-apiserver, which
//!   has no scheduler either, answers unhealthy with a refused connection);
//! - `etcd-0`: the store (embedded or etcd) answers a revision read within 2 s.
//!
//! An unknown name is upstream's plain error: 500 `Component not found: <name>`. A list
//! filters by `labelSelector` (components have no labels) and `fieldSelector`
//! (`metadata.name`), as upstream's default predicate does.

use super::Ctx;
use crate::request_info::Verb;
use crate::status::ApiError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use kapi_registry::Error;
use kapi_registry::selectors::{parse_fields, parse_labels};
use serde_json::{Value, json};

/// The components, in the order `kubectl get componentstatuses` lists them.
pub const COMPONENTS: [&str; 3] = ["controller-manager", "scheduler", "etcd-0"];

/// The server's own post-start hooks (not controllers).
const SERVER_HOOKS: [&str; 3] = [
    crate::bootstrap::HOOK,
    crate::server::SYSTEM_NAMESPACES_HOOK,
    crate::rbac_bootstrap::HOOK,
];

/// Whether the request is for componentstatuses.
pub fn applies(ctx: &Ctx) -> bool {
    ctx.entry.group.is_empty() && ctx.entry.names.plural == "componentstatuses"
}

/// Serves get and list (the only verbs upstream has).
pub async fn dispatch(ctx: &Ctx) -> Response {
    let result = match ctx.info.verb {
        Verb::Get => get(ctx).await,
        Verb::List => list(ctx).await,
        _ => return ApiError::method_not_allowed().into_response(),
    };
    match result {
        Ok(resp) => resp,
        Err(e) => ctx.writer.error(e),
    }
}

async fn get(ctx: &Ctx) -> Result<Response, ApiError> {
    let name = ctx.name();
    if !COMPONENTS.contains(&name) {
        return Err(Error::Unclassified(format!("Component not found: {name}")).into());
    }
    let status = probe(ctx, name).await;
    Ok(ctx.writer.object(&ctx.entry, StatusCode::OK, status))
}

async fn list(ctx: &Ctx) -> Result<Response, ApiError> {
    let labels = parse_labels(ctx.query.get("labelSelector").unwrap_or(""))?;
    let fields = parse_fields(ctx.query.get("fieldSelector").unwrap_or(""))?;
    let mut items = Vec::new();
    for name in COMPONENTS {
        if labels.matches(&[]) && fields.matches(&[("metadata.name", name)]) {
            items.push(probe(ctx, name).await);
        }
    }
    Ok(ctx.writer.list(&ctx.entry, items, json!({})))
}

/// One component's status: `Healthy` True with message `ok`, or False with why.
async fn probe(ctx: &Ctx, name: &str) -> Value {
    let health = match name {
        "controller-manager" => controllers(&ctx.state.health.hooks()),
        "scheduler" => Err(
            "kapi runs no scheduler: a Pod is bound by POST pods/{name}/binding (a test's own scheduler)"
                .to_owned(),
        ),
        _ => ctx.state.health.check_store().await,
    };
    component_status(name, health)
}

/// The controller-manager's health from the post-start hooks: the controllers' hooks all
/// finished, and there is at least one.
fn controllers(hooks: &[(String, bool)]) -> Result<(), String> {
    let controllers: Vec<&(String, bool)> = hooks
        .iter()
        .filter(|(hook, _)| !SERVER_HOOKS.contains(&hook.as_str()))
        .collect();
    if controllers.is_empty() {
        return Err("no controllers run in this kapi process".to_owned());
    }
    let waiting: Vec<&str> = controllers
        .iter()
        .filter(|(_, started)| !started)
        .map(|(hook, _)| hook.as_str())
        .collect();
    if waiting.is_empty() {
        Ok(())
    } else {
        Err(format!("not started yet: {}", waiting.join(", ")))
    }
}

/// A ComponentStatus object. Like upstream's HTTP probe, a failure's reason is the
/// condition's message and `error` stays empty.
fn component_status(name: &str, health: Result<(), String>) -> Value {
    let (status, message) = match health {
        Ok(()) => ("True", "ok".to_owned()),
        Err(why) => ("False", why),
    };
    json!({"kind": "ComponentStatus", "apiVersion": "v1",
        "metadata": {"name": name},
        "conditions": [{"type": "Healthy", "status": status, "message": message}]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_controller_manager_is_healthy_once_every_controller_started() {
        let hooks = vec![
            (crate::bootstrap::HOOK.to_owned(), false),
            ("start-namespace-controller".to_owned(), true),
        ];
        assert_eq!(controllers(&hooks), Ok(()));
    }

    #[test]
    fn the_controller_manager_names_the_controllers_not_started() {
        let hooks = vec![
            ("start-namespace-controller".to_owned(), true),
            ("start-garbage-collector-controller".to_owned(), false),
        ];
        assert_eq!(
            controllers(&hooks),
            Err("not started yet: start-garbage-collector-controller".to_owned())
        );
    }

    #[test]
    fn without_controllers_the_controller_manager_is_unhealthy() {
        let hooks = vec![(crate::bootstrap::HOOK.to_owned(), true)];
        assert!(controllers(&hooks).is_err());
    }

    #[test]
    fn a_failed_probe_is_healthy_false_with_the_reason_as_message() {
        let s = component_status("etcd-0", Err("no answer within 2s".into()));
        assert_eq!(
            s["conditions"][0],
            json!({"type": "Healthy", "status": "False", "message": "no answer within 2s"})
        );
    }
}
