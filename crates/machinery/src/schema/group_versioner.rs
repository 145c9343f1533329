//! GroupVersioner: chooses the target kind among the kinds an object is registered as (R1.15).

use super::{GroupKind, GroupVersion, GroupVersionKind, INTERNAL_VERSION};
use std::fmt::Debug;

/// Chooses a target GVK among an object's registered kinds, or says none fits.
pub trait GroupVersioner: Debug + Send + Sync {
    /// The target kind for an object registered as `kinds`, if any.
    fn kind_for_group_version_kinds(&self, kinds: &[GroupVersionKind]) -> Option<GroupVersionKind>;

    /// A stable identifier of this versioner (used in codec identifiers).
    fn identifier(&self) -> String;

    /// This versioner as a single group version, when it is one (the Scheme caches its
    /// conversion plans per type and group version). `None` by default.
    fn as_group_version(&self) -> Option<&GroupVersion> {
        None
    }
}

impl GroupVersioner for GroupVersion {
    /// Exact group+version first; else any kind of the same group, rewritten to this version.
    fn kind_for_group_version_kinds(&self, kinds: &[GroupVersionKind]) -> Option<GroupVersionKind> {
        if let Some(k) = kinds
            .iter()
            .find(|k| k.group == self.group && k.version == self.version)
        {
            return Some(k.clone());
        }
        kinds
            .iter()
            .find(|k| k.group == self.group)
            .map(|k| self.with_kind(k.kind.clone()))
    }

    fn identifier(&self) -> String {
        self.to_string()
    }

    fn as_group_version(&self) -> Option<&GroupVersion> {
        Some(self)
    }
}

/// Several group versions; the best match among them wins, exact matches first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupVersions(pub Vec<GroupVersion>);

impl GroupVersioner for GroupVersions {
    fn kind_for_group_version_kinds(&self, kinds: &[GroupVersionKind]) -> Option<GroupVersionKind> {
        let targets: Vec<GroupVersionKind> = self
            .0
            .iter()
            .filter_map(|gv| gv.kind_for_group_version_kinds(kinds))
            .collect();
        if let Some(exact) = targets.iter().find(|t| kinds.contains(t)) {
            return Some(exact.clone());
        }
        targets.into_iter().next()
    }

    fn identifier(&self) -> String {
        self.0
            .iter()
            .map(|gv| gv.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Targets the internal (hub) version of the object's group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InternalGroupVersioner;

impl GroupVersioner for InternalGroupVersioner {
    fn kind_for_group_version_kinds(&self, kinds: &[GroupVersionKind]) -> Option<GroupVersionKind> {
        if let Some(k) = kinds.iter().find(|k| k.version == INTERNAL_VERSION) {
            return Some(k.clone());
        }
        kinds
            .first()
            .map(|k| GroupVersionKind::new(k.group.clone(), INTERNAL_VERSION, k.kind.clone()))
    }

    fn identifier(&self) -> String {
        "internal".to_string()
    }
}

/// Never matches: conversion is disabled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DisabledGroupVersioner;

impl GroupVersioner for DisabledGroupVersioner {
    fn kind_for_group_version_kinds(&self, _: &[GroupVersionKind]) -> Option<GroupVersionKind> {
        None
    }

    fn identifier(&self) -> String {
        "disabled".to_string()
    }
}

/// Converts kinds of the accepted groups (and kinds) to one target version; when
/// `coerce` is set, any first kind is rewritten to the target.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MultiGroupVersioner {
    /// The version to convert to.
    pub target: GroupVersion,
    /// Group kinds accepted; an empty kind accepts the whole group.
    pub accepted: Vec<GroupKind>,
    /// Accept any kind, taking the first.
    pub coerce: bool,
}

impl GroupVersioner for MultiGroupVersioner {
    fn kind_for_group_version_kinds(&self, kinds: &[GroupVersionKind]) -> Option<GroupVersionKind> {
        for src in kinds {
            let accepted = self
                .accepted
                .iter()
                .any(|gk| gk.group == src.group && (gk.kind.is_empty() || gk.kind == src.kind));
            if accepted {
                return Some(self.target.with_kind(src.kind.clone()));
            }
        }
        if self.coerce {
            return kinds.first().map(|k| self.target.with_kind(k.kind.clone()));
        }
        None
    }

    fn identifier(&self) -> String {
        let groups: Vec<String> = self.accepted.iter().map(|g| g.to_string()).collect();
        format!("{}:{}:{}", self.target, groups.join(","), self.coerce)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gvk(g: &str, v: &str, k: &str) -> GroupVersionKind {
        GroupVersionKind::new(g, v, k)
    }

    #[test]
    fn group_version_prefers_exact_match_then_same_group_r1_15() {
        let gv = GroupVersion::new("autoscaling", "v2");
        let kinds = [
            gvk("autoscaling", "v1", "HPA"),
            gvk("autoscaling", "v2", "HPA2"),
        ];
        assert_eq!(
            gv.kind_for_group_version_kinds(&kinds),
            Some(gvk("autoscaling", "v2", "HPA2"))
        );
        let only_v1 = [gvk("autoscaling", "v1", "HPA")];
        assert_eq!(
            gv.kind_for_group_version_kinds(&only_v1),
            Some(gvk("autoscaling", "v2", "HPA"))
        );
        assert_eq!(
            gv.kind_for_group_version_kinds(&[gvk("apps", "v1", "X")]),
            None
        );
    }

    #[test]
    fn group_versions_pick_exact_match_over_rewrite_r1_15() {
        let gvs = GroupVersions(vec![
            GroupVersion::new("a", "v2"),
            GroupVersion::new("b", "v1"),
        ]);
        let kinds = [gvk("a", "v1", "K"), gvk("b", "v1", "K")];
        assert_eq!(
            gvs.kind_for_group_version_kinds(&kinds),
            Some(gvk("b", "v1", "K"))
        );
    }

    #[test]
    fn internal_versioner_rewrites_first_kind_to_internal_r1_15() {
        let kinds = [gvk("a", "v1", "K")];
        assert_eq!(
            InternalGroupVersioner.kind_for_group_version_kinds(&kinds),
            Some(gvk("a", INTERNAL_VERSION, "K"))
        );
        let with_internal = [gvk("a", "v1", "K"), gvk("a", INTERNAL_VERSION, "K")];
        assert_eq!(
            InternalGroupVersioner.kind_for_group_version_kinds(&with_internal),
            Some(gvk("a", INTERNAL_VERSION, "K"))
        );
    }

    #[test]
    fn disabled_versioner_never_matches_r1_15() {
        assert_eq!(
            DisabledGroupVersioner.kind_for_group_version_kinds(&[gvk("", "v1", "K")]),
            None
        );
    }

    #[test]
    fn multi_group_versioner_accepts_listed_groups_or_coerces_r1_15() {
        let mut v = MultiGroupVersioner {
            target: GroupVersion::new("meta.k8s.io", "v1"),
            accepted: vec![GroupKind::new("meta.k8s.io", "")],
            coerce: false,
        };
        assert_eq!(
            v.kind_for_group_version_kinds(&[gvk("apps", "v1", "K")]),
            None
        );
        v.coerce = true;
        assert_eq!(
            v.kind_for_group_version_kinds(&[gvk("apps", "v1", "K")]),
            Some(gvk("meta.k8s.io", "v1", "K"))
        );
    }
}
