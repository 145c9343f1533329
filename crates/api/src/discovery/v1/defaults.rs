//! discovery.k8s.io/v1 defaults, as pkg/apis/discovery/v1/defaults.go sets them: an
//! EndpointSlice's ports get an empty name and protocol TCP.

use super::types::*;

/// `SetDefaults_EndpointPort`.
fn set_defaults_endpoint_port(p: &mut EndpointPort) {
    p.name.get_or_insert_with(String::new);
    p.protocol.get_or_insert_with(|| "TCP".into());
}

/// An EndpointSlice: `SetDefaults_EndpointPort` for each port (the generated defaulter's walk).
pub fn set_defaults_endpoint_slice(s: &mut EndpointSlice) {
    s.ports
        .iter_mut()
        .flatten()
        .for_each(set_defaults_endpoint_port);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(ports: serde_json::Value) -> EndpointSlice {
        let mut s: EndpointSlice =
            serde_json::from_value(serde_json::json!({"addressType": "IPv4", "ports": ports}))
                .unwrap();
        set_defaults_endpoint_slice(&mut s);
        s
    }

    /// SetDefaults_EndpointPort: name "" and protocol TCP when unset.
    #[test]
    fn a_port_gets_an_empty_name_and_tcp() {
        let s = slice(serde_json::json!([{"port": 8080}]));
        let p = &s.ports.unwrap()[0];
        assert_eq!(
            (p.name.as_deref(), p.protocol.as_deref()),
            (Some(""), Some("TCP"))
        );
    }

    /// SetDefaults_EndpointPort keeps what the port says.
    #[test]
    fn a_named_udp_port_is_kept() {
        let s = slice(serde_json::json!([{"port": 53, "name": "dns", "protocol": "UDP"}]));
        let p = &s.ports.unwrap()[0];
        assert_eq!(
            (p.name.as_deref(), p.protocol.as_deref()),
            (Some("dns"), Some("UDP"))
        );
    }

    /// Without ports (null: "all ports") nothing is added.
    #[test]
    fn a_slice_without_ports_stays_without() {
        let s = slice(serde_json::Value::Null);
        assert!(s.ports.is_none());
    }
}
