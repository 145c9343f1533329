//! rbac.authorization.k8s.io/v1 defaults, as pkg/apis/rbac/v1/defaults.go sets them: a
//! binding's roleRef and its User and Group subjects are in the RBAC group; a
//! ServiceAccount subject is in the core group.

use super::types::*;

const GROUP_NAME: &str = "rbac.authorization.k8s.io";

/// `SetDefaults_Subject`.
fn set_defaults_subject(s: &mut Subject) {
    if s.api_group.is_empty() {
        match s.kind.as_str() {
            "User" | "Group" => s.api_group = GROUP_NAME.into(),
            // "ServiceAccount" stays in the core group, "".
            _ => {}
        }
    }
}

fn default_binding(role_ref: &mut RoleRef, subjects: &mut [Subject]) {
    if role_ref.api_group.is_empty() {
        role_ref.api_group = GROUP_NAME.into();
    }
    subjects.iter_mut().for_each(set_defaults_subject);
}

/// `SetDefaults_RoleBinding` with its subjects.
pub fn set_defaults_role_binding(b: &mut RoleBinding) {
    default_binding(&mut b.role_ref, &mut b.subjects);
}

/// `SetDefaults_ClusterRoleBinding` with its subjects.
pub fn set_defaults_cluster_role_binding(b: &mut ClusterRoleBinding) {
    default_binding(&mut b.role_ref, &mut b.subjects);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(v: serde_json::Value) -> RoleBinding {
        let mut b: RoleBinding = serde_json::from_value(v).unwrap();
        set_defaults_role_binding(&mut b);
        b
    }

    /// SetDefaults_RoleBinding: an empty roleRef.apiGroup is the RBAC group.
    #[test]
    fn a_role_ref_without_group_is_in_the_rbac_group() {
        let b = binding(serde_json::json!({"roleRef": {"kind": "Role", "name": "r"}}));
        assert_eq!(b.role_ref.api_group, GROUP_NAME);
    }

    /// SetDefaults_Subject: User and Group in the RBAC group, ServiceAccount in core.
    #[test]
    fn subjects_get_the_group_of_their_kind() {
        let b = binding(serde_json::json!({
            "roleRef": {"apiGroup": GROUP_NAME, "kind": "Role", "name": "r"},
            "subjects": [
                {"kind": "User", "name": "alice"},
                {"kind": "Group", "name": "ops"},
                {"kind": "ServiceAccount", "name": "default", "namespace": "a"},
                {"kind": "Robot", "name": "r2"}
            ]
        }));
        let groups: Vec<&str> = b.subjects.iter().map(|s| s.api_group.as_str()).collect();
        assert_eq!(groups, [GROUP_NAME, GROUP_NAME, "", ""]);
    }

    /// SetDefaults_Subject keeps a given group, even a wrong one (validation's to refuse).
    #[test]
    fn a_given_subject_group_is_kept() {
        let b = binding(serde_json::json!({
            "roleRef": {"kind": "Role", "name": "r"},
            "subjects": [{"kind": "User", "name": "alice", "apiGroup": "example.com"}]
        }));
        assert_eq!(b.subjects[0].api_group, "example.com");
    }

    /// SetDefaults_ClusterRoleBinding: the same roleRef and subject rules.
    #[test]
    fn a_cluster_role_binding_is_defaulted_as_a_role_binding() {
        let mut b: ClusterRoleBinding = serde_json::from_value(serde_json::json!({
            "roleRef": {"kind": "ClusterRole", "name": "r"},
            "subjects": [{"kind": "Group", "name": "ops"}]
        }))
        .unwrap();
        set_defaults_cluster_role_binding(&mut b);
        assert_eq!(b.role_ref.api_group, GROUP_NAME);
        assert_eq!(b.subjects[0].api_group, GROUP_NAME);
    }
}
