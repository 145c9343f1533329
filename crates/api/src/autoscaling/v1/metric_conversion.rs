//! Conversion of metric specs and statuses between the v1 annotation form and the hub
//! (pkg/apis/autoscaling/v1/conversion.go, the `*MetricSource` / `*MetricStatus` functions).

use super::metric_types as v1;
use crate::autoscaling::v2 as hub;

const VALUE: &str = "Value";
const AVERAGE_VALUE: &str = "AverageValue";
const UTILIZATION: &str = "Utilization";

fn identifier(name: &str, selector: &Option<crate::meta::LabelSelector>) -> hub::MetricIdentifier {
    hub::MetricIdentifier {
        name: name.to_owned(),
        selector: selector.clone(),
    }
}

/// A v1 annotation metric spec in hub form.
pub fn spec_to_hub(m: &v1::MetricSpec) -> hub::MetricSpec {
    hub::MetricSpec {
        r#type: m.r#type.clone(),
        object: m.object.as_ref().map(|o| hub::ObjectMetricSource {
            described_object: o.target.clone(),
            target: hub::MetricTarget {
                r#type: if o.average_value.is_none() {
                    VALUE
                } else {
                    AVERAGE_VALUE
                }
                .to_owned(),
                value: Some(o.target_value.clone()),
                average_value: o.average_value.clone(),
                average_utilization: None,
            },
            metric: identifier(&o.metric_name, &o.selector),
        }),
        pods: m.pods.as_ref().map(|p| hub::PodsMetricSource {
            metric: identifier(&p.metric_name, &p.selector),
            target: hub::MetricTarget {
                r#type: AVERAGE_VALUE.to_owned(),
                average_value: Some(p.target_average_value.clone()),
                ..Default::default()
            },
        }),
        resource: m.resource.as_ref().map(|r| hub::ResourceMetricSource {
            name: r.name.clone(),
            target: resource_target(r.target_average_utilization, &r.target_average_value),
        }),
        container_resource: m.container_resource.as_ref().map(|r| {
            hub::ContainerResourceMetricSource {
                name: r.name.clone(),
                target: resource_target(r.target_average_utilization, &r.target_average_value),
                container: r.container.clone(),
            }
        }),
        external: m.external.as_ref().map(|e| hub::ExternalMetricSource {
            metric: identifier(&e.metric_name, &e.metric_selector),
            target: hub::MetricTarget {
                r#type: if e.target_value.is_none() {
                    AVERAGE_VALUE
                } else {
                    VALUE
                }
                .to_owned(),
                value: e.target_value.clone(),
                average_value: e.target_average_value.clone(),
                average_utilization: None,
            },
        }),
    }
}

fn resource_target(
    utilization: Option<i32>,
    average: &Option<crate::resource::Quantity>,
) -> hub::MetricTarget {
    hub::MetricTarget {
        r#type: if utilization.is_none() {
            AVERAGE_VALUE
        } else {
            UTILIZATION
        }
        .to_owned(),
        value: None,
        average_value: average.clone(),
        average_utilization: utilization,
    }
}

/// A hub metric spec in v1 annotation form.
pub fn spec_from_hub(m: &hub::MetricSpec) -> v1::MetricSpec {
    v1::MetricSpec {
        r#type: m.r#type.clone(),
        object: m.object.as_ref().map(|o| v1::ObjectMetricSource {
            target: o.described_object.clone(),
            metric_name: o.metric.name.clone(),
            target_value: o.target.value.clone().unwrap_or_default(),
            selector: o.metric.selector.clone(),
            average_value: o.target.average_value.clone(),
        }),
        pods: m.pods.as_ref().map(|p| v1::PodsMetricSource {
            metric_name: p.metric.name.clone(),
            target_average_value: p.target.average_value.clone().unwrap_or_default(),
            selector: p.metric.selector.clone(),
        }),
        resource: m.resource.as_ref().map(|r| v1::ResourceMetricSource {
            name: r.name.clone(),
            target_average_utilization: r.target.average_utilization,
            target_average_value: r.target.average_value.clone(),
        }),
        container_resource: m.container_resource.as_ref().map(|r| {
            v1::ContainerResourceMetricSource {
                name: r.name.clone(),
                target_average_utilization: r.target.average_utilization,
                target_average_value: r.target.average_value.clone(),
                container: r.container.clone(),
            }
        }),
        external: m.external.as_ref().map(|e| v1::ExternalMetricSource {
            metric_name: e.metric.name.clone(),
            metric_selector: e.metric.selector.clone(),
            target_value: e.target.value.clone(),
            target_average_value: e.target.average_value.clone(),
        }),
    }
}

