//! Evicting a Pod (`POST pods/{name}/eviction` with a policy/v1 Eviction), as `kubectl
//! drain` and cluster autoscalers do: a Pod that is pending, finished or already being
//! deleted, or that no PodDisruptionBudget selects, is deleted at once; otherwise the one
//! budget that selects it must allow a disruption — its `disruptionsAllowed` is taken down
//! by one and the Pod recorded in `disruptedPods` (compare-and-swap on the budget, retried
//! on a lost race) — or the answer is 429 with upstream's `DisruptionBudget` cause. Two
//! budgets answer 500, as upstream does. A deleted Pod first gets the `DisruptionTarget`
//! condition. The answer is a `Success` Status with code 201.

use super::Ctx;
use crate::status::ApiError;
use axum::body::Body;
use axum::response::Response;
use kapi_registry::Error;
use kapi_registry::builtin::selects;
use kapi_registry::error::StatusCause;
use kapi_registry::meta;
use kapi_registry::rest::list::Selection;
use kapi_registry::rest::options::{
    BodyEncoding, DeleteOptions, ListOptions, Params, WriteOptions, WriteVerb,
};
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use serde_json::{Map, Value, json};

/// Whether the request evicts a Pod.
pub fn applies(ctx: &Ctx) -> bool {
    ctx.entry.group.is_empty()
        && ctx.entry.names.plural == "pods"
        && ctx.info.subresource.as_deref() == Some("eviction")
}

const REFUSED: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

/// Upstream's 429 with one `DisruptionBudget` cause.
fn budget_refusal(retry_after_seconds: u32, why: String) -> Error {
    Error::TooManyRequests {
        message: REFUSED.into(),
        retry_after_seconds,
        causes: vec![StatusCause {
            reason: "DisruptionBudget".into(),
            message: why,
            field: String::new(),
        }],
    }
}

fn int(v: &Value, path: &[&str]) -> i64 {
    meta::nested(v, path).and_then(Value::as_i64).unwrap_or(0)
}

