//! Table output (`as=Table`, R3.13, R8.8): column definitions and cells per kind, and
//! kube's human-readable ages.

use crate::meta;
use serde_json::{Value, json};

/// Description of the Name column (as kube-apiserver sends it).
pub const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
/// Description of the Age column.
pub const AGE_DESCRIPTION: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// One column: its definition and how to compute its cell.
#[derive(Clone)]
pub struct Column {
    /// Header.
    pub name: &'static str,
    /// `string`, `integer`, `date`, …
    pub kind: &'static str,
    /// `name` for the Name column, else empty.
    pub format: &'static str,
    /// Description.
    pub description: &'static str,
    /// 0 for default output, 1 for `-o wide` only.
    pub priority: u32,
    /// The cell for an object.
    pub cell: fn(&Value) -> Value,
}

impl Column {
    /// A column of the default output (priority 0, no format).
    pub fn new(
        name: &'static str,
        kind: &'static str,
        description: &'static str,
        cell: fn(&Value) -> Value,
    ) -> Column {
        Column {
            name,
            kind,
            format: "",
            description,
            priority: 0,
            cell,
        }
    }

    /// The same column shown only with `-o wide` (priority 1).
    pub fn wide(mut self) -> Column {
        self.priority = 1;
        self
    }

    /// The `columnDefinitions[]` item.
    pub fn definition(&self) -> Value {
        json!({
            "name": self.name,
            "type": self.kind,
            "format": self.format,
            "description": self.description,
            "priority": self.priority,
        })
    }
}

/// Turns objects into table rows.
pub trait TableConvertor: Send + Sync {
    /// The columns, in order.
    fn columns(&self) -> Vec<Column>;

    /// The cells of one object.
    fn cells(&self, obj: &Value) -> Vec<Value> {
        self.columns().iter().map(|c| (c.cell)(obj)).collect()
    }
}

/// A table defined by its columns.
pub struct ColumnTable(pub Vec<Column>);

/// A table whose columns are built on first use (columns whose descriptions are looked up
/// in the OpenAPI models, kept out of start-up).
pub struct LazyTable {
    build: fn() -> ColumnTable,
    columns: std::sync::OnceLock<Vec<Column>>,
}

impl LazyTable {
    /// A table built by `build` when first asked for.
    pub fn new(build: fn() -> ColumnTable) -> Self {
        Self {
            build,
            columns: std::sync::OnceLock::new(),
        }
    }
}

impl TableConvertor for LazyTable {
    fn columns(&self) -> Vec<Column> {
        self.columns.get_or_init(|| (self.build)().0).clone()
    }
}

impl TableConvertor for ColumnTable {
    fn columns(&self) -> Vec<Column> {
        self.0.clone()
    }
}

/// The Name column.
pub fn name_column() -> Column {
    Column {
        name: "Name",
        kind: "string",
        format: "name",
        description: NAME_DESCRIPTION,
        priority: 0,
        cell: |o| Value::String(meta::name(o).to_owned()),
    }
}

/// The Age column (`string`, a human duration since creation).
pub fn age_column() -> Column {
    Column {
        name: "Age",
        kind: "string",
        format: "",
        description: AGE_DESCRIPTION,
        priority: 0,
        cell: |o| Value::String(age(meta::meta_str(o, "creationTimestamp"))),
    }
}

/// The default table of kube-apiserver for kinds without printers: Name, Created At.
pub fn default_table() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column {
            name: "Created At",
            kind: "date",
            format: "",
            description: AGE_DESCRIPTION,
            priority: 0,
            cell: |o| Value::String(meta::meta_str(o, "creationTimestamp").to_owned()),
        },
    ])
}

/// Time since an RFC 3339 timestamp, as kubectl prints ages; `<unknown>` without one.
pub fn age(timestamp: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(timestamp) {
        Ok(t) => human_duration(chrono::Utc::now().signed_duration_since(t).num_seconds()),
        Err(_) => "<unknown>".to_owned(),
    }
}

/// apimachinery's `duration.HumanDuration` for a number of seconds.
pub fn human_duration(secs: i64) -> String {
    if secs < -1 {
        return "<invalid>".into();
    }
    if secs < 0 {
        return "0s".into();
    }
    if secs < 120 {
        return format!("{secs}s");
    }
    let minutes = secs / 60;
    if minutes < 10 {
        let s = secs % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = secs / 3600;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{dy}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

/// Builds the Table object for `objects` (R3.13): rows carry PartialObjectMetadata.
pub fn to_table(
    conv: &dyn TableConvertor,
    objects: &[Value],
    list_meta: Value,
    v1beta1: bool,
    include_object: &str,
) -> Value {
    let defs: Vec<Value> = conv.columns().iter().map(Column::definition).collect();
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| {
            let mut row = vec![("cells", Value::Array(conv.cells(o)))];
            match include_object {
                "None" => {}
                "Object" => row.push(("object", o.clone())),
                _ => row.push(("object", partial_object_metadata(o, v1beta1))),
            }
            object(row)
        })
        .collect();
    object(vec![
        ("kind", Value::from("Table")),
        ("apiVersion", Value::from(meta_api_version(v1beta1))),
        ("metadata", list_meta),
        ("columnDefinitions", Value::Array(defs)),
        ("rows", Value::Array(rows)),
    ])
}

/// A JSON object from owned values (`json!` would deep-copy them through `to_value`).
pub fn object(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

fn meta_api_version(v1beta1: bool) -> &'static str {
    if v1beta1 {
        "meta.k8s.io/v1beta1"
    } else {
        "meta.k8s.io/v1"
    }
}

/// `PartialObjectMetadata` of an object.
pub fn partial_object_metadata(obj: &Value, v1beta1: bool) -> Value {
    let metadata = obj
        .get("metadata")
        .cloned()
        .unwrap_or_else(|| Value::Object(Default::default()));
    object(vec![
        ("kind", Value::from("PartialObjectMetadata")),
        ("apiVersion", Value::from(meta_api_version(v1beta1))),
        ("metadata", metadata),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_duration_follows_apimachinery() {
        assert_eq!(human_duration(1), "1s");
        assert_eq!(human_duration(119), "119s");
        assert_eq!(human_duration(125), "2m5s");
        assert_eq!(human_duration(600), "10m");
        assert_eq!(human_duration(3 * 3600 + 60), "3h1m");
        assert_eq!(human_duration(50 * 3600), "2d2h");
    }

    #[test]
    fn age_without_timestamp_is_unknown() {
        assert_eq!(age(""), "<unknown>");
    }
}
