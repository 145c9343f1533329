//! The reviews that are answered rather than stored: SelfSubjectAccessReview,
//! SubjectAccessReview and LocalSubjectAccessReview (`kubectl auth can-i`), the
//! SelfSubjectRulesReview (`kubectl auth can-i --list`) and the SelfSubjectReview
//! (`kubectl auth whoami`). A POST is answered 201 with the request and its `status`
//! filled by the server's authorizer; nothing is stored. Invalid specs answer upstream's 422.

use super::Ctx;
use super::body::{Decoded, decode_body};
use crate::authn::User;
use crate::authz::Attributes;
use crate::status::ApiError;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use kapi_registry::Error;
use kapi_registry::field;
use kapi_registry::rest::options::{WriteOptions, WriteVerb};
use serde_json::{Value, json};

/// Whether the request is a review answered here.
pub fn applies(ctx: &Ctx) -> bool {
    matches!(
        (ctx.entry.group.as_str(), ctx.entry.names.plural.as_str()),
        (
            "authorization.k8s.io",
            "selfsubjectaccessreviews"
                | "subjectaccessreviews"
                | "localsubjectaccessreviews"
                | "selfsubjectrulesreviews"
        ) | ("authentication.k8s.io", "selfsubjectreviews")
    )
}

fn string(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_owned()
}

/// The attributes a review's spec asks about.
fn attributes(spec: &Value) -> Option<Attributes> {
    if let Some(r) = spec.get("resourceAttributes").filter(|r| r.is_object()) {
        return Some(Attributes::Resource {
            verb: string(r, "verb"),
            group: string(r, "group"),
            version: string(r, "version"),
            resource: string(r, "resource"),
            subresource: string(r, "subresource"),
            name: string(r, "name"),
            namespace: string(r, "namespace"),
        });
    }
    spec.get("nonResourceAttributes")
        .filter(|r| r.is_object())
        .map(|r| Attributes::NonResource {
            verb: string(r, "verb"),
            path: string(r, "path"),
        })
}

/// `ValidateSelfSubjectAccessReviewSpec`: exactly one kind of attributes.
fn attribute_causes(spec: &Value) -> Vec<kapi_registry::error::StatusCause> {
    let has = |k: &str| spec.get(k).is_some_and(Value::is_object);
    match (has("resourceAttributes"), has("nonResourceAttributes")) {
        (true, true) => vec![field::invalid(
            "spec.nonResourceAttributes",
            &json!("object"),
            "cannot be specified in combination with resourceAttributes",
        )],
        (false, false) => vec![field::invalid(
            "spec.resourceAttributes",
            &Value::Null,
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        )],
        _ => Vec::new(),
    }
}

/// The user a SubjectAccessReview asks about (exactly the groups given).
fn subject_of(spec: &Value) -> User {
    User {
        name: string(spec, "user"),
        uid: string(spec, "uid"),
        groups: spec
            .get("groups")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        extra: spec
            .get("extra")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| {
                let values = v.as_array().into_iter().flatten();
                let values = values.filter_map(Value::as_str).map(str::to_owned);
                (k.clone(), values.collect())
            })
            .collect(),
    }
}

/// POST of a review.
pub async fn create(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let opts = WriteOptions::from_query(&ctx.query.0, WriteVerb::Create)?;
        let Decoded { obj, .. } = decode_body(ctx, body, opts.field_validation).await?;
        let Some(user) = ctx.user.clone() else {
            return Err(ApiError::unauthorized());
        };
        answer(ctx, obj, &user).await
    }
    .await;
    match result {
        Ok(obj) => ctx.writer.object(&ctx.entry, StatusCode::CREATED, obj),
        Err(e) => ctx.writer.error(e),
    }
}

