//! The status PersistentVolumes and PersistentVolumeClaims start with, as kube-apiserver's
//! strategies give it (pkg/registry/core/persistentvolume{,claim}/strategy.go): a new
//! volume or claim is `Pending` whatever status it was sent with, and a volume records when
//! its phase last changed (`status.lastPhaseTransitionTime`).

use super::GenericStrategy;
use crate::meta;
use crate::strategy::{CreateStrategy, DeleteStrategy, NameRule, Strategy, UpdateStrategy};
use serde_json::{Value, json};

/// Which of the two kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Volume {
    /// A PersistentVolume: its phase transitions are timed.
    Persistent,
    /// A PersistentVolumeClaim.
    Claim,
}

/// A PersistentVolume's or PersistentVolumeClaim's strategy: the generic one, with the
/// status rules of upstream's.
pub struct VolumeStrategy {
    /// Everything but the status rules.
    pub generic: GenericStrategy,
    /// Which kind.
    pub volume: Volume,
}

/// The phase of a volume, `""` when it has none.
fn phase(obj: &Value) -> &str {
    meta::nested(obj, &["status", "phase"])
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn transition_time(obj: &Value) -> Option<&Value> {
    meta::nested(obj, &["status", "lastPhaseTransitionTime"]).filter(|t| !t.is_null())
}

/// PersistentVolume's `persistentvolumeStatusStrategy.PrepareForUpdate`: a changed phase is
/// timed now unless the writer set a new time; an unchanged phase keeps the old time unless
/// the writer set one.
fn time_phase_transition(new: &mut Value, old: &Value) {
    let given = transition_time(new).cloned();
    let time = if phase(new) == phase(old) {
        given.or_else(|| transition_time(old).cloned())
    } else if given.is_none() || given.as_ref() == transition_time(old) {
        Some(json!(meta::now_rfc3339()))
    } else {
        given
    };
    if let (Some(time), Some(status)) = (time, new.get_mut("status").and_then(Value::as_object_mut))
    {
        status.insert("lastPhaseTransitionTime".into(), time);
    }
}

impl CreateStrategy for VolumeStrategy {
    fn name_rule(&self) -> NameRule {
        self.generic.name_rule()
    }

    /// The status is dropped (the store does that for kinds with a status subresource) and
    /// starts `Pending`: a volume's `PrepareForCreate` sets it with the time; a claim's
    /// clears it and `SetDefaults_PersistentVolumeClaim` gives the phase on every read.
    fn prepare_for_create(&self, obj: &mut Value) {
        self.generic.prepare_for_create(obj);
        let status = match self.volume {
            Volume::Persistent => {
                json!({"phase": "Pending", "lastPhaseTransitionTime": meta::now_rfc3339()})
            }
            Volume::Claim => json!({"phase": "Pending"}),
        };
        if let Some(map) = obj.as_object_mut() {
            map.insert("status".into(), status);
        }
    }
}

impl UpdateStrategy for VolumeStrategy {
    fn prepare_for_update(&self, new: &mut Value, old: &Value, subresource: Option<&str>) {
        if self.volume == Volume::Persistent && subresource == Some("status") {
            time_phase_transition(new, old);
        }
    }
}

impl DeleteStrategy for VolumeStrategy {}

impl Strategy for VolumeStrategy {
    fn has_status(&self) -> bool {
        self.generic.has_status()
    }

    fn tracks_generation(&self) -> bool {
        self.generic.tracks_generation()
    }

    fn warnings(&self) -> Vec<String> {
        self.generic.warnings()
    }

    fn field_labels(&self, obj: &Value) -> Vec<(String, String)> {
        self.generic.field_labels(obj)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strategy(volume: Volume) -> VolumeStrategy {
        VolumeStrategy {
            generic: GenericStrategy {
                status: true,
                ..GenericStrategy::default()
            },
            volume,
        }
    }

    /// persistentvolumeStrategy.PrepareForCreate: Pending, timed now.
    #[test]
    fn a_new_volume_is_pending_since_now() {
        let mut pv = json!({"metadata": {"name": "pv"}, "spec": {}});
        strategy(Volume::Persistent).prepare_for_create(&mut pv);
        assert_eq!(pv["status"]["phase"], "Pending");
        let time = pv["status"]["lastPhaseTransitionTime"].as_str().unwrap();
        assert!(time.len() == 20 && time.ends_with('Z'), "{time}");
    }

    /// persistentvolumeclaimStrategy.PrepareForCreate clears the status; the phase the
    /// client sent does not survive.
    #[test]
    fn a_new_claim_is_pending_whatever_it_says() {
        let mut pvc = json!({"metadata": {"name": "c"}, "status": {"phase": "Bound"}});
        strategy(Volume::Claim).prepare_for_create(&mut pvc);
        assert_eq!(pvc["status"], json!({"phase": "Pending"}));
    }

    /// persistentvolumeStatusStrategy.PrepareForUpdate: a phase change is timed now.
    #[test]
    fn a_volumes_phase_change_is_timed() {
        let old = json!({"status": {"phase": "Pending", "lastPhaseTransitionTime": "2020-01-01T00:00:00Z"}});
        let mut new = json!({"status": {"phase": "Available", "lastPhaseTransitionTime": "2020-01-01T00:00:00Z"}});
        strategy(Volume::Persistent).prepare_for_update(&mut new, &old, Some("status"));
        assert_ne!(
            new["status"]["lastPhaseTransitionTime"],
            "2020-01-01T00:00:00Z"
        );
        assert_eq!(new["status"]["phase"], "Available");
    }

    /// persistentvolumeStatusStrategy.PrepareForUpdate: the same phase keeps its time.
    #[test]
    fn a_volumes_unchanged_phase_keeps_its_time() {
        let old = json!({"status": {"phase": "Pending", "lastPhaseTransitionTime": "2020-01-01T00:00:00Z"}});
        let mut new = json!({"status": {"phase": "Pending", "message": "waiting"}});
        strategy(Volume::Persistent).prepare_for_update(&mut new, &old, Some("status"));
        assert_eq!(
            new["status"]["lastPhaseTransitionTime"],
            "2020-01-01T00:00:00Z"
        );
    }

    /// persistentvolumeStatusStrategy.PrepareForUpdate: a time the writer chose is kept.
    #[test]
    fn a_transition_time_the_writer_sets_is_kept() {
        let old = json!({"status": {"phase": "Pending", "lastPhaseTransitionTime": "2020-01-01T00:00:00Z"}});
        let mut new = json!({"status": {"phase": "Bound", "lastPhaseTransitionTime": "2021-06-01T00:00:00Z"}});
        strategy(Volume::Persistent).prepare_for_update(&mut new, &old, Some("status"));
        assert_eq!(
            new["status"]["lastPhaseTransitionTime"],
            "2021-06-01T00:00:00Z"
        );
    }
}