/// A v1 annotation metric status in hub form.
pub fn status_to_hub(m: &v1::MetricStatus) -> hub::MetricStatus {
    hub::MetricStatus {
        r#type: m.r#type.clone(),
        object: m.object.as_ref().map(|o| hub::ObjectMetricStatus {
            metric: identifier(&o.metric_name, &o.selector),
            current: hub::MetricValueStatus {
                value: Some(o.current_value.clone()),
                average_value: o.average_value.clone(),
                average_utilization: None,
            },
            described_object: o.target.clone(),
        }),
        pods: m.pods.as_ref().map(|p| hub::PodsMetricStatus {
            metric: identifier(&p.metric_name, &p.selector),
            current: hub::MetricValueStatus {
                average_value: Some(p.current_average_value.clone()),
                ..Default::default()
            },
        }),
        resource: m.resource.as_ref().map(|r| hub::ResourceMetricStatus {
            name: r.name.clone(),
            current: hub::MetricValueStatus {
                value: None,
                average_value: Some(r.current_average_value.clone()),
                average_utilization: r.current_average_utilization,
            },
        }),
        container_resource: m.container_resource.as_ref().map(|r| {
            hub::ContainerResourceMetricStatus {
                name: r.name.clone(),
                current: hub::MetricValueStatus {
                    value: None,
                    average_value: Some(r.current_average_value.clone()),
                    average_utilization: r.current_average_utilization,
                },
                container: r.container.clone(),
            }
        }),
        external: m.external.as_ref().map(|e| hub::ExternalMetricStatus {
            metric: identifier(&e.metric_name, &e.metric_selector),
            current: hub::MetricValueStatus {
                value: Some(e.current_value.clone()),
                average_value: e.current_average_value.clone(),
                average_utilization: None,
            },
        }),
    }
}

/// A hub metric status in v1 annotation form.
pub fn status_from_hub(m: &hub::MetricStatus) -> v1::MetricStatus {
    v1::MetricStatus {
        r#type: m.r#type.clone(),
        object: m.object.as_ref().map(|o| v1::ObjectMetricStatus {
            target: o.described_object.clone(),
            metric_name: o.metric.name.clone(),
            current_value: o.current.value.clone().unwrap_or_default(),
            selector: o.metric.selector.clone(),
            average_value: o.current.average_value.clone(),
        }),
        pods: m.pods.as_ref().map(|p| v1::PodsMetricStatus {
            metric_name: p.metric.name.clone(),
            current_average_value: p.current.average_value.clone().unwrap_or_default(),
            selector: p.metric.selector.clone(),
        }),
        resource: m.resource.as_ref().map(|r| v1::ResourceMetricStatus {
            name: r.name.clone(),
            current_average_utilization: r.current.average_utilization,
            current_average_value: r.current.average_value.clone().unwrap_or_default(),
        }),
        container_resource: m.container_resource.as_ref().map(|r| {
            v1::ContainerResourceMetricStatus {
                name: r.name.clone(),
                current_average_utilization: r.current.average_utilization,
                current_average_value: r.current.average_value.clone().unwrap_or_default(),
                container: r.container.clone(),
            }
        }),
        external: m.external.as_ref().map(|e| v1::ExternalMetricStatus {
            metric_name: e.metric.name.clone(),
            metric_selector: e.metric.selector.clone(),
            current_value: e.current.value.clone().unwrap_or_default(),
            current_average_value: e.current.average_value.clone(),
        }),
    }
}
