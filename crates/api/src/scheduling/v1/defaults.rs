//! scheduling.k8s.io/v1 defaults, as pkg/apis/scheduling/v1/defaults.go sets them.

use super::types::*;

/// `SetDefaults_PriorityClass`: preemption policy PreemptLowerPriority.
pub fn set_defaults_priority_class(c: &mut PriorityClass) {
    c.preemption_policy
        .get_or_insert_with(|| "PreemptLowerPriority".into());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SetDefaults_PriorityClass fills an unset policy and keeps a given one.
    #[test]
    fn a_priority_class_preempts_lower_priorities_unless_it_says_never() {
        let mut c = PriorityClass::default();
        set_defaults_priority_class(&mut c);
        assert_eq!(c.preemption_policy.as_deref(), Some("PreemptLowerPriority"));
        let mut never = PriorityClass {
            preemption_policy: Some("Never".into()),
            ..PriorityClass::default()
        };
        set_defaults_priority_class(&mut never);
        assert_eq!(never.preemption_policy.as_deref(), Some("Never"));
    }
}
