//! networking.k8s.io/v1 defaults, as pkg/apis/networking/v1/defaults.go sets them:
//! NetworkPolicies' policy types and port protocols, IngressClasses' parameters scope.

use super::types::*;

/// `SetDefaults_NetworkPolicyPort`: protocol TCP.
fn set_defaults_network_policy_port(p: &mut NetworkPolicyPort) {
    p.protocol.get_or_insert_with(|| "TCP".into());
}

/// `SetDefaults_NetworkPolicy` with its rules' ports (the generated defaulter's walk):
/// policy types `[Ingress]`, or `[Ingress, Egress]` when egress rules exist.
pub fn set_defaults_network_policy(np: &mut NetworkPolicy) {
    let spec = &mut np.spec;
    if spec.policy_types.is_empty() {
        spec.policy_types.push("Ingress".into());
        if !spec.egress.is_empty() {
            spec.policy_types.push("Egress".into());
        }
    }
    let ingress = spec.ingress.iter_mut().flat_map(|r| &mut r.ports);
    let egress = spec.egress.iter_mut().flat_map(|r| &mut r.ports);
    ingress
        .chain(egress)
        .for_each(set_defaults_network_policy_port);
}

/// `SetDefaults_IngressClass`: parameters, when given, are cluster-scoped unless they say.
pub fn set_defaults_ingress_class(c: &mut IngressClass) {
    if let Some(p) = &mut c.spec.parameters {
        p.scope.get_or_insert_with(|| "Cluster".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(spec: serde_json::Value) -> NetworkPolicy {
        let mut np: NetworkPolicy =
            serde_json::from_value(serde_json::json!({"spec": spec})).unwrap();
        set_defaults_network_policy(&mut np);
        np
    }

    /// SetDefaults_NetworkPolicy: "Any policy that does not specify policyTypes implies at
    /// least Ingress".
    #[test]
    fn a_policy_without_types_is_an_ingress_policy() {
        let np = policy(serde_json::json!({"podSelector": {}}));
        assert_eq!(np.spec.policy_types, ["Ingress"]);
    }

    /// SetDefaults_NetworkPolicy: egress rules add Egress.
    #[test]
    fn a_policy_with_egress_rules_is_also_an_egress_policy() {
        let np =
            policy(serde_json::json!({"egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}]}));
        assert_eq!(np.spec.policy_types, ["Ingress", "Egress"]);
    }

    /// SetDefaults_NetworkPolicy leaves given policy types alone.
    #[test]
    fn given_policy_types_are_kept() {
        let np = policy(serde_json::json!({"policyTypes": ["Egress"], "ingress": [{}]}));
        assert_eq!(np.spec.policy_types, ["Egress"]);
    }

    /// SetDefaults_NetworkPolicyPort, through both rule lists.
    #[test]
    fn rule_ports_default_to_tcp_in_ingress_and_egress() {
        let np = policy(serde_json::json!({
            "ingress": [{"ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}],
            "egress": [{"ports": [{"port": 443}]}]
        }));
        let protocols: Vec<_> = np.spec.ingress[0]
            .ports
            .iter()
            .chain(&np.spec.egress[0].ports)
            .map(|p| p.protocol.as_deref())
            .collect();
        assert_eq!(protocols, [Some("TCP"), Some("UDP"), Some("TCP")]);
    }

    /// SetDefaults_IngressClass: scope Cluster only when parameters are given.
    #[test]
    fn ingress_class_parameters_default_to_cluster_scope() {
        let mut with: IngressClass = serde_json::from_value(serde_json::json!({
            "spec": {"parameters": {"kind": "P", "name": "p"}}
        }))
        .unwrap();
        set_defaults_ingress_class(&mut with);
        assert_eq!(
            with.spec.parameters.unwrap().scope.as_deref(),
            Some("Cluster")
        );
        let mut without = IngressClass::default();
        set_defaults_ingress_class(&mut without);
        assert!(without.spec.parameters.is_none());
    }

    /// SetDefaults_IngressClass keeps a namespaced scope.
    #[test]
    fn a_namespace_scope_of_parameters_is_kept() {
        let mut c: IngressClass = serde_json::from_value(serde_json::json!({
            "spec": {"parameters": {"kind": "P", "name": "p", "scope": "Namespace", "namespace": "a"}}
        }))
        .unwrap();
        set_defaults_ingress_class(&mut c);
        assert_eq!(
            c.spec.parameters.unwrap().scope.as_deref(),
            Some("Namespace")
        );
    }
}
