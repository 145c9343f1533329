//! The built-in Kubernetes kinds (core/v1, coordination/v1, autoscaling, apiextensions/v1) registered into a Scheme.
