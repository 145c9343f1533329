//! apps/v1 defaults, as pkg/apis/apps/v1/defaults.go sets them: replicas, update
//! strategies, history limits, progress deadline, and the pod template's defaults.

use super::types::*;
use crate::core::v1::set_defaults_pod_template_spec;
use crate::intstr::IntOrString;

fn percent(p: &str) -> Option<IntOrString> {
    Some(IntOrString::String(p.to_owned()))
}

/// `SetDefaults_Deployment`.
pub fn set_defaults_deployment(d: &mut Deployment) {
    let s = &mut d.spec;
    s.replicas.get_or_insert(1);
    if s.strategy.r#type.is_empty() {
        s.strategy.r#type = "RollingUpdate".into();
    }
    if s.strategy.r#type == "RollingUpdate" {
        let ru = s
            .strategy
            .rolling_update
            .get_or_insert_with(RollingUpdateDeployment::default);
        if ru.max_unavailable.is_none() {
            ru.max_unavailable = percent("25%");
        }
        if ru.max_surge.is_none() {
            ru.max_surge = percent("25%");
        }
    }
    s.revision_history_limit.get_or_insert(10);
    s.progress_deadline_seconds.get_or_insert(600);
    set_defaults_pod_template_spec(&mut s.template);
}

/// `SetDefaults_ReplicaSet`.
pub fn set_defaults_replica_set(r: &mut ReplicaSet) {
    r.spec.replicas.get_or_insert(1);
    set_defaults_pod_template_spec(&mut r.spec.template);
}

/// `SetDefaults_StatefulSet`.
pub fn set_defaults_stateful_set(s: &mut StatefulSet) {
    let spec = &mut s.spec;
    if spec.pod_management_policy.is_empty() {
        spec.pod_management_policy = "OrderedReady".into();
    }
    if spec.update_strategy.r#type.is_empty() {
        spec.update_strategy.r#type = "RollingUpdate".into();
    }
    if spec.update_strategy.r#type == "RollingUpdate" {
        let ru = spec
            .update_strategy
            .rolling_update
            .get_or_insert_with(RollingUpdateStatefulSetStrategy::default);
        ru.partition.get_or_insert(0);
    }
    let policy = spec
        .persistent_volume_claim_retention_policy
        .get_or_insert_with(StatefulSetPersistentVolumeClaimRetentionPolicy::default);
    if policy.when_deleted.is_empty() {
        policy.when_deleted = "Retain".into();
    }
    if policy.when_scaled.is_empty() {
        policy.when_scaled = "Retain".into();
    }
    spec.replicas.get_or_insert(1);
    spec.revision_history_limit.get_or_insert(10);
    for c in &mut spec.volume_claim_templates {
        crate::core::v1::set_defaults_pvc(c);
    }
    set_defaults_pod_template_spec(&mut spec.template);
}

/// `SetDefaults_DaemonSet`.
pub fn set_defaults_daemon_set(d: &mut DaemonSet) {
    let spec = &mut d.spec;
    if spec.update_strategy.r#type.is_empty() {
        spec.update_strategy.r#type = "RollingUpdate".into();
    }
    if spec.update_strategy.r#type == "RollingUpdate" {
        let ru = spec
            .update_strategy
            .rolling_update
            .get_or_insert_with(RollingUpdateDaemonSet::default);
        if ru.max_unavailable.is_none() {
            ru.max_unavailable = Some(IntOrString::Int(1));
        }
        if ru.max_surge.is_none() {
            ru.max_surge = Some(IntOrString::Int(0));
        }
    }
    spec.revision_history_limit.get_or_insert(10);
    set_defaults_pod_template_spec(&mut spec.template);
}
