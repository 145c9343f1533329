//! Encode/decode throughput of the JSON, YAML and protobuf serializers on ConfigMap-shaped
//! objects (1 KiB, 64 KiB, a 1000-item list) and of a version conversion through the hub.
//! The ConfigMap struct is the test fixture (the real kind lives in kapi-api).

// The kapi binary runs on mimalloc; measure with the same allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../tests/common/mod.rs"]
mod common;
mod cpu_time;

use common::*;
use cpu_time::CpuTime;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kapi_machinery::meta::v1::{FieldsV1, ListMeta, ManagedFieldsEntry, ObjectMeta, Time};
use kapi_machinery::runtime::{Object, UnstructuredList};
use kapi_machinery::serializer::{
    Decoder, Encoder, JsonSerializer, ProtobufSerializer, SerializerOptions, YamlSerializer,
};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

fn item(i: usize, data_bytes: usize) -> ConfigMap {
    let mut data = BTreeMap::new();
    let mut n = 0;
    while n < data_bytes {
        let key = format!("key-{i}-{}", data.len());
        let value = format!("value {} of config map {i} with some text", data.len());
        n += key.len() + value.len() + 6;
        data.insert(key, value);
    }
    let fields: serde_json::Value = serde_json::json!({"f:data": {".": {}, "f:key-0": {}}});
    ConfigMap {
        metadata: ObjectMeta {
            name: format!("config-{i}"),
            namespace: "default".into(),
            uid: format!("c95d7904-26f0-437b-a252-{i:012}"),
            resource_version: format!("{}", 1000 + i),
            creation_timestamp: Time(chrono::DateTime::from_timestamp(1_764_420_844, 0)),
            labels: BTreeMap::from([
                ("app".into(), "web".into()),
                ("tier".into(), "front".into()),
            ]),
            managed_fields: vec![ManagedFieldsEntry {
                manager: "kubectl-create".into(),
                operation: "Update".into(),
                api_version: "v1".into(),
                time: Some(Time(chrono::DateTime::from_timestamp(1_764_420_844, 0))),
                fields_type: "FieldsV1".into(),
                fields_v1: Some(FieldsV1::from_value(&fields)),
                subresource: String::new(),
            }],
            ..ObjectMeta::default()
        },
        data,
        ..ConfigMap::default()
    }
}

fn single(data_bytes: usize) -> ConfigMap {
    let mut cm = item(0, data_bytes);
    cm.kind = "ConfigMap".into();
    cm.api_version = "v1".into();
    cm
}

fn list() -> ConfigMapList {
    ConfigMapList {
        kind: "ConfigMapList".into(),
        api_version: "v1".into(),
        metadata: ListMeta {
            resource_version: "5000".into(),
            ..ListMeta::default()
        },
        items: (0..1000).map(|i| item(i, 560)).collect(),
    }
}

fn bench_format(
    c: &mut Criterion<CpuTime>,
    name: &str,
    codec: &(impl Encoder + Decoder),
    objects: &[(&str, &dyn Object)],
) {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    for (label, obj) in objects {
        let bytes = codec.encode_to_vec(*obj).unwrap();
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::new("encode", label), obj, |b, obj| {
            let mut out = Vec::with_capacity(bytes.len());
            b.iter(|| {
                out.clear();
                codec.encode(black_box(*obj), &mut out).unwrap();
            })
        });
        group.bench_with_input(BenchmarkId::new("decode", label), &bytes, |b, bytes| {
            b.iter(|| codec.decode(black_box(bytes), None, None).unwrap())
        });
    }
    group.finish();
}

fn codecs(c: &mut Criterion<CpuTime>) {
    let s = scheme();
    let small = single(700);
    let large = single(64 * 1024 - 400);
    let list = list();
    let objects: [(&str, &dyn Object); 3] =
        [("1KiB", &small), ("64KiB", &large), ("list1000", &list)];
    bench_format(
        c,
        "json",
        &JsonSerializer::new(s.clone(), SerializerOptions::default()),
        &objects,
    );
    bench_format(c, "protobuf", &ProtobufSerializer::new(s.clone()), &objects);
    bench_format(c, "yaml", &YamlSerializer::new(s.clone(), false), &objects);

    let json = JsonSerializer::new(s.clone(), SerializerOptions::default());
    let bytes = json.encode_to_vec(&list).unwrap();
    let mut group = c.benchmark_group("json-unstructured");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    let into = UnstructuredList::default();
    group.bench_function("decode/list1000", |b| {
        b.iter(|| json.decode(black_box(&bytes), None, Some(&into)).unwrap())
    });
    let decoded = json.decode(&bytes, None, Some(&into)).unwrap().object;
    group.bench_function("encode/list1000", |b| {
        let mut out = Vec::with_capacity(bytes.len());
        b.iter(|| {
            out.clear();
            json.encode(black_box(&*decoded), &mut out).unwrap();
        })
    });
    group.finish();
}

/// Where YAML decode time goes: the parser's events alone, YAML to a JSON value
/// (parser + serde-saphyr's value building), and the value written as JSON text (the JSON
/// decode that follows is the json/decode row).
fn yaml_stages(c: &mut Criterion<CpuTime>) {
    use kapi_machinery::serializer::yaml::yaml_to_value;
    use serde_saphyr::granit_parser::Parser;
    let s = scheme();
    let yaml = YamlSerializer::new(s, false)
        .encode_to_vec(&list())
        .unwrap();
    let text = std::str::from_utf8(&yaml).unwrap();
    let mut group = c.benchmark_group("yaml-stages");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Bytes(yaml.len() as u64));
    group.bench_function("parser-events/list1000", |b| {
        b.iter(|| Parser::new_from_str(black_box(text)).count())
    });
    group.bench_function("to-value/list1000", |b| {
        b.iter(|| yaml_to_value(black_box(&yaml)).unwrap())
    });
    let value = yaml_to_value(&yaml).unwrap();
    group.bench_function("value-to-json/list1000", |b| {
        b.iter(|| serde_json::to_vec(black_box(&value)).unwrap())
    });
    group.finish();
}

fn conversion(c: &mut Criterion<CpuTime>) {
    let s: Arc<kapi_machinery::runtime::Scheme> = scheme();
    let v1 = WidgetV1 {
        metadata: ObjectMeta {
            name: "w".into(),
            namespace: "default".into(),
            ..ObjectMeta::default()
        },
        size: "3".into(),
        ..WidgetV1::default()
    };
    c.bench_function("convert/widget-v1-to-v2-via-hub", |b| {
        b.iter(|| s.convert_to_version(black_box(&v1), &widgets_v2()).unwrap())
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = codecs, yaml_stages, conversion
}
criterion_main!(benches);
