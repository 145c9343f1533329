//! kube-apiserver's built-in admission plugins that kapi runs, each on by default as
//! upstream's and turned off by name with `--disable-admission-plugins`. Today one:
//! StorageObjectInUseProtection (`kapi_registry::builtin::storage_protection`).

use kapi_registry::builtin::storage_protection;

/// Which built-in admission plugins run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinPlugins {
    /// StorageObjectInUseProtection: protection finalizers on new claims and volumes.
    pub storage_object_in_use_protection: bool,
}

impl Default for BuiltinPlugins {
    fn default() -> Self {
        Self {
            storage_object_in_use_protection: true,
        }
    }
}

impl BuiltinPlugins {
    /// Turns off the plugins `names` lists (`--disable-admission-plugins`); answers the
    /// names of plugins kapi does not run, which the caller warns about (envtest turns off
    /// `ServiceAccount`, which kapi has not got).
    pub fn disable<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
        let mut unknown = Vec::new();
        for name in names.into_iter().map(str::trim).filter(|n| !n.is_empty()) {
            if name == storage_protection::PLUGIN_NAME {
                self.storage_object_in_use_protection = false;
            } else {
                unknown.push(name);
            }
        }
        unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_object_in_use_protection_is_on_by_default() {
        assert!(BuiltinPlugins::default().storage_object_in_use_protection);
    }

    #[test]
    fn disabling_storage_object_in_use_protection_turns_it_off_and_other_names_are_answered() {
        let mut plugins = BuiltinPlugins::default();
        let unknown = plugins.disable(["ServiceAccount", "StorageObjectInUseProtection", ""]);
        assert!(!plugins.storage_object_in_use_protection);
        assert_eq!(unknown, ["ServiceAccount"]);
    }
}
