//! The identifier structs and their string forms (R1.20).

use std::fmt;
use std::str::FromStr;

/// An apiVersion string that does not parse (`unexpected GroupVersion string: …`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unexpected GroupVersion string: {0}")]
pub struct ParseError(pub String);

/// An API group and version, e.g. `apps/v1`; the core group is the empty string.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupVersion {
    /// The API group, empty for the core group.
    pub group: String,
    /// The version within the group.
    pub version: String,
}

/// A group, version and kind, e.g. `apps/v1, Kind=Deployment`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupVersionKind {
    /// The API group.
    pub group: String,
    /// The version.
    pub version: String,
    /// The kind (CamelCase type name).
    pub kind: String,
}

/// A group, version and resource, e.g. `apps/v1, Resource=deployments`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupVersionResource {
    /// The API group.
    pub group: String,
    /// The version.
    pub version: String,
    /// The resource (lower-case plural).
    pub resource: String,
}

/// A group and kind without a version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupKind {
    /// The API group.
    pub group: String,
    /// The kind.
    pub kind: String,
}

/// A group and resource without a version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupResource {
    /// The API group.
    pub group: String,
    /// The resource.
    pub resource: String,
}

impl GroupVersion {
    /// Builds a group version from its parts.
    pub fn new(group: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            group: group.into(),
            version: version.into(),
        }
    }

    /// Parses `v1`, `apps/v1`, `""` or `"/"` (both empty) as Kubernetes does (R1.20).
    pub fn parse(s: &str) -> Result<Self, ParseError> {
        if s.is_empty() || s == "/" {
            return Ok(Self::default());
        }
        match s.split_once('/') {
            None => Ok(Self::new("", s)),
            Some((g, v)) if !v.contains('/') => Ok(Self::new(g, v)),
            Some(_) => Err(ParseError(s.to_string())),
        }
    }

    /// True when both group and version are empty.
    pub fn is_empty(&self) -> bool {
        self.group.is_empty() && self.version.is_empty()
    }

    /// This group version with a kind.
    pub fn with_kind(&self, kind: impl Into<String>) -> GroupVersionKind {
        GroupVersionKind {
            group: self.group.clone(),
            version: self.version.clone(),
            kind: kind.into(),
        }
    }

    /// This group version with a resource.
    pub fn with_resource(&self, resource: impl Into<String>) -> GroupVersionResource {
        GroupVersionResource {
            group: self.group.clone(),
            version: self.version.clone(),
            resource: resource.into(),
        }
    }

    /// The apiVersion string (`v1` or `apps/v1`).
    pub fn api_version(&self) -> String {
        join_api_version(&self.group, &self.version)
    }
}

impl fmt::Display for GroupVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.group.is_empty() {
            f.write_str(&self.version)
        } else {
            write!(f, "{}/{}", self.group, self.version)
        }
    }
}

impl FromStr for GroupVersion {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl GroupVersionKind {
    /// Builds a GVK from its parts.
    pub fn new(
        group: impl Into<String>,
        version: impl Into<String>,
        kind: impl Into<String>,
    ) -> Self {
        Self {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
        }
    }

    /// Builds a GVK from an apiVersion and kind; a malformed apiVersion gives an empty group
    /// version, as Go's `FromAPIVersionAndKind` does.
    pub fn from_api_version_and_kind(api_version: &str, kind: &str) -> Self {
        let gv = GroupVersion::parse(api_version).unwrap_or_default();
        Self {
            group: gv.group,
            version: gv.version,
            kind: kind.to_string(),
        }
    }

    /// The group version part.
    pub fn group_version(&self) -> GroupVersion {
        GroupVersion::new(self.group.clone(), self.version.clone())
    }

    /// The group kind part.
    pub fn group_kind(&self) -> GroupKind {
        GroupKind {
            group: self.group.clone(),
            kind: self.kind.clone(),
        }
    }

    /// The apiVersion string of this GVK.
    pub fn api_version(&self) -> String {
        join_api_version(&self.group, &self.version)
    }

