//! MutatingAdmissionPolicy (kube-apiserver's plugin of that name): every
//! MutatingAdmissionPolicyBinding whose policy selects the write (as a
//! ValidatingAdmissionPolicy's binding does, [`super::policy`]) applies the policy's
//! `mutations` in order, each evaluated in CEL with the same variables: an
//! `applyConfiguration` expression gives an object merged into the write as server-side
//! apply merges (`Object{spec: Object.spec{…}}`), a `jsonPatch` expression gives JSON
//! patch operations (`[JSONPatch{op: "add", path: "/…", value: …}]`). Errors are the
//! policy's `failurePolicy`'s to judge; `reinvocationPolicy: IfNeeded` policies run again
//! when a later plugin changed the object.

use super::matching;
use super::policy::{Bound, Params, bound, object_name, params, variables};
use super::review::{SeenAs, request_json};
use super::webhook::load_sorted;
use super::{MutationPass, refusal};
use crate::authn::User;
use crate::state::ApiState;
use kapi_apiextensions::cel::{Expression, Variables};
use kapi_registry::patch::{PatchType, apply_patch};
use kapi_registry::rest::admission::AdmissionRequest;
use serde_json::Value;

const POLICIES: &str = "mutatingadmissionpolicies";
const BINDINGS: &str = "mutatingadmissionpolicybindings";

/// MutatingAdmissionPolicies for one request.
pub struct MutatingPolicyAdmission<'a> {
    state: &'a ApiState,
    user: Option<&'a User>,
}

impl<'a> MutatingPolicyAdmission<'a> {
    /// The mutating policies for one request of `user`.
    pub fn new(state: &'a ApiState, user: Option<&'a User>) -> Self {
        Self { state, user }
    }

    /// Applies every binding's policy that selects the write, in binding-name order;
    /// `previous` is the first pass when this is the reinvocation.
    pub async fn mutate(
        &self,
        r: &AdmissionRequest<'_>,
        obj: &mut Value,
        previous: Option<&MutationPass>,
    ) -> kapi_registry::Result<MutationPass> {
        let mut pass = MutationPass::default();
        if matching::exempt(r) {
            return Ok(pass);
        }
        let bindings = load_sorted(self.state, BINDINGS).await?;
        if bindings.is_empty() {
            return Ok(pass);
        }
        let namespace = matching::namespace_object(self.state, r, Some(obj)).await;
        let bound = bound(
            self.state,
            POLICIES,
            bindings,
            r,
            Some(obj),
            namespace.as_ref(),
        )
        .await?;
        for b in &bound {
            let key = format!("{}/{}", b.policy_name(), b.binding_name());
            let reinvocable = b.policy["spec"]["reinvocationPolicy"].as_str() == Some("IfNeeded");
            if let Some(first) = previous
                && !(reinvocable && first.reinvoke(&key, obj))
            {
                continue;
            }
            if let Err(message) = self.apply(b, r, obj, namespace.as_ref()).await {
                if b.fails_closed() {
                    let why = format!(
                        "MutatingAdmissionPolicy '{}' with binding '{}' denied request: {message}",
                        b.policy_name(),
                        b.binding_name()
                    );
                    let name = object_name(r, Some(obj));
                    return Err(refusal(r, &name, 422, "Invalid", &why, true));
                }
                tracing::warn!(policy = %b.policy_name(), binding = %b.binding_name(), error = %message, "mutating policy failed, failing open");
            }
            if reinvocable {
                pass.reinvocable.push((key, obj.clone()));
            }
        }
        Ok(pass)
    }

    /// Applies one binding's mutations (for each of its params); nothing of a failed
    /// binding's changes is kept.
    async fn apply(
        &self,
        b: &Bound,
        r: &AdmissionRequest<'_>,
        obj: &mut Value,
        namespace: Option<&Value>,
    ) -> Result<(), String> {
        let params = match params(self.state, b, r).await {
            Ok(Params::Each(p)) => p,
            Ok(Params::NoneAllowed) => return Ok(()),
            Err(e) => return Err(e.message),
        };
        let spec = &b.policy["spec"];
        let mut working = obj.clone();
        for param in &params {
            for m in spec["mutations"].as_array().into_iter().flatten() {
                // Each mutation sees the object as the ones before it left it.
                let request = request_json(
                    "",
                    r,
                    &SeenAs::requested(r),
                    self.user,
                    Some(&working),
                    r.old,
                );
                let vars = variables(&request, namespace, param.as_ref(), spec);
                if !matching::conditions_hold(spec, &vars)? {
                    return Ok(());
                }
                working = mutation(m, &vars, &working)?;
            }
        }
        if working["apiVersion"] != obj["apiVersion"] || working["kind"] != obj["kind"] {
            return Err("a mutation may not change the object's apiVersion or kind".to_owned());
        }
        *obj = working;
        Ok(())
    }
}

/// One mutation applied to `obj`.
fn mutation(m: &Value, vars: &Variables, obj: &Value) -> Result<Value, String> {
    let (field, patch_type) = match m["patchType"].as_str() {
        Some("ApplyConfiguration") => ("applyConfiguration", PatchType::Apply),
        Some("JSONPatch") => ("jsonPatch", PatchType::Json),
        other => return Err(format!("unsupported patchType {other:?}")),
    };
    let source = m[field]["expression"].as_str().unwrap_or("");
    let value = Expression::cached(source)
        .and_then(|e| e.evaluate(vars).map_err(|e| e.to_string()))
        .map_err(|e| format!("expression '{source}' resulted in error: {e}"))?;
    let shape_ok = match patch_type {
        PatchType::Apply => value.is_object(),
        _ => value.is_array(),
    };
    if !shape_ok {
        return Err(format!(
            "expression '{source}' must evaluate to {}",
            if patch_type == PatchType::Apply {
                "an Object"
            } else {
                "a list of JSONPatch"
            }
        ));
    }
    apply_patch(patch_type, &value, obj).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars(obj: &Value) -> Variables {
        let mut v = Variables::new();
        v.set("object", obj);
        v
    }

    #[test]
    fn an_apply_configuration_merges_into_the_object() {
        let obj = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "labels": {"x": "1"}}});
        let m = json!({"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "Object{metadata: Object.metadata{labels: {'team': 'web'}}}"}});
        let got = mutation(&m, &vars(&obj), &obj).unwrap();
        assert_eq!(got["metadata"]["labels"], json!({"x": "1", "team": "web"}));
        assert_eq!(got["metadata"]["name"], "a");
    }

    #[test]
    fn a_json_patch_expression_patches_the_object() {
        let obj = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1"}});
        let m = json!({"patchType": "JSONPatch", "jsonPatch": {"expression": "[JSONPatch{op: 'add', path: '/data/b', value: object.data.a + '2'}]"}});
        let got = mutation(&m, &vars(&obj), &obj).unwrap();
        assert_eq!(got["data"], json!({"a": "1", "b": "12"}));
    }

    #[test]
    fn an_expression_of_the_wrong_shape_is_an_error() {
        let obj = json!({"apiVersion": "v1", "kind": "ConfigMap"});
        let m = json!({"patchType": "JSONPatch", "jsonPatch": {"expression": "object"}});
        let err = mutation(&m, &vars(&obj), &obj).unwrap_err();
        assert_eq!(
            err,
            "expression 'object' must evaluate to a list of JSONPatch"
        );
    }
}
