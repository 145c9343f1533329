//! Custom resources of CustomResourceDefinitions, served by the generic handlers: a CRD in
//! storage becomes one registry entry per served version (codec, strategy, table built from
//! the CRD), and the CRDs themselves get their own strategy (validation, storedVersions).

pub mod codec;

pub mod crd_strategy;
pub mod entry;
pub mod scale;
pub mod strategy;
pub mod table;

use crate::error::StatusCause;
use kapi_apiextensions::FieldError;

pub use crd_strategy::CrdStrategy;
pub use entry::entries_for_crd;

/// Finalizer kapi puts on every CRD so that its objects are deleted before the CRD.
pub const CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

/// Field errors of the apiextensions crate as Status causes (reason, message, field).
pub fn causes(errs: &[FieldError]) -> Vec<StatusCause> {
    errs.iter()
        .map(|e| StatusCause {
            reason: e.error_type.reason().to_string(),
            message: e.body(),
            field: e.field_text().to_string(),
        })
        .collect()
}

/// Discovery order of a version name, lower first: GA (higher major first), then beta,
/// then alpha, then names that are not Kubernetes versions (as kube's version sort).
pub fn version_priority(version: &str) -> u32 {
    let Some(rest) = version.strip_prefix('v') else {
        return 3_000_000;
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let Ok(major) = digits.parse::<u32>() else {
        return 3_000_000;
    };
    let major = major.min(999);
    let tail = &rest[digits.len()..];
    let (rank, minor_text) = if tail.is_empty() {
        (0, "")
    } else if let Some(m) = tail.strip_prefix("beta") {
        (1, m)
    } else if let Some(m) = tail.strip_prefix("alpha") {
        (2, m)
    } else {
        return 3_000_000;
    };
    let minor = if minor_text.is_empty() {
        0
    } else {
        match minor_text.parse::<u32>() {
            Ok(m) => m.min(999),
            Err(_) => return 3_000_000,
        }
    };
    rank * 1_000_000 + (999 - major) * 1000 + (999 - minor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_ga_then_beta_then_alpha_then_others() {
        let mut vs = vec![
            "foo",
            "v1alpha1",
            "v2",
            "v1beta2",
            "v1",
            "v1beta1",
            "v11alpha2",
        ];
        vs.sort_by_key(|v| (version_priority(v), v.to_string()));
        assert_eq!(
            vs,
            vec![
                "v2",
                "v1",
                "v1beta2",
                "v1beta1",
                "v11alpha2",
                "v1alpha1",
                "foo"
            ]
        );
    }
}
