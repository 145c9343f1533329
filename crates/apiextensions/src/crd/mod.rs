//! CustomResourceDefinition validation on create, update and `/status` update, as
//! kube-apiserver does it (R5.1–R5.19; upstream `pkg/apis/apiextensions/validation`), and the
//! `status.storedVersions` maintenance of its strategy (R5.10–R5.13).

pub mod conversion_rules;
pub mod internal;
mod parts;
mod schema;
mod selectable;
mod stored_versions;
mod warnings;

pub use stored_versions::{
    stored_versions_for_create, stored_versions_for_status_update, stored_versions_for_update,
};
pub use warnings::{crd_warnings_on_create, crd_warnings_on_update};

use crate::field::{ErrorList, FieldError, FieldPath};
use crate::validation::names::{is_dns1035_label, is_dns1123_subdomain};
use internal::{
    hoisted, render_versions, top_level_columns, top_level_subresources, top_level_validation,
};
use kapi_api::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionSpec, CustomResourceDefinitionVersion,
};
use serde_json::Value;

/// Options that differ between create and update (upstream `validationOptions`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    pub(crate) require_recognized_conversion_review_version: bool,
    pub(crate) require_immutable_names: bool,
    pub(crate) require_open_api_schema: bool,
}

const CREATE: Options = Options {
    require_recognized_conversion_review_version: true,
    require_immutable_names: false,
    require_open_api_schema: true,
};

