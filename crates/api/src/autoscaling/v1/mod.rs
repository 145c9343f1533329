//! autoscaling/v1: HorizontalPodAutoscaler with a CPU target only; the other v2 fields
//! travel in annotations.

mod conversion;
mod metric_conversion;
pub mod metric_types;
mod scale;
mod types;

pub use conversion::{from_hub, to_hub};
pub use scale::{Scale, ScaleSpec, ScaleStatus};
pub use types::*;

/// Applies the v1 defaults (pkg/apis/autoscaling/v1/defaults.go): one replica minimum.
pub fn set_defaults(hpa: &mut HorizontalPodAutoscaler) {
    hpa.spec.min_replicas.get_or_insert(1);
}
