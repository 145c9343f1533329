//! Where a `clientConfig.service` webhook is reached (R4.20): a [`ServiceResolver`] maps
//! `namespace/name` to a host and port. kapi has no cluster network, so the server installs
//! a static map (`--service-resolver ns/name=host:port`) and may add one over the Services
//! and Endpoints it stores; with no answer, the service's DNS name is dialled as upstream.

use async_trait::async_trait;
use std::collections::HashMap;
use std::str::FromStr;

/// A host and port to connect to for a service.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Endpoint {
    /// An IP address or a DNS name.
    pub host: String,
    /// The TCP port.
    pub port: u16,
}

/// Why a service could not be resolved, or a resolver entry is malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// A `--service-resolver` entry is not `namespace/name=host:port`.
    #[error("invalid service resolver entry {0:?}: want namespace/name=host:port")]
    InvalidEntry(String),
    /// The resolver knows the service but cannot give an endpoint (e.g. no ready endpoints).
    #[error("{0}")]
    Unavailable(String),
}

/// Resolves a service reference to an endpoint. `Ok(None)`: this resolver does not know the
/// service (the next one is asked). Implement it over stored Services and Endpoints or
/// EndpointSlices to route webhooks the way a cluster would.
#[async_trait]
pub trait ServiceResolver: Send + Sync {
    /// The endpoint of service `namespace/name` for the service port `port`.
    async fn resolve(
        &self,
        namespace: &str,
        name: &str,
        port: u16,
    ) -> Result<Option<Endpoint>, ResolveError>;
}

/// One `--service-resolver` entry: `namespace/name=host:port`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceOverride {
    /// The service's namespace.
    pub namespace: String,
    /// The service's name.
    pub name: String,
    /// Where to connect instead.
    pub endpoint: Endpoint,
}

impl FromStr for ServiceOverride {
    type Err = ResolveError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ResolveError::InvalidEntry(s.to_owned());
        let (service, target) = s.split_once('=').ok_or_else(bad)?;
        let (namespace, name) = service.split_once('/').ok_or_else(bad)?;
        let (host, port) = target.rsplit_once(':').ok_or_else(bad)?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = port.parse::<u16>().map_err(|_| bad())?;
        if namespace.is_empty() || name.is_empty() || host.is_empty() {
            return Err(bad());
        }
        Ok(ServiceOverride {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            endpoint: Endpoint {
                host: host.to_owned(),
                port,
            },
        })
    }
}

/// A fixed map from `namespace/name` to an endpoint, whatever the service port.
#[derive(Debug, Clone, Default)]
pub struct StaticServiceResolver {
    entries: HashMap<(String, String), Endpoint>,
}

impl StaticServiceResolver {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) one entry.
    pub fn insert(&mut self, entry: ServiceOverride) {
        self.entries
            .insert((entry.namespace, entry.name), entry.endpoint);
    }

    /// Parses `--service-resolver` values (`namespace/name=host:port` each).
    pub fn from_flags<'a>(flags: impl IntoIterator<Item = &'a str>) -> Result<Self, ResolveError> {
        let mut out = Self::new();
        for flag in flags {
            out.insert(flag.parse()?);
        }
        Ok(out)
    }
}

#[async_trait]
impl ServiceResolver for StaticServiceResolver {
    async fn resolve(
        &self,
        namespace: &str,
        name: &str,
        _port: u16,
    ) -> Result<Option<Endpoint>, ResolveError> {
        Ok(self
            .entries
            .get(&(namespace.to_owned(), name.to_owned()))
            .cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_override_parses_namespace_name_host_and_port() {
        let e: ServiceOverride = "ns/hook=127.0.0.1:8443".parse().unwrap();
        assert_eq!((e.namespace.as_str(), e.name.as_str()), ("ns", "hook"));
        assert_eq!(
            e.endpoint,
            Endpoint {
                host: "127.0.0.1".into(),
                port: 8443
            }
        );
    }

    #[test]
    fn service_override_refuses_an_entry_without_port() {
        assert!("ns/hook=127.0.0.1".parse::<ServiceOverride>().is_err());
    }
}
