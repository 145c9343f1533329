//! autoscaling/v2 ⇄ hub conversion (pkg/apis/autoscaling/v2/conversion.go): the shapes
//! are the same; annotations that other versions use to carry fields are dropped both ways.

use super::types::HorizontalPodAutoscaler;
use crate::autoscaling::annotations::drop_round_trip_annotations;
use crate::autoscaling::internal::HorizontalPodAutoscaler as Hub;

/// Converts a v2 object to the hub.
pub fn to_hub(v2: HorizontalPodAutoscaler) -> Hub {
    let HorizontalPodAutoscaler {
        kind,
        api_version,
        mut metadata,
        spec,
        status,
    } = v2;
    drop_round_trip_annotations(&mut metadata.annotations);
    Hub {
        kind,
        api_version,
        metadata,
        spec,
        status,
    }
}

/// Converts a hub object to v2.
pub fn from_hub(hub: Hub) -> HorizontalPodAutoscaler {
    let Hub {
        kind,
        api_version,
        mut metadata,
        spec,
        status,
    } = hub;
    drop_round_trip_annotations(&mut metadata.annotations);
    HorizontalPodAutoscaler {
        kind,
        api_version,
        metadata,
        spec,
        status,
    }
}
