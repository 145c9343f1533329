//! The validation rules of built-in kinds that have no strategy of their own (RBAC,
//! storage, networking, scheduling, the tolerations of PodTemplates and CronJobs), laid
//! over whatever strategy the kind has: a
//! [`RuledStrategy`] is its inner strategy plus [`KindRules`]' create and update checks.

use super::{networking, rbac, scheduling, storage, tolerations};
use crate::allocator::Allocator;
use crate::error::StatusCause;
use crate::strategy::{CreateStrategy, DeleteStrategy, NameRule, Strategy, UpdateStrategy};
use serde_json::Value;
use std::sync::Arc;

/// Which kind's rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindRules {
    /// Role: policy rules, namespaced.
    Role,
    /// ClusterRole: policy rules.
    ClusterRole,
    /// RoleBinding and ClusterRoleBinding: a fixed roleRef.
    RoleBinding,
    /// PersistentVolumeClaim.
    PersistentVolumeClaim,
    /// PersistentVolume.
    PersistentVolume,
    /// StorageClass.
    StorageClass,
    /// CSIDriver.
    CsiDriver,
    /// VolumeAttributesClass.
    VolumeAttributesClass,
    /// CSIStorageCapacity.
    CsiStorageCapacity,
    /// VolumeAttachment.
    VolumeAttachment,
    /// PriorityClass.
    PriorityClass,
    /// Ingress: rules and paths.
    Ingress,
    /// IngressClass: a fixed controller.
    IngressClass,
    /// EndpointSlice: a fixed address type.
    EndpointSlice,
    /// PodTemplate: its template's tolerations.
    PodTemplate,
    /// CronJob: its job template's pod tolerations.
    CronJob,
}

impl KindRules {
    /// The rules of a built-in resource, if it has some here.
    pub fn of(group: &str, plural: &str) -> Option<Self> {
        Some(match (group, plural) {
            ("rbac.authorization.k8s.io", "roles") => KindRules::Role,
            ("rbac.authorization.k8s.io", "clusterroles") => KindRules::ClusterRole,
            ("rbac.authorization.k8s.io", "rolebindings" | "clusterrolebindings") => {
                KindRules::RoleBinding
            }
            ("", "persistentvolumeclaims") => KindRules::PersistentVolumeClaim,
            ("", "persistentvolumes") => KindRules::PersistentVolume,
            ("storage.k8s.io", "storageclasses") => KindRules::StorageClass,
            ("storage.k8s.io", "csidrivers") => KindRules::CsiDriver,
            ("storage.k8s.io", "volumeattributesclasses") => KindRules::VolumeAttributesClass,
            ("storage.k8s.io", "csistoragecapacities") => KindRules::CsiStorageCapacity,
            ("storage.k8s.io", "volumeattachments") => KindRules::VolumeAttachment,
            ("scheduling.k8s.io", "priorityclasses") => KindRules::PriorityClass,
            ("networking.k8s.io", "ingresses") => KindRules::Ingress,
            ("networking.k8s.io", "ingressclasses") => KindRules::IngressClass,
            ("discovery.k8s.io", "endpointslices") => KindRules::EndpointSlice,
            ("", "podtemplates") => KindRules::PodTemplate,
            ("batch", "cronjobs") => KindRules::CronJob,
            _ => return None,
        })
    }

    /// What a new object (created or updated) must satisfy.
    pub fn validate(self, obj: &Value) -> Vec<StatusCause> {
        match self {
            KindRules::Role => rbac::validate_policy_rules(obj, true),
            KindRules::ClusterRole => rbac::validate_policy_rules(obj, false),
            KindRules::Ingress => networking::validate_ingress(obj),
            KindRules::PodTemplate => {
                let spec = crate::meta::nested(obj, &["template", "spec"]);
                tolerations::pod_spec_tolerations(spec, "template.spec")
            }
            KindRules::CronJob => {
                const SPEC: [&str; 5] = ["spec", "jobTemplate", "spec", "template", "spec"];
                let spec = crate::meta::nested(obj, &SPEC);
                tolerations::pod_spec_tolerations(spec, "spec.jobTemplate.spec.template.spec")
            }
            _ => Vec::new(),
        }
    }

    /// What an update of the main resource may not change.
    pub fn validate_update(self, new: &Value, old: &Value) -> Vec<StatusCause> {
        match self {
            KindRules::Role
            | KindRules::ClusterRole
            | KindRules::Ingress
            | KindRules::PodTemplate
            | KindRules::CronJob => Vec::new(),
            KindRules::RoleBinding => rbac::validate_role_ref_update(new, old)
                .into_iter()
                .collect(),
            KindRules::PersistentVolumeClaim => storage::validate_pvc_update(new, old),
            KindRules::PersistentVolume => storage::validate_pv_update(new, old),
            KindRules::StorageClass => storage::validate_storage_class_update(new, old),
            KindRules::CsiDriver => storage::validate_csi_driver_update(new, old),
            KindRules::VolumeAttributesClass => {
                storage::validate_volume_attributes_class_update(new, old)
            }
            KindRules::CsiStorageCapacity => {
                storage::validate_csi_storage_capacity_update(new, old)
            }
            KindRules::VolumeAttachment => storage::validate_volume_attachment_update(new, old),
            KindRules::PriorityClass => scheduling::validate_priority_class_update(new, old),
            KindRules::IngressClass => networking::validate_ingress_class_update(new, old)
                .into_iter()
                .collect(),
            KindRules::EndpointSlice => networking::validate_endpoint_slice_update(new, old)
                .into_iter()
                .collect(),
        }
    }
}

