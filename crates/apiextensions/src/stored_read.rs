//! Proof that reading a stored custom resource in the version it is stored at changes
//! nothing (R4.12: metadata coercion, pruning, removal of non-nullable nulls, defaulting and
//! serde_json's re-encoding are all no-ops), so a read can answer the stored bytes with only
//! `metadata.resourceVersion` inserted. It walks the bytes once, with the version's schema,
//! and accepts only shapes it can prove unchanged; anything else (embedded resources,
//! `x-kubernetes-preserve-unknown-fields`, a `null`, an unknown field, a missing default, a
//! non-canonical metadata value, ...) answers `None` and the caller decodes as before.
//! Soundness is pinned by tests comparing it with [`crate::CustomResourceSchemas::from_storage`].

use crate::stored_scan::{Scan, cmp_bytes, precedes};
use crate::structural::{AdditionalProperties, Structural};
use std::cmp::Ordering;

/// Where `"resourceVersion":"<rv>"` goes in bytes that need no read-side work: at `offset`
/// (inside the top-level `metadata`, keeping its keys sorted), with a comma before or after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceVersionSlot {
    /// Byte offset of the insertion.
    pub offset: usize,
    /// A `,` goes before the inserted member.
    pub comma_before: bool,
    /// A `,` goes after the inserted member.
    pub comma_after: bool,
}

impl ResourceVersionSlot {
    /// `bytes` with `"resourceVersion":"<rv>"` inserted at this slot.
    pub fn splice(&self, bytes: &[u8], rv: i64) -> Vec<u8> {
        let (head, tail) = bytes.split_at(self.offset.min(bytes.len()));
        let mut out = Vec::with_capacity(bytes.len() + 40);
        out.extend_from_slice(head);
        if self.comma_before {
            out.push(b',');
        }
        out.extend_from_slice(b"\"resourceVersion\":\"");
        out.extend_from_slice(rv.to_string().as_bytes());
        out.push(b'"');
        if self.comma_after {
            out.push(b',');
        }
        out.extend_from_slice(tail);
        out
    }
}

/// The slot for `resourceVersion` when `bytes`, stored at `group/version`, read back with
/// `schema` unchanged; `None` when that is not proven.
pub(crate) fn unchanged_read(
    bytes: &[u8],
    schema: &Structural,
    group: &str,
    version: &str,
) -> Option<ResourceVersionSlot> {
    if schema.embedded_resource || schema.contains_embedded_resource() {
        return None;
    }
    // Defaulting walks the root metadata with the schema's `metadata` property.
    if schema
        .properties
        .get("metadata")
        .is_some_and(|m| m.defaults_below)
    {
        return None;
    }
    let mut s = Scan::new(bytes)?;
    let mut slot = None;
    let mut saw_api_version = false;
    let mut root = |s: &mut Scan<'_>, key: &str| match key {
        "apiVersion" => {
            saw_api_version = true;
            let av = s.plain_string()?;
            let v = av.strip_prefix(group).and_then(|r| r.strip_prefix('/'));
            (v == Some(version)).then_some(())
        }
        "kind" => s.string().map(|_| ()),
        _ => {
            slot = Some(metadata(s)?);
            Some(())
        }
    };
    object_node(&mut s, schema, Some(&mut root))?;
    (s.at_end() && saw_api_version).then_some(())?;
    slot
}

fn is_meta(key: &str) -> bool {
    matches!(key, "apiVersion" | "kind" | "metadata")
}

/// A value under `schema` (`None`: a field no schema names, which pruning empties).
fn node(s: &mut Scan<'_>, schema: Option<&Structural>) -> Option<()> {
    match s.peek()? {
        b'{' => match schema {
            Some(sc) => object_node(s, sc, None),
            None => s.object(|_, _, _| None),
        },
        b'[' => {
            if schema.is_some_and(|sc| sc.preserve_unknown_fields) {
                return None;
            }
            let items = schema.and_then(|sc| sc.items.as_deref());
            s.array(|s| node(s, items))
        }
        // A null is removed or defaulted unless nullable; never proven here.
        b'n' => None,
        _ => s.scalar(),
    }
}

/// Scans `apiVersion`, `kind` and `metadata` of the resource root (kept by pruning, R6.1).
type RootMeta<'m, 'a> = &'m mut dyn FnMut(&mut Scan<'a>, &'a str) -> Option<()>;

