//! `meta.k8s.io` types (mirrors `k8s.io/apimachinery/pkg/apis/meta`).

pub mod v1;
