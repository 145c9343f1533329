//! OpenAPI schemas of HorizontalPodAutoscaler in autoscaling/v2 and autoscaling/v1 (see
//! `openapi_schema_builders` for the helpers and conventions).

use crate::openapi_schema_builders::{
    META, array_of, integer, kind, merged, object, reference, string, time,
};
use serde_json::{Map, Value, json};

const V2: &str = "io.k8s.api.autoscaling.v2.";
const V1: &str = "io.k8s.api.autoscaling.v1.";
const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";

fn v2(name: &str) -> String {
    format!("{V2}{name}")
}

fn v1(name: &str) -> String {
    format!("{V1}{name}")
}

/// The two HorizontalPodAutoscaler kinds.
pub(crate) fn kinds() -> Vec<((&'static str, &'static str, &'static str), Value)> {
    let doc = "HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler, which automatically manages the replica count of any resource implementing the scale subresource based on the metrics specified.";
    vec![
        (
            ("autoscaling", "v2", "HorizontalPodAutoscaler"),
            kind(
                ("autoscaling", "v2", "HorizontalPodAutoscaler"),
                doc,
                vec![
                    (
                        "spec",
                        reference(
                            &v2("HorizontalPodAutoscalerSpec"),
                            "spec is the specification for the behaviour of the autoscaler.",
                        ),
                    ),
                    (
                        "status",
                        reference(
                            &v2("HorizontalPodAutoscalerStatus"),
                            "status is the current information about the autoscaler.",
                        ),
                    ),
                ],
            ),
        ),
        (
            ("autoscaling", "v1", "HorizontalPodAutoscaler"),
            kind(
                ("autoscaling", "v1", "HorizontalPodAutoscaler"),
                "configuration of a horizontal pod autoscaler.",
                vec![
                    (
                        "spec",
                        reference(
                            &v1("HorizontalPodAutoscalerSpec"),
                            "spec defines the behaviour of autoscaler.",
                        ),
                    ),
                    (
                        "status",
                        reference(
                            &v1("HorizontalPodAutoscalerStatus"),
                            "status is the current information about the autoscaler.",
                        ),
                    ),
                ],
            ),
        ),
    ]
}

fn target_ref(prefix: &str, defs: &mut Map<String, Value>) {
    defs.insert(format!("{prefix}CrossVersionObjectReference"), object("CrossVersionObjectReference contains enough information to identify the referred resource.", vec![
        ("kind", string("kind is the kind of the referent.")),
        ("name", string("name is the name of the referent.")),
        ("apiVersion", string("apiVersion is the API version of the referent.")),
    ]));
}

/// The models the two kinds refer to.
pub(crate) fn definitions(defs: &mut Map<String, Value>) {
    target_ref(V2, defs);
    target_ref(V1, defs);
    spec_v2(defs);
    sources_v2(defs);
    behavior_v2(defs);
    status_v2(defs);
    v1_models(defs);
}

fn spec_v2(defs: &mut Map<String, Value>) {
    defs.insert(v2("HorizontalPodAutoscalerSpec"), object("HorizontalPodAutoscalerSpec describes the desired functionality of the HorizontalPodAutoscaler.", vec![
        ("scaleTargetRef", reference(&v2("CrossVersionObjectReference"), "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.")),
        ("minReplicas", integer("int32", "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down. It defaults to 1 pod.")),
        ("maxReplicas", integer("int32", "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.")),
        ("metrics", array_of(&v2("MetricSpec"), "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used). If not set, the default metric will be set to 80% average CPU utilization.")),
        ("behavior", reference(&v2("HorizontalPodAutoscalerBehavior"), "behavior configures the scaling behavior of the target in both Up and Down directions (scaleUp and scaleDown fields respectively).")),
    ]));
    defs.insert(v2("MetricSpec"), object("MetricSpec specifies how to scale based on a single metric (only `type` and one matching field should be set at once).", vec![
        ("type", string("type is the type of metric source: ContainerResource, External, Object, Pods or Resource, each matching a field of the object.")),
        ("object", reference(&v2("ObjectMetricSource"), "object refers to a metric describing a single kubernetes object (for example, hits-per-second on an Ingress object).")),
        ("pods", reference(&v2("PodsMetricSource"), "pods refers to a metric describing each pod in the current scale target, averaged together before comparison to the target value.")),
        ("resource", reference(&v2("ResourceMetricSource"), "resource refers to a resource metric (such as those specified in requests and limits) known to Kubernetes describing each pod in the current scale target.")),
        ("containerResource", reference(&v2("ContainerResourceMetricSource"), "containerResource refers to a resource metric of a single container in each pod of the current scale target.")),
        ("external", reference(&v2("ExternalMetricSource"), "external refers to a global metric that is not associated with any Kubernetes object.")),
    ]));
    defs.insert(v2("MetricTarget"), object("MetricTarget defines the target value, average value, or average utilization of a specific metric.", vec![
        ("type", string("type represents whether the metric type is Utilization, Value, or AverageValue.")),
        ("value", reference(QUANTITY, "value is the target value of the metric (as a quantity).")),
        ("averageValue", reference(QUANTITY, "averageValue is the target value of the average of the metric across all relevant pods (as a quantity).")),
        ("averageUtilization", integer("int32", "averageUtilization is the target value of the average of the resource metric across all relevant pods, as a percentage of the requested value of the resource for the pods.")),
    ]));
    defs.insert(v2("MetricIdentifier"), object("MetricIdentifier defines the name and optionally selector for a metric.", vec![
        ("name", string("name is the name of the given metric.")),
        ("selector", reference(&format!("{META}LabelSelector"), "selector is the string-encoded form of a standard kubernetes label selector for the given metric.")),
    ]));
}

fn sources_v2(defs: &mut Map<String, Value>) {
    let target = || {
        reference(
            &v2("MetricTarget"),
            "target specifies the target value for the given metric.",
        )
    };
    let metric = || {
        reference(
            &v2("MetricIdentifier"),
            "metric identifies the target metric by name and selector.",
        )
    };
    defs.insert(v2("ObjectMetricSource"), object("ObjectMetricSource indicates how to scale on a metric describing a kubernetes object.", vec![
        ("describedObject", reference(&v2("CrossVersionObjectReference"), "describedObject specifies the descriptions of a object, such as kind, name apiVersion.")),
        ("target", target()),
        ("metric", metric()),
    ]));
    defs.insert(v2("PodsMetricSource"), object("PodsMetricSource indicates how to scale on a metric describing each pod in the current scale target.", vec![
        ("metric", metric()),
        ("target", target()),
    ]));
    defs.insert(v2("ResourceMetricSource"), object("ResourceMetricSource indicates how to scale on a resource metric known to Kubernetes, as specified in requests and limits.", vec![
        ("name", string("name is the name of the resource in question.")),
        ("target", target()),
    ]));
    defs.insert(v2("ContainerResourceMetricSource"), object("ContainerResourceMetricSource indicates how to scale on a resource metric of one container of each pod.", vec![
        ("name", string("name is the name of the resource in question.")),
        ("target", target()),
        ("container", string("container is the name of the container in the pods of the scaling target.")),
    ]));
    defs.insert(v2("ExternalMetricSource"), object("ExternalMetricSource indicates how to scale on a metric not associated with any Kubernetes object.", vec![
        ("metric", metric()),
        ("target", target()),
    ]));
}

fn behavior_v2(defs: &mut Map<String, Value>) {
    let rules = |d: &str| reference(&v2("HPAScalingRules"), d);
    defs.insert(v2("HorizontalPodAutoscalerBehavior"), object("HorizontalPodAutoscalerBehavior configures the scaling behavior of the target in both Up and Down directions.", vec![
        ("scaleUp", rules("scaleUp is scaling policy for scaling Up.")),
        ("scaleDown", rules("scaleDown is scaling policy for scaling Down.")),
    ]));
    defs.insert(v2("HPAScalingRules"), object("HPAScalingRules configures the scaling behavior for one direction.", vec![
        ("stabilizationWindowSeconds", integer("int32", "stabilizationWindowSeconds is the number of seconds for which past recommendations should be considered while scaling up or scaling down.")),
        ("selectPolicy", string("selectPolicy is used to specify which policy should be used: Max, Min or Disabled.")),
        ("policies", array_of(&v2("HPAScalingPolicy"), "policies is a list of potential scaling polices which can be used during scaling.")),
        ("tolerance", reference(QUANTITY, "tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas.")),
    ]));
    defs.insert(v2("HPAScalingPolicy"), object("HPAScalingPolicy is a single policy which must hold true for a specified past interval.", vec![
        ("type", string("type is used to specify the scaling policy: Pods or Percent.")),
        ("value", integer("int32", "value contains the amount of change which is permitted by the policy.")),
        ("periodSeconds", integer("int32", "periodSeconds specifies the window of time for which the policy should hold true.")),
    ]));
}

fn status_v2(defs: &mut Map<String, Value>) {
    defs.insert(v2("HorizontalPodAutoscalerStatus"), object("HorizontalPodAutoscalerStatus describes the current status of a horizontal pod autoscaler.", vec![
        ("observedGeneration", integer("int64", "observedGeneration is the most recent generation observed by this autoscaler.")),
        ("lastScaleTime", time("lastScaleTime is the last time the HorizontalPodAutoscaler scaled the number of pods.")),
        ("currentReplicas", integer("int32", "currentReplicas is current number of replicas of pods managed by this autoscaler.")),
        ("desiredReplicas", integer("int32", "desiredReplicas is the desired number of replicas of pods managed by this autoscaler.")),
        ("currentMetrics", array_of(&v2("MetricStatus"), "currentMetrics is the last read state of the metrics used by this autoscaler.")),
        ("conditions", merged(array_of(&v2("HorizontalPodAutoscalerCondition"), "conditions is the set of conditions required for this autoscaler to scale its target, and indicates whether or not those conditions are met."), Some("type"))),
    ]));
    defs.insert(v2("MetricStatus"), json!({
        "type": "object",
        "description": "MetricStatus describes the last-read state of a single metric: `type` and the field of that name.",
        "properties": {"type": string("type is the type of metric source: ContainerResource, External, Object, Pods or Resource.")},
        "x-kubernetes-preserve-unknown-fields": true,
    }));
    defs.insert(v2("HorizontalPodAutoscalerCondition"), object("HorizontalPodAutoscalerCondition describes the state of a HorizontalPodAutoscaler at a certain point.", vec![
        ("type", string("type describes the current condition.")),
        ("status", string("status is the status of the condition (True, False, Unknown).")),
        ("lastTransitionTime", time("lastTransitionTime is the last time the condition transitioned from one status to another.")),
        ("reason", string("reason is the reason for the condition's last transition.")),
        ("message", string("message is a human-readable explanation containing details about the transition.")),
    ]));
}

fn v1_models(defs: &mut Map<String, Value>) {
    defs.insert(v1("HorizontalPodAutoscalerSpec"), object("specification of a horizontal pod autoscaler.", vec![
        ("scaleTargetRef", reference(&v1("CrossVersionObjectReference"), "reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.")),
        ("minReplicas", integer("int32", "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down. It defaults to 1 pod.")),
        ("maxReplicas", integer("int32", "maxReplicas is the upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.")),
        ("targetCPUUtilizationPercentage", integer("int32", "targetCPUUtilizationPercentage is the target average CPU utilization (represented as a percentage of requested CPU) over all the pods; if not specified the default autoscaling policy will be used.")),
    ]));
    defs.insert(v1("HorizontalPodAutoscalerStatus"), object("current status of a horizontal pod autoscaler", vec![
        ("observedGeneration", integer("int64", "observedGeneration is the most recent generation observed by this autoscaler.")),
        ("lastScaleTime", time("lastScaleTime is the last time the HorizontalPodAutoscaler scaled the number of pods.")),
        ("currentReplicas", integer("int32", "currentReplicas is the current number of replicas of pods managed by this autoscaler.")),
        ("desiredReplicas", integer("int32", "desiredReplicas is the desired number of replicas of pods managed by this autoscaler.")),
        ("currentCPUUtilizationPercentage", integer("int32", "currentCPUUtilizationPercentage is the current average CPU utilization over all pods, as a percentage of requested CPU.")),
    ]));
}