/// An object under `sc`: every key named by the schema (pruning keeps it), every defaulted
/// property present (defaulting adds nothing). At the resource root, `root` scans the
/// `apiVersion`, `kind` and `metadata` keys.
fn object_node<'a>(
    s: &mut Scan<'a>,
    sc: &Structural,
    mut root: Option<RootMeta<'_, 'a>>,
) -> Option<()> {
    if sc.preserve_unknown_fields || sc.embedded_resource {
        return None;
    }
    let defaulted = |p: &Structural| sc.defaults_below && p.default.is_some();
    let additional = match &sc.additional_properties {
        Some(AdditionalProperties::Schema(ap)) => Some(&**ap),
        _ => None,
    };
    // Keys ascend in the same order as the properties: walk both together.
    let mut props = sc.properties.iter().peekable();
    s.object(|s, key, _| {
        let mut prop = None;
        while let Some((name, p)) = props.peek() {
            match cmp_bytes(name.as_bytes(), key.as_bytes()) {
                // A property sorting before this key is absent: defaulting would add it.
                Ordering::Less if defaulted(p) => return None,
                Ordering::Less => {
                    props.next();
                }
                Ordering::Equal => {
                    prop = Some(*p);
                    props.next();
                    break;
                }
                Ordering::Greater => break,
            }
        }
        if let Some(meta) = root.as_mut()
            && is_meta(key)
        {
            return meta(s, key);
        }
        match prop.or(additional) {
            Some(p) => node(s, Some(p)),
            None => None,
        }
    })?;
    props.all(|(_, p)| !defaulted(p)).then_some(())
}

/// The root `metadata` as ObjectMeta coercion leaves it unchanged (R6.4, R6.6): only known
/// fields, well typed, nothing Go's `omitempty` would drop, `generation` set (a read
/// repairs a missing one), `creationTimestamp` present, no `resourceVersion` yet.
fn metadata(s: &mut Scan<'_>) -> Option<ResourceVersionSlot> {
    let mut slot = None;
    let mut generation = false;
    let mut created = false;
    let mut any = false;
    s.object(|s, key, key_start| {
        any = true;
        if slot.is_none() && precedes("resourceVersion", key) {
            slot = Some(ResourceVersionSlot {
                offset: key_start,
                comma_before: false,
                comma_after: true,
            });
        }
        match key {
            "name" | "generateName" | "namespace" | "selfLink" | "uid" => s.non_empty_string(),
            "generation" => {
                generation = true;
                (s.int64()? != 0).then_some(())
            }
            "creationTimestamp" => {
                created = true;
                if s.peek()? == b'n' {
                    s.verbatim()
                } else {
                    s.time()
                }
            }
            "deletionTimestamp" => s.time(),
            "deletionGracePeriodSeconds" => s.int64().map(|_| ()),
            "labels" | "annotations" => s.non_empty_object(|s, _, _| s.string().map(|_| ())),
            "finalizers" => s.non_empty_array(|s| s.string().map(|_| ())),
            "ownerReferences" => s.non_empty_array(owner_reference),
            "managedFields" => s.non_empty_array(managed_fields_entry),
            _ => None,
        }
    })?;
    (generation && created).then_some(())?;
    // After the last key, or alone in `{}` (not reached: creationTimestamp is required).
    let end = s.pos() - 1;
    Some(slot.unwrap_or(ResourceVersionSlot {
        offset: end,
        comma_before: any,
        comma_after: false,
    }))
}

/// One owner reference with its four required strings and optional booleans.
fn owner_reference(s: &mut Scan<'_>) -> Option<()> {
    let mut required = 0;
    s.object(|s, key, _| match key {
        "apiVersion" | "kind" | "name" | "uid" => {
            required += 1;
            s.string().map(|_| ())
        }
        "controller" | "blockOwnerDeletion" => s.boolean(),
        _ => None,
    })?;
    (required == 4).then_some(())
}

/// One managedFields entry: non-empty strings, a normalized time, any `fieldsV1` object.
fn managed_fields_entry(s: &mut Scan<'_>) -> Option<()> {
    s.object(|s, key, _| match key {
        "manager" | "operation" | "apiVersion" | "fieldsType" | "subresource" => {
            s.non_empty_string()
        }
        "time" => s.time(),
        "fieldsV1" => match s.peek()? {
            b'{' => s.verbatim(),
            _ => None,
        },
        _ => None,
    })
}
