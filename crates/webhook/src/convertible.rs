//! The Hub/Convertible pattern: each served version converts to and from one hub type, and
//! is registered in a kapi-machinery [`Scheme`] so that any version reaches any other.

use kapi_machinery::runtime::{self, Object, Scheme};
use kapi_machinery::schema::{GroupVersion, GroupVersionKind, INTERNAL_VERSION};

/// A conversion an author's code refused, with the reason shown to the API client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConvertError(pub String);

impl ConvertError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ConvertError(message.into())
    }
}

/// The hub type of a kind: every version converts through it. It is registered in the
/// Scheme as the group's internal version (`__internal`), never served.
pub trait Hub: Object + Default {}

/// A served version of a kind, converting to and from its hub by value.
pub trait Convertible: Object + Default {
    /// The hub this version converts through.
    type Hub: Hub;
    /// Converts this version into the hub.
    fn into_hub(self) -> Result<Self::Hub, ConvertError>;
    /// Builds this version from the hub.
    fn from_hub(hub: Self::Hub) -> Result<Self, ConvertError>;
}

/// Registers the version `V` as `gvk` and its hub as `group/__internal, Kind`, with the
/// conversion functions both ways, so that `Scheme::unsafe_convert_to_version` goes from
/// any registered version to any other through the hub (R1.12–R1.14).
pub fn register_version<V: Convertible>(
    scheme: &mut Scheme,
    gvk: GroupVersionKind,
) -> runtime::Result<()> {
    let hub = GroupVersionKind::new(gvk.group.clone(), INTERNAL_VERSION, gvk.kind.clone());
    scheme.add_known_type::<V::Hub>(hub)?;
    scheme.add_known_type::<V>(gvk)?;
    scheme.add_conversion_func(|v: V| v.into_hub().map_err(|e| runtime::Error::Conversion(e.0)));
    scheme.add_conversion_func(|h: V::Hub| {
        V::from_hub(h).map_err(|e| runtime::Error::Conversion(e.0))
    });
    Ok(())
}

/// Builds a Scheme of Convertible versions; the order of registration is the version
/// priority (first = preferred).
pub struct SchemeBuilder {
    scheme: Scheme,
    versions: Vec<GroupVersion>,
    error: Option<runtime::Error>,
}

impl SchemeBuilder {
    /// An empty builder; `name` names the Scheme in error messages.
    pub fn new(name: impl Into<String>) -> Self {
        SchemeBuilder {
            scheme: Scheme::new(name),
            versions: Vec::new(),
            error: None,
        }
    }

    /// Adds version `V` served as `group/version, Kind=kind`.
    pub fn version<V: Convertible>(mut self, group: &str, version: &str, kind: &str) -> Self {
        if self.error.is_some() {
            return self;
        }
        let gv = GroupVersion::new(group, version);
        match register_version::<V>(&mut self.scheme, gv.with_kind(kind)) {
            Ok(()) if !self.versions.contains(&gv) => self.versions.push(gv),
            Ok(()) => {}
            Err(e) => self.error = Some(e),
        }
        self
    }

    /// The Scheme with each group's version priority set, or the first registration error.
    pub fn build(mut self) -> runtime::Result<Scheme> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut groups: Vec<&str> = Vec::new();
        for gv in &self.versions {
            if !groups.contains(&gv.group.as_str()) {
                groups.push(&gv.group);
            }
        }
        for group in groups {
            let ordered: Vec<GroupVersion> = self
                .versions
                .iter()
                .filter(|gv| gv.group == group)
                .cloned()
                .collect();
            self.scheme.set_version_priority(&ordered)?;
        }
        Ok(self.scheme)
    }
}