    /// True when group, version and kind are all empty.
    pub fn is_empty(&self) -> bool {
        self.group.is_empty() && self.version.is_empty() && self.kind.is_empty()
    }
}

impl fmt::Display for GroupVersionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}, Kind={}", self.group, self.version, self.kind)
    }
}

impl GroupVersionResource {
    /// Builds a GVR from its parts.
    pub fn new(
        group: impl Into<String>,
        version: impl Into<String>,
        resource: impl Into<String>,
    ) -> Self {
        Self {
            group: group.into(),
            version: version.into(),
            resource: resource.into(),
        }
    }

    /// The group version part.
    pub fn group_version(&self) -> GroupVersion {
        GroupVersion::new(self.group.clone(), self.version.clone())
    }

    /// The group resource part.
    pub fn group_resource(&self) -> GroupResource {
        GroupResource {
            group: self.group.clone(),
            resource: self.resource.clone(),
        }
    }
}

impl fmt::Display for GroupVersionResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}, Resource={}",
            self.group, self.version, self.resource
        )
    }
}

impl GroupKind {
    /// Builds a group kind.
    pub fn new(group: impl Into<String>, kind: impl Into<String>) -> Self {
        Self {
            group: group.into(),
            kind: kind.into(),
        }
    }

    /// This group kind at a version.
    pub fn with_version(&self, version: impl Into<String>) -> GroupVersionKind {
        GroupVersionKind {
            group: self.group.clone(),
            version: version.into(),
            kind: self.kind.clone(),
        }
    }
}

impl fmt::Display for GroupKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.group.is_empty() {
            f.write_str(&self.kind)
        } else {
            write!(f, "{}.{}", self.kind, self.group)
        }
    }
}

impl GroupResource {
    /// Builds a group resource.
    pub fn new(group: impl Into<String>, resource: impl Into<String>) -> Self {
        Self {
            group: group.into(),
            resource: resource.into(),
        }
    }
}

impl fmt::Display for GroupResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.group.is_empty() {
            f.write_str(&self.resource)
        } else {
            write!(f, "{}.{}", self.resource, self.group)
        }
    }
}

/// `group/version`, or `version` alone for the core group; one allocation, no formatter.
fn join_api_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        return version.to_string();
    }
    let mut out = String::with_capacity(group.len() + 1 + version.len());
    out.push_str(group);
    out.push('/');
    out.push_str(version);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_group_version_r1_20() {
        assert_eq!(GroupVersion::parse("").unwrap(), GroupVersion::default());
        assert_eq!(GroupVersion::parse("/").unwrap(), GroupVersion::default());
        assert_eq!(
            GroupVersion::parse("v1").unwrap(),
            GroupVersion::new("", "v1")
        );
        assert_eq!(
            GroupVersion::parse("apps/v1").unwrap(),
            GroupVersion::new("apps", "v1")
        );
    }

    #[test]
    fn parse_group_version_rejects_two_slashes_r1_20() {
        let err = GroupVersion::parse("a/b/c").unwrap_err();
        assert_eq!(err.to_string(), "unexpected GroupVersion string: a/b/c");
    }

    #[test]
    fn group_version_string_omits_empty_group_r1_20() {
        assert_eq!(GroupVersion::new("", "v1").to_string(), "v1");
        assert_eq!(GroupVersion::new("apps", "v1").to_string(), "apps/v1");
    }

    #[test]
    fn identifier_strings_match_go_r1_20() {
        assert_eq!(
            GroupVersionKind::new("apps", "v1", "Deployment").to_string(),
            "apps/v1, Kind=Deployment"
        );
        assert_eq!(
            GroupVersionKind::new("", "v1", "Pod").to_string(),
            "/v1, Kind=Pod"
        );
        assert_eq!(
            GroupKind::new("apps", "Deployment").to_string(),
            "Deployment.apps"
        );
        assert_eq!(GroupKind::new("", "Pod").to_string(), "Pod");
        assert_eq!(
            GroupResource::new("apps", "deployments").to_string(),
            "deployments.apps"
        );
    }
}
