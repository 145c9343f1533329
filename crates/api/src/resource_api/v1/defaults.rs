//! resource.k8s.io/v1 defaults, as pkg/apis/resource/v1/defaults.go and its generated
//! defaulter set them: a claim's requests allocate exactly one device unless they say;
//! tolerations match with Equal; a slice's device taints carry the time they were added and
//! its node allocatable resource mappings a multiplier of 1.

use super::types::*;

/// `SetDefaults_ExactDeviceRequest` and `SetDefaults_DeviceSubRequest`: mode ExactCount,
/// and then a count of 1.
fn default_allocation(mode: &mut String, count: &mut i64) {
    if mode.is_empty() {
        *mode = "ExactCount".into();
    }
    if mode == "ExactCount" && *count == 0 {
        *count = 1;
    }
}

/// A toleration's `+default="Equal"` operator.
fn default_tolerations(tolerations: &mut [DeviceToleration]) {
    for t in tolerations {
        if t.operator.is_empty() {
            t.operator = "Equal".into();
        }
    }
}

fn default_claim_spec(spec: &mut ResourceClaimSpec) {
    for request in spec.devices.requests.iter_mut().flatten() {
        if let Some(exactly) = &mut request.exactly {
            default_allocation(&mut exactly.allocation_mode, &mut exactly.count);
            default_tolerations(&mut exactly.tolerations);
        }
        for sub in &mut request.first_available {
            default_allocation(&mut sub.allocation_mode, &mut sub.count);
            default_tolerations(&mut sub.tolerations);
        }
    }
}

/// A ResourceClaim: its requests, and the tolerations of its allocation's results.
pub fn set_defaults_resource_claim(c: &mut ResourceClaim) {
    default_claim_spec(&mut c.spec);
    if let Some(allocation) = &mut c.status.allocation {
        for result in &mut allocation.devices.results {
            default_tolerations(&mut result.tolerations);
        }
    }
}

/// A ResourceClaimTemplate: its claim spec's requests.
pub fn set_defaults_resource_claim_template(t: &mut ResourceClaimTemplate) {
    default_claim_spec(&mut t.spec.spec);
}

/// Each device of a ResourceSlice: `SetDefaults_DeviceTaint` (added now, whole seconds)
/// and `SetDefaults_Device` (1.36: a node allocatable resource mapping multiplies by 1
/// unless it says otherwise).
pub fn set_defaults_resource_slice(s: &mut ResourceSlice) {
    for device in &mut s.spec.devices {
        for taint in &mut device.taints {
            taint.time_added.get_or_insert_with(crate::meta::Time::now);
        }
        for mapping in device.node_allocatable_resource_mappings.values_mut() {
            mapping
                .allocation_multiplier
                .get_or_insert_with(|| crate::resource::Quantity::parse("1").unwrap_or_default());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claim(requests: serde_json::Value) -> ResourceClaim {
        let mut c: ResourceClaim =
            serde_json::from_value(json!({"spec": {"devices": {"requests": requests}}})).unwrap();
        set_defaults_resource_claim(&mut c);
        c
    }

    /// SetDefaults_ExactDeviceRequest: ExactCount of 1.
    #[test]
    fn an_exact_request_asks_for_one_device() {
        let c = claim(json!([{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]));
        let exactly = c.spec.devices.requests.unwrap()[0].exactly.clone().unwrap();
        assert_eq!(
            (exactly.allocation_mode.as_str(), exactly.count),
            ("ExactCount", 1)
        );
    }

    /// SetDefaults_ExactDeviceRequest: mode All has no count.
    #[test]
    fn a_request_for_all_devices_gets_no_count() {
        let c = claim(
            json!([{"name": "gpu", "exactly": {"deviceClassName": "gpu", "allocationMode": "All"}}]),
        );
        let exactly = c.spec.devices.requests.unwrap()[0].exactly.clone().unwrap();
        assert_eq!(
            (exactly.allocation_mode.as_str(), exactly.count),
            ("All", 0)
        );
    }

    /// SetDefaults_DeviceSubRequest and the tolerations' `+default="Equal"`.
    #[test]
    fn sub_requests_and_their_tolerations_are_defaulted() {
        let c = claim(json!([{"name": "any", "firstAvailable": [{
            "name": "a", "deviceClassName": "gpu", "tolerations": [{"key": "k", "effect": "NoSchedule"}]
        }]}]));
        let sub = &c.spec.devices.requests.unwrap()[0].first_available[0];
        assert_eq!((sub.allocation_mode.as_str(), sub.count), ("ExactCount", 1));
        assert_eq!(sub.tolerations[0].operator, "Equal");
    }

    /// SetDefaults_DeviceTaint: a taint without time is stamped now.
    #[test]
    fn a_device_taint_gets_the_time_it_was_added() {
        let mut s: ResourceSlice = serde_json::from_value(json!({"spec": {
            "driver": "d", "pool": {"name": "p", "resourceSliceCount": 1},
            "devices": [{"name": "d0", "taints": [{"key": "k", "effect": "NoSchedule"}]}]
        }}))
        .unwrap();
        set_defaults_resource_slice(&mut s);
        assert!(s.spec.devices[0].taints[0].time_added.is_some());
    }

    /// SetDefaults_Device (1.36): a mapping without a multiplier multiplies by 1; a given
    /// multiplier stays.
    #[test]
    fn a_node_allocatable_resource_mapping_multiplies_by_one_by_default() {
        let mut s: ResourceSlice = serde_json::from_value(json!({"spec": {
            "driver": "d", "pool": {"name": "p", "resourceSliceCount": 1},
            "devices": [{"name": "d0", "nodeAllocatableResourceMappings": {
                "cpu": {"capacityKey": "dra.example.com/cores"},
                "memory": {"allocationMultiplier": "2Gi"}
            }}]
        }}))
        .unwrap();
        set_defaults_resource_slice(&mut s);
        let m = &s.spec.devices[0].node_allocatable_resource_mappings;
        let multiplier = |k: &str| {
            m[k].allocation_multiplier
                .as_ref()
                .map(|q| q.as_str().to_owned())
        };
        assert_eq!(multiplier("cpu").as_deref(), Some("1"));
        assert_eq!(multiplier("memory").as_deref(), Some("2Gi"));
    }
}
