//! The shape of the generated resource table (`resources.rs`): one row per resource as
//! kube-apiserver's aggregated discovery lists it.

/// A subresource: its name, verbs and the kind it answers with (empty: the resource's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubresourceSpec {
    /// Name, e.g. `status`.
    pub name: &'static str,
    /// Discovery verbs.
    pub verbs: &'static [&'static str],
    /// Group of the response kind (`autoscaling` for `scale`).
    pub group: &'static str,
    /// Version of the response kind (empty: the resource's).
    pub version: &'static str,
    /// Response kind (`Scale`, `Eviction`, …).
    pub kind: &'static str,
}

impl SubresourceSpec {
    /// A subresource answering with the resource's own kind.
    pub const fn own(name: &'static str, verbs: &'static [&'static str]) -> Self {
        Self {
            name,
            verbs,
            group: "",
            version: "",
            kind: "",
        }
    }
}

/// One resource of upstream's discovery.
#[derive(Debug, Clone, Copy)]
pub struct Resource {
    /// Group ("" for core).
    pub group: &'static str,
    /// Version.
    pub version: &'static str,
    /// Plural name.
    pub plural: &'static str,
    /// Singular name.
    pub singular: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
    /// Verbs, sorted.
    pub verbs: &'static [&'static str],
    /// Short names.
    pub short_names: &'static [&'static str],
    /// Categories.
    pub categories: &'static [&'static str],
    /// Subresources.
    pub subresources: &'static [SubresourceSpec],
    /// Order of the group in discovery.
    pub group_priority: u32,
    /// Order of the version in its group.
    pub version_priority: u32,
}