fn phase(pod: &Value) -> &str {
    meta::nested(pod, &["status", "phase"])
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn has_condition(pod: &Value, kind: &str) -> bool {
    meta::nested(pod, &["status", "conditions"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| c["type"] == kind && c["status"] == "True")
}

/// A Pod whose disruption no budget guards: pending, finished, or already being deleted.
fn can_ignore_budget(pod: &Value) -> bool {
    matches!(phase(pod), "Pending" | "Succeeded" | "Failed")
        || meta::meta(pod)
            .and_then(|m| m.get("deletionTimestamp"))
            .is_some_and(|t| !t.is_null())
}

/// The budget with one disruption taken for `pod` (upstream's `checkAndDecrement`).
fn decrement(pdb: &Value, pod: &str) -> Result<Value, Error> {
    let name = meta::name(pdb).to_owned();
    if int(pdb, &["status", "observedGeneration"]) < int(pdb, &["metadata", "generation"]) {
        return Err(budget_refusal(
            10,
            format!("The disruption budget {name} is still being processed by the server."),
        ));
    }
    let allowed = int(pdb, &["status", "disruptionsAllowed"]);
    let forbidden = |message: &str| Error::Forbidden {
        group: "policy".into(),
        resource: "poddisruptionbudget".into(),
        name: name.clone(),
        message: message.into(),
    };
    if allowed < 0 {
        return Err(forbidden("pdb disruptions allowed is negative"));
    }
    let disrupted = meta::nested(pdb, &["status", "disruptedPods"])
        .and_then(Value::as_object)
        .map_or(0, Map::len);
    if disrupted > 2000 {
        return Err(forbidden(
            "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
        ));
    }
    if allowed == 0 {
        return Err(budget_refusal(
            0,
            format!(
                "The disruption budget {name} needs {} healthy pods and has {} currently",
                int(pdb, &["status", "desiredHealthy"]),
                int(pdb, &["status", "currentHealthy"])
            ),
        ));
    }
    let mut out = pdb.clone();
    let Some(status) = out.get_mut("status").and_then(Value::as_object_mut) else {
        return Err(Error::internal("the budget has no status"));
    };
    let now = Value::from(meta::now_rfc3339());
    status.insert("disruptionsAllowed".into(), json!(allowed - 1));
    let pods = status
        .entry("disruptedPods")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(pods) = pods.as_object_mut() {
        pods.insert(pod.to_owned(), now.clone());
    }
    if allowed == 1 {
        let observed = status
            .get("observedGeneration")
            .cloned()
            .unwrap_or(json!(0));
        let condition = json!({"type": "DisruptionAllowed", "status": "False",
            "reason": "InsufficientPods", "message": "", "observedGeneration": observed,
            "lastTransitionTime": now});
        let list = status
            .entry("conditions")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Some(list) = list.as_array_mut() {
            match list.iter_mut().find(|c| c["type"] == "DisruptionAllowed") {
                Some(c) if c["status"] == "False" => {
                    c["reason"] = json!("InsufficientPods");
                    c["observedGeneration"] = condition["observedGeneration"].clone();
                }
                Some(c) => *c = condition,
                None => list.push(condition),
            }
        }
    }
    Ok(out)
}

/// The budgets of the Pod's namespace whose selector selects it.
async fn budgets_of(ctx: &Ctx, pod: &Value) -> Result<Vec<Value>, ApiError> {
    let Some(entry) = ctx
        .table
        .get("policy", "v1", "poddisruptionbudgets")
        .cloned()
    else {
        return Ok(Vec::new());
    };
    let rest = RestStore::new(ctx.state.store.as_ref(), &ctx.table, &entry);
    let opts = ListOptions::default();
    let selection = Selection::new(&rest, &opts, None)?;
    let page = rest
        .list(None, ctx.namespace(), &opts, &selection, false)
        .await?;
    let empty = Map::new();
    let labels = meta::nested(pod, &["metadata", "labels"])
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    Ok(rest
        .decode_items(page.items)
        .await?
        .into_iter()
        .filter(|pdb| meta::nested(pdb, &["spec", "selector"]).is_some_and(|s| selects(s, labels)))
        .collect())
}

/// Takes one disruption from the budget (nothing written under dry-run).
async fn take_disruption(
    ctx: &Ctx,
    w: &WriteContext,
    pdb: &Value,
    pod: &str,
) -> Result<(), ApiError> {
    let Some(entry) = ctx
        .table
        .get("policy", "v1", "poddisruptionbudgets")
        .cloned()
    else {
        return Err(ApiError::internal(
            "poddisruptionbudgets are not registered",
        ));
    };
    let rest = RestStore::new(ctx.state.store.as_ref(), &ctx.table, &entry);
    let w = WriteContext {
        subresource: Some("status".into()),
        ..w.clone()
    };
    let mut info = UpdateFn::new(|current: Option<&Value>| match current {
        Some(pdb) => decrement(pdb, pod),
        None => Err(rest.not_found(meta::name(pdb))),
    })
    .without_update_record();
    rest.update(&w, meta::name(pdb), &mut info).await?;
    Ok(())
}

/// Marks the Pod `DisruptionTarget` and deletes it with the Eviction's delete options.
async fn evict(
    ctx: &Ctx,
    w: &WriteContext,
    name: &str,
    opts: &DeleteOptions,
) -> Result<(), ApiError> {
    let rest = ctx.rest();
    if !w.dry_run {
        let status_write = WriteContext {
            subresource: Some("status".into()),
            ..w.clone()
        };
        let mut info = UpdateFn::new(|current: Option<&Value>| {
            let Some(pod) = current else {
                return Err(rest.not_found(name));
            };
            let mut out = pod.clone();
            let condition = json!({"type": "DisruptionTarget", "status": "True",
                "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting",
                "lastProbeTime": null, "lastTransitionTime": meta::now_rfc3339()});
            if let Some(status) = out.get_mut("status").and_then(Value::as_object_mut) {
                let list = status
                    .entry("conditions")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Some(list) = list.as_array_mut() {
                    list.retain(|c| c["type"] != "DisruptionTarget");
                    list.push(condition);
                }
            }
            Ok(out)
        })
        .without_update_record();
        rest.update(&status_write, name, &mut info).await?;
    }
    rest.delete(w, name, opts).await?;
    Ok(())
}

/// POST of an Eviction.
pub async fn create(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let opts = WriteOptions::from_query(&ctx.query.0, WriteVerb::Create)?;
        let eviction = super::body::read_kind(ctx, body, "Eviction").await?;
        if meta::name(&eviction) != ctx.name() {
            return Err(Error::bad_request(
                "name in URL does not match name in Eviction object",
            )
            .into());
        }
        let delete_body = eviction
            .get("deleteOptions")
            .filter(|d| !d.is_null())
            .map(Value::to_string)
            .unwrap_or_default();
        let delete_opts =
            DeleteOptions::parse(delete_body.as_bytes(), BodyEncoding::Json, &Params::new())?;
        let w = WriteContext {
            dry_run: opts.dry_run || delete_opts.dry_run,
            ..ctx.write_context(&opts)
        };
        let pod = ctx.rest().get_existing(ctx.namespace(), ctx.name()).await?.object;
        if !can_ignore_budget(&pod) {
            let budgets = budgets_of(ctx, &pod).await?;
            if budgets.len() > 1 {
                return Err(Error::Unclassified(
                    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
                        .into(),
                )
                .into());
            }
            if let Some(pdb) = budgets.first() {
                let healthy_enough = int(pdb, &["status", "currentHealthy"])
                    >= int(pdb, &["status", "desiredHealthy"])
                    && int(pdb, &["status", "desiredHealthy"]) > 0;
                let always = meta::nested(pdb, &["spec", "unhealthyPodEvictionPolicy"])
                    == Some(&json!("AlwaysAllow"));
                let unready_may_go = !has_condition(&pod, "Ready") && (always || healthy_enough);
                if !unready_may_go {
                    take_disruption(ctx, &w, pdb, ctx.name()).await?;
                }
            }
        }
        evict(ctx, &w, ctx.name(), &delete_opts).await?;
        Ok::<_, ApiError>(())
    }
    .await;
    super::created_success(ctx, result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pdb(allowed: i64) -> Value {
        json!({"metadata": {"name": "b", "generation": 1},
            "status": {"observedGeneration": 1, "disruptionsAllowed": allowed,
                "desiredHealthy": 2, "currentHealthy": 2, "expectedPods": 2}})
    }

    #[test]
    fn a_budget_with_room_gives_one_disruption_and_records_the_pod() {
        let out = decrement(&pdb(1), "p").unwrap();
        assert_eq!(out["status"]["disruptionsAllowed"], 0);
        assert!(out["status"]["disruptedPods"]["p"].is_string());
        assert_eq!(out["status"]["conditions"][0]["reason"], "InsufficientPods");
    }

    #[test]
    fn a_budget_without_room_refuses_with_429() {
        let e = decrement(&pdb(0), "p").unwrap_err();
        let Error::TooManyRequests {
            message, causes, ..
        } = e
        else {
            panic!("not 429")
        };
        assert_eq!(message, REFUSED);
        assert_eq!(
            causes[0].message,
            "The disruption budget b needs 2 healthy pods and has 2 currently"
        );
        assert_eq!(causes[0].reason, "DisruptionBudget");
    }

    #[test]
    fn a_budget_not_yet_observed_asks_to_retry_in_ten_seconds() {
        let mut b = pdb(1);
        b["metadata"]["generation"] = json!(2);
        let e = decrement(&b, "p").unwrap_err();
        assert!(matches!(
            e,
            Error::TooManyRequests {
                retry_after_seconds: 10,
                ..
            }
        ));
    }

    #[test]
    fn pending_and_finished_pods_skip_the_budget() {
        assert!(can_ignore_budget(&json!({"status": {"phase": "Pending"}})));
        assert!(can_ignore_budget(
            &json!({"status": {"phase": "Succeeded"}})
        ));
        assert!(!can_ignore_budget(&json!({"status": {"phase": "Running"}})));
    }
}
