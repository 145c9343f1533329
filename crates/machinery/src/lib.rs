//! Kubernetes-style API machinery: schema, runtime, conversion and serializers, with no I/O.
