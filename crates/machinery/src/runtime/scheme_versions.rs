//! Version priority per group and the version queries built on it (R1.17–R1.19).

use super::error::{Error, Result};
use super::scheme::Scheme;
use crate::schema::{GroupKind, GroupVersion, INTERNAL_VERSION};

impl Scheme {
    /// Sets the version order of one group, replacing any earlier order (R1.17).
    pub fn set_version_priority(&mut self, versions: &[GroupVersion]) -> Result<()> {
        let Some(first) = versions.first() else {
            return Ok(());
        };
        let listed = || {
            versions
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if versions
            .iter()
            .any(|v| v.version.is_empty() || v.version == INTERNAL_VERSION)
        {
            return Err(Error::Scheme(format!(
                "internal versions cannot be prioritized: [{}]",
                listed()
            )));
        }
        if versions.iter().any(|v| v.group != first.group) {
            return Err(Error::Scheme(format!(
                "must register versions for exactly one group: [{}]",
                listed()
            )));
        }
        let order = versions.iter().map(|v| v.version.clone()).collect();
        self.version_priority.insert(first.group.clone(), order);
        Ok(())
    }

    /// The explicit priority of `group`, then its other observed versions in registration
    /// order (R1.18).
    pub fn prioritized_versions_for_group(&self, group: &str) -> Vec<GroupVersion> {
        let mut out: Vec<GroupVersion> = self
            .version_priority
            .get(group)
            .map(|vs| {
                vs.iter()
                    .map(|v| GroupVersion::new(group, v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        for gv in &self.observed_versions {
            if gv.group == group && !out.contains(gv) {
                out.push(gv.clone());
            }
        }
        out
    }

    /// Prioritized versions of every group (groups in first-registration order) (R1.18).
    pub fn prioritized_versions_all_groups(&self) -> Vec<GroupVersion> {
        let mut out = Vec::new();
        for group in self.observed_groups() {
            out.extend(self.prioritized_versions_for_group(&group));
        }
        out
    }

    /// The preferred (first) version of every group (R1.18).
    pub fn preferred_version_all_groups(&self) -> Vec<GroupVersion> {
        self.observed_groups()
            .into_iter()
            .filter_map(|g| self.prioritized_versions_for_group(&g).into_iter().next())
            .collect()
    }

    fn observed_groups(&self) -> Vec<String> {
        let mut groups: Vec<String> = Vec::new();
        for gv in &self.observed_versions {
            if !groups.contains(&gv.group) {
                groups.push(gv.group.clone());
            }
        }
        groups
    }

    /// True when some version of `group` is registered (R1.18).
    pub fn is_group_registered(&self, group: &str) -> bool {
        self.observed_versions.iter().any(|gv| gv.group == group)
    }

    /// True when `gv` is registered (R1.18).
    pub fn is_version_registered(&self, gv: &GroupVersion) -> bool {
        self.observed_versions.contains(gv)
    }

    /// The registered versions of a group kind, in priority order (R1.19).
    pub fn versions_for_group_kind(&self, gk: &GroupKind) -> Vec<GroupVersion> {
        self.prioritized_versions_for_group(&gk.group)
            .into_iter()
            .filter(|gv| self.recognizes(&gv.with_kind(gk.kind.clone())))
            .collect()
    }
}