fn is_established(crd: &CustomResourceDefinition) -> bool {
    crd.status
        .conditions
        .iter()
        .flatten()
        .any(|c| c.r#type == "Established" && c.status == "True")
}

/// Validates a CRD being created.
pub fn validate_crd(crd: &CustomResourceDefinition) -> ErrorList {
    let mut errs = validate_metadata_name(crd);
    errs.extend(validate_spec(&crd.spec, CREATE, &FieldPath::new("spec")));
    errs.extend(validate_status(crd));
    errs.extend(validate_stored_versions(
        stored(crd),
        &crd.spec.versions,
        &FieldPath::new("status").child("storedVersions"),
    ));
    errs.extend(parts::validate_api_approval(crd, None));
    errs.extend(validate_preserve_unknown_fields(crd, None));
    errs.extend(conversion_rules::validate_conversion_rules(crd));
    errs
}

/// Validates an update of a CRD (`old` is the stored object).
pub fn validate_crd_update(
    crd: &CustomResourceDefinition,
    old: &CustomResourceDefinition,
) -> ErrorList {
    let opts = Options {
        require_recognized_conversion_review_version: old.spec.conversion.as_ref().is_none_or(
            |c| {
                let v = &c
                    .webhook
                    .as_ref()
                    .map(|w| w.conversion_review_versions.clone())
                    .unwrap_or_default();
                v.is_empty() || v.iter().any(|x| x == "v1" || x == "v1beta1")
            },
        ),
        require_immutable_names: is_established(old),
        require_open_api_schema: old.spec.versions.iter().all(|v| {
            v.schema
                .as_ref()
                .is_some_and(|s| s.open_api_v3_schema.is_some())
        }),
    };
    let spec_path = FieldPath::new("spec");
    let mut errs = validate_spec(&crd.spec, opts, &spec_path);
    if opts.require_immutable_names {
        errs.extend(immutable(
            &spec_path.child("scope"),
            &crd.spec.scope,
            &old.spec.scope,
        ));
        errs.extend(immutable(
            &spec_path.child("names").child("kind"),
            &crd.spec.names.kind,
            &old.spec.names.kind,
        ));
    }
    errs.extend(immutable(
        &spec_path.child("group"),
        &crd.spec.group,
        &old.spec.group,
    ));
    errs.extend(immutable(
        &spec_path.child("names").child("plural"),
        &crd.spec.names.plural,
        &old.spec.names.plural,
    ));
    errs.extend(validate_status(crd));
    errs.extend(validate_stored_versions(
        stored(crd),
        &crd.spec.versions,
        &FieldPath::new("status").child("storedVersions"),
    ));
    errs.extend(parts::validate_api_approval(crd, Some(old)));
    errs.extend(validate_preserve_unknown_fields(crd, Some(old)));
    errs.extend(conversion_rules::validate_conversion_rules(crd));
    errs
}

/// Validates a write through the CRD's `/status` subresource (R5.13: only accepted names;
/// storedVersions is not cross-checked there).
pub fn validate_crd_status_update(crd: &CustomResourceDefinition) -> ErrorList {
    validate_status(crd)
}

fn stored(crd: &CustomResourceDefinition) -> &[String] {
    crd.status.stored_versions.as_deref().unwrap_or(&[])
}

fn immutable(path: &FieldPath, new: &str, old: &str) -> ErrorList {
    if new == old {
        return ErrorList::new();
    }
    vec![FieldError::invalid(
        path,
        Value::String(new.to_string()),
        "field is immutable",
    )]
}

fn validate_metadata_name(crd: &CustomResourceDefinition) -> ErrorList {
    let path = FieldPath::new("metadata").child("name");
    let name = &crd.metadata.name;
    if name.is_empty() {
        return vec![FieldError::required(
            &path,
            "name or generateName is required",
        )];
    }
    let mut errs: ErrorList = is_dns1123_subdomain(name)
        .into_iter()
        .map(|m| FieldError::invalid(&path, Value::String(name.clone()), m))
        .collect();
    if *name != format!("{}.{}", crd.spec.names.plural, crd.spec.group) {
        errs.push(FieldError::invalid(
            &path,
            Value::String(name.clone()),
            "must be spec.names.plural+\".\"+spec.group",
        ));
    }
    errs
}

fn validate_status(crd: &CustomResourceDefinition) -> ErrorList {
    parts::validate_names(
        &crd.status.accepted_names,
        &FieldPath::new("status").child("acceptedNames"),
    )
}

/// `status.storedVersions` must be non-empty, hold the storage version, and only name versions
/// that are still in `spec.versions` (R5.10).
pub fn validate_stored_versions(
    stored: &[String],
    versions: &[CustomResourceDefinitionVersion],
    path: &FieldPath,
) -> ErrorList {
    if stored.is_empty() {
        return vec![FieldError::invalid(
            path,
            Value::Array(Vec::new()),
            "must have at least one stored version",
        )];
    }
    let mut errs = ErrorList::new();
    let stored_json = Value::from(stored.to_vec());
    for v in versions {
        if v.storage && !stored.contains(&v.name) {
            errs.push(FieldError::invalid(
                path,
                stored_json.clone(),
                format!("must have the storage version {}", v.name),
            ));
        }
    }
    for (i, s) in stored.iter().enumerate() {
        if stored[..i].contains(s) || versions.iter().any(|v| &v.name == s) {
            continue;
        }
        let last = stored.iter().rposition(|x| x == s).unwrap_or(i);
        errs.push(FieldError::invalid(
            &path.index(last),
            Value::String(s.clone()),
            format!(
                "missing from spec.versions; {s} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in {s} and removes {s} from status.storedVersions"
            ),
        ));
    }
    errs
}

fn validate_group(spec: &CustomResourceDefinitionSpec, path: &FieldPath) -> ErrorList {
    let at = path.child("group");
    if spec.group.is_empty() {
        return vec![FieldError::required(&at, "")];
    }
    let problems = is_dns1123_subdomain(&spec.group);
    if !problems.is_empty() {
        return vec![FieldError::invalid(
            &at,
            Value::String(spec.group.clone()),
            problems.join(","),
        )];
    }
    if !spec.group.contains('.') {
        return vec![FieldError::invalid(
            &at,
            Value::String(spec.group.clone()),
            "should be a domain with at least one dot",
        )];
    }
    ErrorList::new()
}

fn validate_versions(spec: &CustomResourceDefinitionSpec, path: &FieldPath, errs: &mut ErrorList) {
    let h = hoisted(spec);
    let top_subresources = top_level_subresources(spec, h);
    let mut seen = std::collections::BTreeSet::new();
    let mut unique = true;
    for (i, v) in spec.versions.iter().enumerate() {
        let vp = path.child("versions").index(i);
        unique &= seen.insert(v.name.as_str());
        let problems = is_dns1035_label(&v.name);
        if !problems.is_empty() {
            errs.push(FieldError::invalid(
                &vp.child("name"),
                Value::String(v.name.clone()),
                problems.join(","),
            ));
        }
        let subresources = if h.subresources {
            top_subresources
        } else {
            v.subresources.as_ref()
        };
        let status_enabled = subresources.is_some_and(|s| s.status.is_some());
        errs.extend(parts::validate_deprecation_warning(v, &vp));
        if !h.schema {
            errs.extend(schema::validate_validation(
                v.schema.as_ref(),
                status_enabled,
                &vp.child("schema"),
            ));
        }
        if !h.subresources {
            errs.extend(parts::validate_subresources(
                v.subresources.as_ref(),
                &vp.child("subresources"),
            ));
        }
        if !h.columns {
            for (j, c) in v.additional_printer_columns.iter().enumerate() {
                errs.extend(parts::validate_column(
                    c,
                    &vp.child("additionalPrinterColumns").index(j),
                ));
            }
        }
    }
    let storage_count = spec.versions.iter().filter(|v| v.storage).count();
    if !unique {
        errs.push(FieldError::invalid_rendered(
            &path.child("versions"),
            render_versions(spec),
            "must contain unique version names",
        ));
    }
    if storage_count != 1 {
        errs.push(FieldError::invalid_rendered(
            &path.child("versions"),
            render_versions(spec),
            "must have exactly one version marked as storage version",
        ));
    }
}

fn validate_spec(
    spec: &CustomResourceDefinitionSpec,
    opts: Options,
    path: &FieldPath,
) -> ErrorList {
    let mut errs = validate_group(spec, path);
    errs.extend(parts::validate_enum(
        &path.child("scope"),
        &spec.scope,
        &["Cluster", "Namespaced"],
    ));
    let h = hoisted(spec);
    if top_level_validation(spec, h).is_none_or(|v| v.open_api_v3_schema.is_none()) {
        for (i, v) in spec.versions.iter().enumerate() {
            let missing = v
                .schema
                .as_ref()
                .is_none_or(|s| s.open_api_v3_schema.is_none());
            let at = path
                .child("versions")
                .index(i)
                .child("schema")
                .child("openAPIV3Schema");
            if missing && opts.require_open_api_schema {
                errs.push(FieldError::required(&at, ""));
            } else if missing && !spec.preserve_unknown_fields && v.served {
                errs.push(FieldError::required(
                    &at,
                    "because otherwise all fields are pruned",
                ));
            }
        }
    }
    if spec.preserve_unknown_fields && spec.versions.iter().any(schema::version_has_defaults) {
        errs.push(FieldError::invalid(
            &path.child("preserveUnknownFields"),
            Value::Bool(true),
            "must be false in order to use defaults in the schema",
        ));
    }
    validate_versions(spec, path, &mut errs);
    errs.extend(parts::validate_required_names(
        &spec.names,
        &path.child("names"),
    ));
    errs.extend(parts::validate_names(&spec.names, &path.child("names")));
    if h.schema {
        let status_enabled = top_level_subresources(spec, h).is_some_and(|s| s.status.is_some())
            || spec
                .versions
                .iter()
                .any(|v| v.subresources.as_ref().is_some_and(|s| s.status.is_some()));
        errs.extend(schema::validate_validation(
            top_level_validation(spec, h),
            status_enabled,
            &path.child("validation"),
        ));
    }
    errs.extend(parts::validate_subresources(
        top_level_subresources(spec, h),
        &path.child("subresources"),
    ));
    for (j, c) in top_level_columns(spec, h).iter().enumerate() {
        errs.extend(parts::validate_column(
            c,
            &path.child("additionalPrinterColumns").index(j),
        ));
    }
    let top_selectable = internal::top_level_selectable_fields(spec, h);
    if !top_selectable.is_empty() {
        let s = structural_of(
            top_level_validation(spec, h)
                .or_else(|| spec.versions.first().and_then(|v| v.schema.as_ref())),
        );
        errs.extend(selectable::validate_selectable_fields(
            top_selectable,
            s.as_ref(),
            &path.child("selectableFields"),
        ));
    }
    errs.extend(parts::validate_conversion(spec, opts, path));
    errs
}

fn structural_of(
    v: Option<&kapi_api::apiextensions::v1::CustomResourceValidation>,
) -> Option<crate::structural::Structural> {
    v.and_then(|v| v.open_api_v3_schema.as_deref())
        .and_then(|p| crate::structural::Structural::from_props(p).ok())
}

fn validate_preserve_unknown_fields(
    crd: &CustomResourceDefinition,
    old: Option<&CustomResourceDefinition>,
) -> ErrorList {
    if old.is_some_and(|o| o.spec.preserve_unknown_fields) || !crd.spec.preserve_unknown_fields {
        return ErrorList::new();
    }
    vec![FieldError::invalid(
        &FieldPath::new("spec").child("preserveUnknownFields"),
        Value::Bool(true),
        "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
    )]
}
