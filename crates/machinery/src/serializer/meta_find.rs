//! Finds `apiVersion` and `kind` in JSON as Go's `SimpleMetaFactory.Interpret` does: keys
//! match case-insensitively (R2.2). Stops reading once both are found.

use crate::runtime::{Error, Result};
use crate::schema::{GroupVersion, GroupVersionKind};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use std::fmt;

const FOUND_BOTH: &str = "\u{0}kapi-found-both";

#[derive(Default)]
struct Found {
    api_version: Option<String>,
    kind: Option<String>,
}

struct FindVisitor<'a>(&'a mut Found);

enum Key {
    ApiVersion,
    Kind,
    Other,
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Key, E> {
                Ok(if v.eq_ignore_ascii_case("apiVersion") {
                    Key::ApiVersion
                } else if v.eq_ignore_ascii_case("kind") {
                    Key::Kind
                } else {
                    Key::Other
                })
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

impl<'de> Visitor<'de> for FindVisitor<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::ApiVersion => self.0.api_version = map.next_value::<Option<String>>()?,
                Key::Kind => self.0.kind = map.next_value::<Option<String>>()?,
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            if self.0.api_version.is_some() && self.0.kind.is_some() {
                return Err(de::Error::custom(FOUND_BOTH));
            }
        }
        Ok(())
    }
}

/// The GVK declared by JSON `data` (empty parts when absent).
pub(crate) fn find_gvk(data: &[u8]) -> Result<GroupVersionKind> {
    let mut found = Found::default();
    let mut de = serde_json::Deserializer::from_slice(data);
    let parsed = de
        .deserialize_map(FindVisitor(&mut found))
        .and_then(|_| de.end());
    if let Err(e) = parsed
        && !e.to_string().starts_with(FOUND_BOTH)
    {
        return Err(Error::Decode(format!(
            "couldn't get version/kind; json parse error: {e}"
        )));
    }
    let gv = GroupVersion::parse(found.api_version.as_deref().unwrap_or(""))?;
    Ok(GroupVersionKind {
        group: gv.group,
        version: gv.version,
        kind: found.kind.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_gvk_matches_keys_case_insensitively_r2_2() {
        let gvk = find_gvk(br#"{"APIVERSION":"apps/v1","Kind":"Deployment"}"#).unwrap();
        assert_eq!(gvk, GroupVersionKind::new("apps", "v1", "Deployment"));
    }

    #[test]
    fn find_gvk_reports_json_parse_errors_r2_2() {
        let err = find_gvk(b"{not json").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("couldn't get version/kind; json parse error: ")
        );
    }

    #[test]
    fn find_gvk_rejects_bad_api_version_r2_2() {
        let err = find_gvk(br#"{"apiVersion":"a/b/c","kind":"K"}"#).unwrap_err();
        assert_eq!(err.to_string(), "unexpected GroupVersion string: a/b/c");
    }
}
