//! Differential test: our OpenAPI validator against the `jsonschema` crate (draft 4) on
//! generated simple schemas and values, after mapping `nullable` to a `null` type (R6.18).

use kapi_apiextensions::{Structural, validate_openapi};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn prop_schema() -> impl Strategy<Value = Value> {
    let string = (
        proptest::option::of(0i64..6),
        proptest::option::of(0i64..4),
        proptest::option::of(prop::sample::select(vec!["^[a-c]+$", "^x", "[0-9]"])),
        proptest::option::of(prop::collection::vec(
            prop::sample::select(vec!["a", "b", "ab", "xyz"]),
            1..3,
        )),
    )
        .prop_map(|(max, min, pattern, en)| {
            let mut s = json!({"type": "string"});
            if let Some(m) = max {
                s["maxLength"] = json!(m);
            }
            if let Some(m) = min {
                s["minLength"] = json!(m);
            }
            if let Some(p) = pattern {
                s["pattern"] = json!(p);
            }
            if let Some(e) = en {
                s["enum"] = json!(e);
            }
            s
        });
    let integer = (
        proptest::option::of(-5i64..5),
        proptest::option::of(-5i64..5),
        any::<bool>(),
        any::<bool>(),
        proptest::option::of(1i64..4),
    )
        .prop_map(|(min, max, exmin, exmax, mult)| {
            let mut s = json!({"type": "integer"});
            if let Some(m) = min {
                s["minimum"] = json!(m);
                s["exclusiveMinimum"] = json!(exmin);
            }
            if let Some(m) = max {
                s["maximum"] = json!(m);
                s["exclusiveMaximum"] = json!(exmax);
            }
            if let Some(m) = mult {
                s["multipleOf"] = json!(m);
            }
            s
        });
    let number = (
        proptest::option::of(-5i64..5),
        proptest::option::of(-5i64..5),
    )
        .prop_map(|(min, max)| {
            let mut s = json!({"type": "number"});
            if let Some(m) = min {
                s["minimum"] = json!(m);
            }
            if let Some(m) = max {
                s["maximum"] = json!(m);
            }
            s
        });
    let array =
        (proptest::option::of(0i64..3), proptest::option::of(0i64..3)).prop_map(|(min, max)| {
            let mut s = json!({"type": "array", "items": {"type": "string"}});
            if let Some(m) = min {
                s["minItems"] = json!(m);
            }
            if let Some(m) = max {
                s["maxItems"] = json!(m);
            }
            s
        });
    let leaf = prop_oneof![
        string,
        integer,
        number,
        Just(json!({"type": "boolean"})),
        array
    ];
    let prop = (leaf, any::<bool>()).prop_map(|(mut s, nullable)| {
        if nullable {
            s["nullable"] = json!(true);
        }
        s
    });
    (
        prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c", "d"]), prop, 1..4),
        prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "d"]), 0..2),
    )
        .prop_map(|(props, required)| {
            let props: Map<String, Value> =
                props.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            let required: Vec<&str> = required
                .into_iter()
                .filter(|r| props.contains_key(*r))
                .collect();
            let mut s = json!({"type": "object", "properties": props});
            if !required.is_empty() {
                s["required"] = json!(required);
            }
            s
        })
}

fn prop_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-6i64..6).prop_map(Value::from),
        (-6i64..6).prop_map(|i| Value::from(i as f64 + 0.5)),
        "[a-cx0-9]{0,5}".prop_map(Value::from),
        prop::collection::vec("[ab]{0,2}".prop_map(Value::from), 0..4).prop_map(Value::from),
    ];
    prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c", "d"]), leaf, 0..4)
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
}

/// OpenAPI 3.0 `nullable` becomes draft 4's `type: [t, "null"]`; `x-kubernetes-*` is dropped.
fn to_draft4(schema: &Value) -> Value {
    match schema {
        Value::Object(m) => {
            let mut out = Map::new();
            let nullable = m.get("nullable") == Some(&Value::Bool(true));
            for (k, v) in m {
                if k == "nullable" || k.starts_with("x-kubernetes-") {
                    continue;
                }
                out.insert(k.clone(), to_draft4(v));
            }
            if nullable && let Some(t) = m.get("type").cloned() {
                // Kubernetes checks `enum` on null too, so null is not added to it.
                out.insert("type".into(), json!([t, "null"]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(to_draft4).collect()),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn openapi_validator_agrees_with_jsonschema_draft4(schema in prop_schema(), value in prop_value()) {
        let ours = validate_openapi(&value, &Structural::from_json(&schema).unwrap());
        let oracle = jsonschema::draft4::new(&to_draft4(&schema)).unwrap();
        prop_assert_eq!(ours.is_empty(), oracle.is_valid(&value), "schema {} value {} errors {:?}", schema, value, ours);
    }
}
