//! Schema work per custom resource on a write: coerce (metadata + prune), default, validate,
//! for a ~1 KiB object under a 20-field schema (issue 5 figure: target < 5 µs).

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use kapi_apiextensions::cel::CelValidator;
use kapi_apiextensions::{
    CoerceOptions, CustomResourceValidator, Structural, apply_defaults, coerce_custom_resource,
    validate_openapi,
};
use serde_json::{Value, json};
use std::hint::black_box;

fn schema(with_cel: bool) -> Structural {
    let mut spec = json!({"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "maxLength": 63, "pattern": "^[a-z][a-z0-9-]*$"},
        "displayName": {"type": "string", "maxLength": 128},
        "description": {"type": "string"},
        "replicas": {"type": "integer", "minimum": 0, "maximum": 100, "default": 1},
        "minReplicas": {"type": "integer", "minimum": 0, "default": 0},
        "paused": {"type": "boolean", "default": false},
        "mode": {"type": "string", "enum": ["Fast", "Safe", "Off"], "default": "Safe"},
        "image": {"type": "string", "minLength": 1},
        "imagePullPolicy": {"type": "string", "enum": ["Always", "IfNotPresent", "Never"]},
        "port": {"x-kubernetes-int-or-string": true},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1},
        "startAt": {"type": "string", "format": "date-time"},
        "owner": {"type": "string", "format": "email"},
        "id": {"type": "string", "format": "uuid"},
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "maxItems": 16, "items": {"type": "string"}},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
        "resources": {"type": "object", "properties": {"cpu": {"type": "string"}, "memory": {"type": "string"}}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "containerPort": {"type": "integer"}}}},
        "timeoutSeconds": {"type": "integer", "format": "int32", "default": 30},
        "priority": {"type": "integer", "minimum": -10, "maximum": 10}
    }});
    if with_cel {
        spec["x-kubernetes-validations"] = json!([{"rule": "self.minReplicas <= self.replicas", "message": "minReplicas must not exceed replicas"}]);
    }
    Structural::from_json(&json!({"type": "object", "properties": {"spec": spec, "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}})).unwrap()
}

fn object() -> Value {
    json!({
        "apiVersion": "bench.example.com/v1", "kind": "Widget",
        "metadata": {"name": "widget-0001", "namespace": "default", "labels": {"app": "widget", "tier": "backend", "team": "platform"},
            "annotations": {"example.com/owner": "platform-team", "example.com/description": "a widget used for benchmarking the schema pipeline"}},
        "spec": {
            "name": "widget-0001", "displayName": "Widget number one", "description": "A widget with a description long enough to be realistic.",
            "replicas": 3, "image": "registry.example.com/widgets/widget:1.2.3", "imagePullPolicy": "IfNotPresent",
            "port": "http", "ratio": 0.75, "startAt": "2026-11-29T12:00:00Z", "owner": "team@example.com",
            "id": "0f8fad5b-d9cb-469f-a165-70867728950e", "tags": ["a", "b", "c", "d"],
            "env": {"LOG_LEVEL": "info", "MODE": "prod", "REGION": "eu-west-1"},
            "resources": {"cpu": "500m", "memory": "256Mi"},
            "ports": [{"name": "http", "containerPort": 8080}, {"name": "metrics", "containerPort": 9090}],
            "priority": 2, "unknownField": {"dropped": true}
        }
    })
}

fn bench(c: &mut Criterion) {
    let obj = object();
    eprintln!(
        "object size: {} bytes",
        serde_json::to_vec(&obj).unwrap().len()
    );
    for (name, with_cel) in [
        ("prune_default_validate_1KiB_20_fields", false),
        ("prune_default_validate_cel_1KiB_20_fields", true),
    ] {
        let s = schema(with_cel);
        let validator = CustomResourceValidator::new(&s, None);
        let opts = CoerceOptions::for_request(true);
        c.bench_function(name, |b| {
            b.iter_batched(
                || obj.clone(),
                |mut o| {
                    let unknown = coerce_custom_resource(&mut o, &s, &opts).unwrap();
                    apply_defaults(&mut o, &s);
                    let errs = validator.validate(&o, None);
                    black_box((unknown, errs, o))
                },
                BatchSize::SmallInput,
            )
        });
    }
}

/// The same work split by stage, to see where the time goes.
fn bench_stages(c: &mut Criterion) {
    let obj = object();
    let s = schema(true);
    let opts = CoerceOptions::for_request(true);
    let mut prepared = obj.clone();
    coerce_custom_resource(&mut prepared, &s, &opts).unwrap();
    apply_defaults(&mut prepared, &s);
    c.bench_function("stage_coerce_prune", |b| {
        b.iter_batched(
            || obj.clone(),
            |mut o| black_box(coerce_custom_resource(&mut o, &s, &opts).unwrap()),
            BatchSize::SmallInput,
        )
    });
    c.bench_function("stage_default", |b| {
        b.iter_batched(
            || prepared.clone(),
            |mut o| apply_defaults(black_box(&mut o), &s),
            BatchSize::SmallInput,
        )
    });
    c.bench_function("stage_validate_openapi", |b| {
        b.iter(|| black_box(validate_openapi(&prepared, &s)))
    });
    let cel = CelValidator::new(&s);
    c.bench_function("stage_cel_one_rule", |b| {
        b.iter(|| black_box(cel.validate(&prepared, None)))
    });
}

criterion_group!(benches, bench, bench_stages);
criterion_main!(benches);
