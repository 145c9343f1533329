//! apiregistration.k8s.io/v1 defaults, as kube-aggregator's pkg/apis/apiregistration/v1/
//! defaults.go sets them.

use super::types::*;

/// `SetDefaults_ServiceReference` of an APIService's service: port 443.
pub fn set_defaults_api_service(s: &mut APIService) {
    if let Some(service) = &mut s.spec.service {
        service.port.get_or_insert(443);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SetDefaults_ServiceReference: port 443; a local APIService has no service to default.
    #[test]
    fn an_api_services_service_listens_on_443() {
        let mut s: APIService = serde_json::from_value(serde_json::json!({
            "spec": {"service": {"namespace": "a", "name": "b"}, "group": "g", "version": "v1"}
        }))
        .unwrap();
        set_defaults_api_service(&mut s);
        assert_eq!(s.spec.service.unwrap().port, Some(443));
        let mut local = APIService::default();
        set_defaults_api_service(&mut local);
        assert!(local.spec.service.is_none());
    }
}
