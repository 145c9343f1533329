//! autoscaling/v2: the full HorizontalPodAutoscaler, the storage version of the group.

mod conversion;
mod defaults;
mod metric_identity;
mod metric_status;
mod types;

pub use conversion::{from_hub, to_hub};
pub use defaults::{default_scale_down_rules, default_scale_up_rules, set_defaults};
pub use metric_identity::*;
pub use metric_status::*;
pub use types::*;
