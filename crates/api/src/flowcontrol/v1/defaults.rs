//! flowcontrol.apiserver.k8s.io/v1 defaults, as pkg/apis/flowcontrol/v1/defaults.go sets
//! them: a FlowSchema's matching precedence; a priority level's concurrency shares, lendable
//! percent and queuing.

use super::types::*;

/// `SetDefaults_FlowSchemaSpec`: matching precedence 1000.
pub fn set_defaults_flow_schema(f: &mut FlowSchema) {
    if f.spec.matching_precedence == 0 {
        f.spec.matching_precedence = 1000;
    }
}

/// `SetDefaults_QueuingConfiguration`: 64 queues, hand size 8, 50 requests a queue.
fn default_queuing(q: &mut QueuingConfiguration) {
    if q.hand_size == 0 {
        q.hand_size = 8;
    }
    if q.queues == 0 {
        q.queues = 64;
    }
    if q.queue_length_limit == 0 {
        q.queue_length_limit = 50;
    }
}

/// `SetDefaults_LimitedPriorityLevelConfiguration` (30 shares, nothing lent) and
/// `SetDefaults_ExemptPriorityLevelConfiguration` (0 shares, nothing lent), with the
/// limited level's queuing.
pub fn set_defaults_priority_level_configuration(p: &mut PriorityLevelConfiguration) {
    if let Some(limited) = &mut p.spec.limited {
        limited.nominal_concurrency_shares.get_or_insert(30);
        limited.lendable_percent.get_or_insert(0);
        if let Some(q) = &mut limited.limit_response.queuing {
            default_queuing(q);
        }
    }
    if let Some(exempt) = &mut p.spec.exempt {
        exempt.nominal_concurrency_shares.get_or_insert(0);
        exempt.lendable_percent.get_or_insert(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn level(spec: serde_json::Value) -> PriorityLevelConfiguration {
        let mut p: PriorityLevelConfiguration =
            serde_json::from_value(json!({"spec": spec})).unwrap();
        set_defaults_priority_level_configuration(&mut p);
        p
    }

    /// SetDefaults_FlowSchemaSpec: precedence 0 (unset) is 1000.
    #[test]
    fn a_flow_schema_without_precedence_gets_1000() {
        let mut f = FlowSchema::default();
        set_defaults_flow_schema(&mut f);
        assert_eq!(f.spec.matching_precedence, 1000);
    }

    /// SetDefaults_LimitedPriorityLevelConfiguration and _QueuingConfiguration.
    #[test]
    fn a_limited_level_gets_30_shares_and_64_queues_of_8_by_50() {
        let p = level(json!({"type": "Limited", "limited": {
            "limitResponse": {"type": "Queue", "queuing": {}}
        }}));
        let limited = p.spec.limited.unwrap();
        assert_eq!(limited.nominal_concurrency_shares, Some(30));
        assert_eq!(limited.lendable_percent, Some(0));
        let q = limited.limit_response.queuing.unwrap();
        assert_eq!((q.queues, q.hand_size, q.queue_length_limit), (64, 8, 50));
    }

    /// SetDefaults_LimitedPriorityLevelConfiguration keeps an explicit 0 shares (v1 allows it).
    #[test]
    fn zero_shares_given_stay_zero() {
        let p = level(json!({"type": "Limited", "limited": {
            "nominalConcurrencyShares": 0, "limitResponse": {"type": "Reject"}
        }}));
        assert_eq!(p.spec.limited.unwrap().nominal_concurrency_shares, Some(0));
    }

    /// SetDefaults_ExemptPriorityLevelConfiguration: 0 shares, 0 % lendable.
    #[test]
    fn an_exempt_level_gets_no_shares_and_lends_nothing() {
        let p = level(json!({"type": "Exempt", "exempt": {}}));
        let exempt = p.spec.exempt.unwrap();
        assert_eq!(exempt.nominal_concurrency_shares, Some(0));
        assert_eq!(exempt.lendable_percent, Some(0));
    }
}