/// A strategy with a kind's [`KindRules`] added to its validation; everything else is the
/// inner strategy's. (Every trait method is passed on, so a new one must be too.)
pub struct RuledStrategy {
    /// The kind's own strategy.
    pub inner: Arc<dyn Strategy>,
    /// The rules added.
    pub rules: KindRules,
}

impl CreateStrategy for RuledStrategy {
    fn name_rule(&self) -> NameRule {
        self.inner.name_rule()
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        self.inner.prepare_for_create(obj)
    }

    fn validate(&self, obj: &Value) -> Vec<StatusCause> {
        let mut causes = self.inner.validate(obj);
        causes.extend(self.rules.validate(obj));
        causes
    }

    fn create_refusal(&self) -> Option<String> {
        self.inner.create_refusal()
    }
}

impl UpdateStrategy for RuledStrategy {
    fn prepare_for_update(&self, new: &mut Value, old: &Value, subresource: Option<&str>) {
        self.inner.prepare_for_update(new, old, subresource)
    }

    /// The inner strategy's checks; on the main resource also the kind's rules, the new
    /// object's first (upstream's `ValidateX` before its update rules).
    fn validate_update(&self, new: &Value, old: &Value, sub: Option<&str>) -> Vec<StatusCause> {
        let mut causes = self.inner.validate_update(new, old, sub);
        if sub.is_none() {
            causes.extend(self.rules.validate(new));
            causes.extend(self.rules.validate_update(new, old));
        }
        causes
    }

    fn writes_subresource(&self, sub: &str) -> bool {
        self.inner.writes_subresource(sub)
    }

    fn prepare_subresource_update(&self, sub: &str, new: &mut Value, old: &Value) -> bool {
        self.inner.prepare_subresource_update(sub, new, old)
    }

    fn allow_unconditional_update(&self) -> bool {
        self.inner.allow_unconditional_update()
    }

    fn allow_create_on_update(&self) -> bool {
        self.inner.allow_create_on_update()
    }
}

impl DeleteStrategy for RuledStrategy {
    fn delete_finalizer(&self) -> Option<&'static str> {
        self.inner.delete_finalizer()
    }

    fn on_delete_finalizes_content(&self) -> bool {
        self.inner.on_delete_finalizes_content()
    }

    fn blocks_deletion(&self, obj: &Value) -> bool {
        self.inner.blocks_deletion(obj)
    }

    fn grace_period_seconds(&self, obj: &Value, requested: Option<i64>) -> Option<i64> {
        self.inner.grace_period_seconds(obj, requested)
    }
}

impl Strategy for RuledStrategy {
    fn has_status(&self) -> bool {
        self.inner.has_status()
    }

    fn tracks_generation(&self) -> bool {
        self.inner.tracks_generation()
    }

    fn has_view(&self, subresource: &str) -> bool {
        self.inner.has_view(subresource)
    }

    fn view(&self, subresource: &str, obj: &Value) -> Option<Value> {
        self.inner.view(subresource, obj)
    }

    fn apply_view(
        &self,
        subresource: &str,
        obj: &mut Value,
        view: &Value,
    ) -> Result<(), Vec<StatusCause>> {
        self.inner.apply_view(subresource, obj, view)
    }

    fn supports_strategic_merge_patch(&self) -> bool {
        self.inner.supports_strategic_merge_patch()
    }

    fn warnings(&self) -> Vec<String> {
        self.inner.warnings()
    }

    fn field_labels(&self, obj: &Value) -> Vec<(String, String)> {
        self.inner.field_labels(obj)
    }

    fn allocator(&self) -> Option<&dyn Allocator> {
        self.inner.allocator()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::GenericStrategy;
    use serde_json::json;

    fn ruled(rules: KindRules) -> RuledStrategy {
        RuledStrategy {
            inner: Arc::new(GenericStrategy {
                status: true,
                ..GenericStrategy::default()
            }),
            rules,
        }
    }

    #[test]
    fn a_ruled_strategy_adds_create_rules_to_its_inner_strategy() {
        let role = json!({"rules": [{"apiGroups": [""], "resources": ["pods"]}]});
        let causes = ruled(KindRules::Role).validate(&role);
        assert_eq!(causes[0].field, "rules[0].verbs");
        assert!(ruled(KindRules::Role).has_status());
    }

    #[test]
    fn update_rules_apply_to_the_main_resource_only() {
        let s = ruled(KindRules::StorageClass);
        let (old, new) = (json!({"provisioner": "a"}), json!({"provisioner": "b"}));
        assert_eq!(s.validate_update(&new, &old, None).len(), 1);
        assert!(s.validate_update(&new, &old, Some("status")).is_empty());
    }
}
