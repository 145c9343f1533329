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

/// Every admission plugin kube-apiserver registers (`AllOrderedPlugins`): the names
/// `--disable-admission-plugins` accepts.
pub const UPSTREAM_PLUGINS: &[&str] = &[
    "AlwaysAdmit",
    "NamespaceAutoProvision",
    "NamespaceLifecycle",
    "NamespaceExists",
    "LimitPodHardAntiAffinityTopology",
    "LimitRanger",
    "ServiceAccount",
    "NodeRestriction",
    "TaintNodesByCondition",
    "AlwaysPullImages",
    "ImagePolicyWebhook",
    "PodSecurity",
    "PodNodeSelector",
    "Priority",
    "DefaultTolerationSeconds",
    "PodTolerationRestriction",
    "EventRateLimit",
    "ExtendedResourceToleration",
    "DefaultStorageClass",
    "StorageObjectInUseProtection",
    "PodGroupProtection",
    "OwnerReferencesPermissionEnforcement",
    "PersistentVolumeClaimResize",
    "RuntimeClass",
    "CertificateApproval",
    "CertificateSigning",
    "ClusterTrustBundleAttest",
    "CertificateSubjectRestriction",
    "DefaultIngressClass",
    "DenyServiceExternalIPs",
    "PodTopologyLabels",
    "PodGroupWorkloadExists",
    "NodeDeclaredFeatureValidator",
    "JobValidation",
    "PodResizeValidator",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionWebhook",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
    "ResourceQuota",
    "AlwaysDeny",
];

/// A plugin name kube-apiserver does not register: it refuses to start, and so does kapi.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("disable-admission-plugins plugin {0:?} is unknown")]
pub struct UnknownPlugin(pub String);

impl BuiltinPlugins {
    /// Turns off the plugins `names` lists (`--disable-admission-plugins`); answers the
    /// upstream plugins among them that kapi does not run, which the caller warns about
    /// (envtest turns off `ServiceAccount`, which kapi has not got), or the first name no
    /// kube-apiserver knows (a typo must not leave a plugin on behind a warning).
    pub fn disable<'a>(
        &mut self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<Vec<&'a str>, UnknownPlugin> {
        let mut not_run = Vec::new();
        for name in names.into_iter().map(str::trim).filter(|n| !n.is_empty()) {
            if name == storage_protection::PLUGIN_NAME {
                self.storage_object_in_use_protection = false;
            } else if UPSTREAM_PLUGINS.contains(&name) {
                not_run.push(name);
            } else {
                return Err(UnknownPlugin(name.to_owned()));
            }
        }
        Ok(not_run)
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
        let not_run = plugins.disable(["ServiceAccount", "StorageObjectInUseProtection", ""]);
        assert!(!plugins.storage_object_in_use_protection);
        assert_eq!(not_run, Ok(vec!["ServiceAccount"]));
    }

    #[test]
    fn a_name_kube_apiserver_does_not_register_is_refused_with_its_message() {
        let mut plugins = BuiltinPlugins::default();
        let err = plugins
            .disable(["StorageObjectInUseProtecton"])
            .expect_err("a misspelt plugin is refused");
        assert_eq!(
            err.to_string(),
            r#"disable-admission-plugins plugin "StorageObjectInUseProtecton" is unknown"#
        );
        assert!(plugins.storage_object_in_use_protection);
    }
}