async fn answer(ctx: &Ctx, mut obj: Value, requester: &User) -> Result<Value, ApiError> {
    let plural = ctx.entry.names.plural.as_str();
    let kind = ctx.entry.names.kind.clone();
    let group = ctx.entry.group.clone();
    let spec = obj.get("spec").cloned().unwrap_or_else(|| json!({}));
    let invalid = |causes| ApiError::from(Error::invalid(&group, &kind, "", causes));
    let status = match plural {
        "selfsubjectreviews" => json!({"userInfo": requester.info_json()}),
        "selfsubjectrulesreviews" => {
            let namespace = string(&spec, "namespace");
            if namespace.is_empty() {
                return Err(Error::bad_request("no namespace on request").into());
            }
            rules_status(ctx, requester, &namespace).await?
        }
        _ => {
            let mut causes = attribute_causes(&spec);
            let subject = match plural {
                "selfsubjectaccessreviews" => requester.clone(),
                _ => {
                    let s = subject_of(&spec);
                    if s.name.is_empty() && s.groups.is_empty() {
                        causes.push(field::invalid(
                            "spec.user",
                            &json!(""),
                            "at least one of user or group must be specified",
                        ));
                    }
                    s
                }
            };
            if plural == "localsubjectaccessreviews" {
                causes.extend(local_causes(ctx, &mut obj, &spec)?);
            }
            if !causes.is_empty() {
                return Err(invalid(causes));
            }
            let Some(a) = attributes(&spec) else {
                return Err(invalid(attribute_causes(&spec)));
            };
            let d = ctx
                .state
                .authorizer
                .decide(&ctx.state, &subject, &a)
                .await?;
            let mut status = json!({"allowed": d.allowed});
            if !d.reason.is_empty() {
                status["reason"] = json!(d.reason);
            }
            status
        }
    };
    obj["status"] = status;
    Ok(obj)
}

/// A LocalSubjectAccessReview is about its own namespace: the object's namespace is the
/// URL's, and its resource attributes must name it (upstream's validation and REST).
fn local_causes(
    ctx: &Ctx,
    obj: &mut Value,
    spec: &Value,
) -> Result<Vec<kapi_registry::error::StatusCause>, ApiError> {
    let url_ns = ctx.namespace().unwrap_or_default().to_owned();
    let meta_ns = kapi_registry::meta::meta_str(obj, "namespace").to_owned();
    if !meta_ns.is_empty() && meta_ns != url_ns {
        return Err(Error::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        )
        .into());
    }
    kapi_registry::meta::set_meta(obj, "namespace", Some(json!(url_ns)));
    let mut causes = Vec::new();
    if spec
        .get("nonResourceAttributes")
        .is_some_and(Value::is_object)
    {
        causes.push(field::invalid(
            "spec.nonResourceAttributes",
            &json!("object"),
            "disallowed on this kind of request",
        ));
    }
    if let Some(r) = spec.get("resourceAttributes").filter(|r| r.is_object()) {
        let ns = string(r, "namespace");
        if ns != url_ns {
            causes.push(field::invalid(
                "spec.resourceAttributes.namespace",
                &json!(ns),
                "must match metadata.namespace",
            ));
        }
    }
    Ok(causes)
}

/// A SelfSubjectRulesReview's status: every rule bound to the user in the namespace.
async fn rules_status(ctx: &Ctx, user: &User, namespace: &str) -> Result<Value, ApiError> {
    let rules = ctx
        .state
        .authorizer
        .rules_for(&ctx.state, user, namespace)
        .await?;
    let mut status = json!({"resourceRules": rules.resource, "nonResourceRules": rules.non_resource,
        "incomplete": !rules.errors.is_empty()});
    if !rules.errors.is_empty() {
        status["evaluationError"] = json!(rules.errors.join(", "));
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_needs_exactly_one_kind_of_attributes() {
        assert!(attribute_causes(&json!({"resourceAttributes": {"verb": "get"}})).is_empty());
        let both =
            attribute_causes(&json!({"resourceAttributes": {}, "nonResourceAttributes": {}}));
        assert_eq!(both[0].field, "spec.nonResourceAttributes");
        let none = attribute_causes(&json!({}));
        assert_eq!(
            none[0].message,
            "Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified"
        );
    }

    #[test]
    fn a_subject_access_review_asks_about_exactly_the_groups_given() {
        let u = subject_of(&json!({"user": "bob", "groups": ["dev"]}));
        assert_eq!(u.groups, ["dev"]);
    }
}
