//! The internal form kube-apiserver validates a v1 CRD in (R5.27): per-version schema,
//! subresources, columns and selectable fields identical across all versions move to the
//! spec's top level; and Go's JSON rendering of internal versions (field names, not JSON
//! tags), which appears in some error messages.

use crate::gojson;
use kapi_api::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinitionSpec, CustomResourceDefinitionVersion,
    CustomResourceSubresources, CustomResourceValidation, JsonSchemaProps, JsonSchemaPropsOrArray,
    JsonSchemaPropsOrBool, SelectableField,
};
use serde_json::Value;
use std::fmt::Write;

/// Which per-version fields are identical across versions (and so live at the top level).
#[derive(Clone, Copy, Debug, Default)]
pub struct Hoisted {
    /// `schema` → `spec.validation`.
    pub schema: bool,
    /// `subresources` → `spec.subresources`.
    pub subresources: bool,
    /// `additionalPrinterColumns` → `spec.additionalPrinterColumns`.
    pub columns: bool,
    /// `selectableFields` → `spec.selectableFields`.
    pub selectable_fields: bool,
}

fn all_equal<T: PartialEq>(
    versions: &[CustomResourceDefinitionVersion],
    f: impl Fn(&CustomResourceDefinitionVersion) -> T,
) -> bool {
    let Some(first) = versions.first() else {
        return false;
    };
    let v0 = f(first);
    versions.iter().all(|v| f(v) == v0)
}

/// What v1 → internal conversion moves to the top level.
pub fn hoisted(spec: &CustomResourceDefinitionSpec) -> Hoisted {
    let v = &spec.versions;
    Hoisted {
        schema: all_equal(v, |v| v.schema.clone()),
        subresources: all_equal(v, |v| v.subresources.clone()),
        columns: all_equal(v, |v| v.additional_printer_columns.clone()),
        selectable_fields: all_equal(v, |v| v.selectable_fields.clone()),
    }
}

/// The top-level schema after hoisting.
pub fn top_level_validation(
    spec: &CustomResourceDefinitionSpec,
    h: Hoisted,
) -> Option<&CustomResourceValidation> {
    if h.schema {
        spec.versions.first().and_then(|v| v.schema.as_ref())
    } else {
        None
    }
}

/// The top-level subresources after hoisting.
pub fn top_level_subresources(
    spec: &CustomResourceDefinitionSpec,
    h: Hoisted,
) -> Option<&CustomResourceSubresources> {
    if h.subresources {
        spec.versions.first().and_then(|v| v.subresources.as_ref())
    } else {
        None
    }
}

/// The top-level printer columns after hoisting.
pub fn top_level_columns(
    spec: &CustomResourceDefinitionSpec,
    h: Hoisted,
) -> &[CustomResourceColumnDefinition] {
    match spec.versions.first() {
        Some(v) if h.columns => &v.additional_printer_columns,
        _ => &[],
    }
}

/// The top-level selectable fields after hoisting.
pub fn top_level_selectable_fields(
    spec: &CustomResourceDefinitionSpec,
    h: Hoisted,
) -> &[SelectableField] {
    match spec.versions.first() {
        Some(v) if h.selectable_fields => &v.selectable_fields,
        _ => &[],
    }
}

/// A tiny writer of Go-struct JSON: `{"Field":value,…}` in declaration order.
struct GoObject<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> GoObject<'a> {
    fn new(out: &'a mut String) -> Self {
        out.push('{');
        Self { out, first: true }
    }
    fn key(&mut self, k: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        let _ = write!(self.out, "\"{k}\":");
        self.out
    }
    fn raw(&mut self, k: &str, v: &str) {
        self.key(k).push_str(v);
    }
    fn string(&mut self, k: &str, v: &str) {
        let s = gojson::json_string(v);
        self.raw(k, &s);
    }
    fn opt_string(&mut self, k: &str, v: Option<&str>) {
        match v {
            Some(s) => self.string(k, s),
            None => self.raw(k, "null"),
        }
    }
    fn boolean(&mut self, k: &str, v: bool) {
        self.raw(k, if v { "true" } else { "false" });
    }
    fn json(&mut self, k: &str, v: Option<&Value>) {
        let s = v.map_or_else(|| "null".to_string(), gojson::to_json);
        self.raw(k, &s);
    }
    fn float(&mut self, k: &str, v: Option<f64>) {
        let s = v.map_or_else(|| "null".to_string(), gojson::float_json);
        self.raw(k, &s);
    }
    fn int(&mut self, k: &str, v: Option<i64>) {
        let s = v.map_or_else(|| "null".to_string(), |i| i.to_string());
        self.raw(k, &s);
    }
    fn strings(&mut self, k: &str, v: &[String]) {
        let s = if v.is_empty() {
            "null".to_string()
        } else {
            gojson::to_json(&Value::from(v.to_vec()))
        };
        self.raw(k, &s);
    }
    fn end(self) {
        self.out.push('}');
    }
}

