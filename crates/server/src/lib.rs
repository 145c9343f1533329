//! The Kubernetes REST API over HTTPS, generic over a resource registry.