fn render_list<T>(out: &mut String, items: &[T], f: impl Fn(&mut String, &T)) {
    if items.is_empty() {
        out.push_str("null");
        return;
    }
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        f(out, item);
    }
    out.push(']');
}

fn render_schema_map(out: &mut String, m: &std::collections::BTreeMap<String, JsonSchemaProps>) {
    if m.is_empty() {
        out.push_str("null");
        return;
    }
    out.push('{');
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&gojson::json_string(k));
        out.push(':');
        render_schema(out, v);
    }
    out.push('}');
}

fn render_or_bool(out: &mut String, v: Option<&JsonSchemaPropsOrBool>) {
    let Some(v) = v else {
        out.push_str("null");
        return;
    };
    let mut o = GoObject::new(out);
    o.boolean("Allows", v.allows);
    match &v.schema {
        Some(s) => render_schema(o.key("Schema"), s),
        None => o.raw("Schema", "null"),
    }
    o.end();
}

/// Go's JSON of an internal `JSONSchemaProps`.
pub fn render_schema(out: &mut String, s: &JsonSchemaProps) {
    let mut o = GoObject::new(out);
    o.string("ID", &s.id);
    o.string("Schema", &s.schema);
    o.opt_string("Ref", s.r#ref.as_deref());
    o.string("Description", &s.description);
    o.string("Type", &s.r#type);
    o.boolean("Nullable", s.nullable);
    o.string("Format", &s.format);
    o.string("Title", &s.title);
    o.json("Default", s.default.as_ref());
    o.float("Maximum", s.maximum);
    o.boolean("ExclusiveMaximum", s.exclusive_maximum);
    o.float("Minimum", s.minimum);
    o.boolean("ExclusiveMinimum", s.exclusive_minimum);
    o.int("MaxLength", s.max_length);
    o.int("MinLength", s.min_length);
    o.string("Pattern", &s.pattern);
    o.int("MaxItems", s.max_items);
    o.int("MinItems", s.min_items);
    o.boolean("UniqueItems", s.unique_items);
    o.float("MultipleOf", s.multiple_of);
    render_list(o.key("Enum"), &s.r#enum, |out, v| {
        out.push_str(&gojson::to_json(v))
    });
    o.int("MaxProperties", s.max_properties);
    o.int("MinProperties", s.min_properties);
    o.strings("Required", &s.required);
    match s.items.as_deref() {
        None => o.raw("Items", "null"),
        Some(JsonSchemaPropsOrArray::Schema(one)) => {
            let out = o.key("Items");
            let mut io = GoObject::new(out);
            render_schema(io.key("Schema"), one);
            io.raw("JSONSchemas", "null");
            io.end();
        }
        Some(JsonSchemaPropsOrArray::Schemas(many)) => {
            let out = o.key("Items");
            let mut io = GoObject::new(out);
            io.raw("Schema", "null");
            render_list(io.key("JSONSchemas"), many, render_schema);
            io.end();
        }
    }
    render_list(o.key("AllOf"), &s.all_of, render_schema);
    render_list(o.key("OneOf"), &s.one_of, render_schema);
    render_list(o.key("AnyOf"), &s.any_of, render_schema);
    match s.not.as_deref() {
        Some(n) => render_schema(o.key("Not"), n),
        None => o.raw("Not", "null"),
    }
    render_schema_map(o.key("Properties"), &s.properties);
    render_or_bool(
        o.key("AdditionalProperties"),
        s.additional_properties.as_deref(),
    );
    render_schema_map(o.key("PatternProperties"), &s.pattern_properties);
    o.raw(
        "Dependencies",
        if s.dependencies.is_empty() {
            "null"
        } else {
            "{}"
        },
    );
    render_or_bool(o.key("AdditionalItems"), s.additional_items.as_deref());
    render_schema_map(o.key("Definitions"), &s.definitions);
    match &s.external_docs {
        Some(d) => {
            let out = o.key("ExternalDocs");
            let mut d_o = GoObject::new(out);
            d_o.string("Description", &d.description);
            d_o.string("URL", &d.url);
            d_o.end();
        }
        None => o.raw("ExternalDocs", "null"),
    }
    o.json("Example", s.example.as_ref());
    let preserve = s.x_preserve_unknown_fields.map(|b| b.to_string());
    o.raw(
        "XPreserveUnknownFields",
        preserve.as_deref().unwrap_or("null"),
    );
    o.boolean("XEmbeddedResource", s.x_embedded_resource);
    o.boolean("XIntOrString", s.x_int_or_string);
    o.strings("XListMapKeys", &s.x_list_map_keys);
    o.opt_string("XListType", s.x_list_type.as_deref());
    o.opt_string("XMapType", s.x_map_type.as_deref());
    render_list(o.key("XValidations"), &s.x_validations, |out, r| {
        let mut ro = GoObject::new(out);
        ro.string("Rule", &r.rule);
        ro.string("Message", &r.message);
        ro.string("MessageExpression", &r.message_expression);
        ro.opt_string("Reason", r.reason.as_deref());
        ro.string("FieldPath", &r.field_path);
        let oos = r.optional_old_self.map(|b| b.to_string());
        ro.raw("OptionalOldSelf", oos.as_deref().unwrap_or("null"));
        ro.end();
    });
    o.end();
}

fn render_subresources(out: &mut String, s: Option<&CustomResourceSubresources>) {
    let Some(s) = s else {
        out.push_str("null");
        return;
    };
    let mut o = GoObject::new(out);
    o.raw("Status", if s.status.is_some() { "{}" } else { "null" });
    match &s.scale {
        Some(sc) => {
            let out = o.key("Scale");
            let mut so = GoObject::new(out);
            so.string("SpecReplicasPath", &sc.spec_replicas_path);
            so.string("StatusReplicasPath", &sc.status_replicas_path);
            so.opt_string("LabelSelectorPath", sc.label_selector_path.as_deref());
            so.end();
        }
        None => o.raw("Scale", "null"),
    }
    o.end();
}

fn render_version(out: &mut String, v: &CustomResourceDefinitionVersion, h: Hoisted) {
    let mut o = GoObject::new(out);
    o.string("Name", &v.name);
    o.boolean("Served", v.served);
    o.boolean("Storage", v.storage);
    o.boolean("Deprecated", v.deprecated);
    o.opt_string("DeprecationWarning", v.deprecation_warning.as_deref());
    match v.schema.as_ref().filter(|_| !h.schema) {
        Some(schema) => {
            let out = o.key("Schema");
            let mut so = GoObject::new(out);
            match &schema.open_api_v3_schema {
                Some(s) => render_schema(so.key("OpenAPIV3Schema"), s),
                None => so.raw("OpenAPIV3Schema", "null"),
            }
            so.end();
        }
        None => o.raw("Schema", "null"),
    }
    render_subresources(
        o.key("Subresources"),
        v.subresources.as_ref().filter(|_| !h.subresources),
    );
    let columns: &[CustomResourceColumnDefinition] = if h.columns {
        &[]
    } else {
        &v.additional_printer_columns
    };
    render_list(o.key("AdditionalPrinterColumns"), columns, |out, c| {
        let mut co = GoObject::new(out);
        co.string("Name", &c.name);
        co.string("Type", &c.r#type);
        co.string("Format", &c.format);
        co.string("Description", &c.description);
        co.int("Priority", Some(i64::from(c.priority)));
        co.string("JSONPath", &c.json_path);
        co.end();
    });
    let selectable: &[SelectableField] = if h.selectable_fields {
        &[]
    } else {
        &v.selectable_fields
    };
    render_list(o.key("SelectableFields"), selectable, |out, f| {
        let mut fo = GoObject::new(out);
        fo.string("JSONPath", &f.json_path);
        fo.end();
    });
    o.end();
}

/// Go's JSON of the internal `spec.versions` list, as printed in `spec.versions` errors.
pub fn render_versions(spec: &CustomResourceDefinitionSpec) -> String {
    let h = hoisted(spec);
    let mut out = String::new();
    render_list(&mut out, &spec.versions, |out, v| render_version(out, v, h));
    out
}
