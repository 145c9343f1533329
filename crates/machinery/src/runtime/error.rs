//! The errors of the runtime layer, with Kubernetes' message texts (R1.6–R1.10, R2.7, R2.19).

use super::Object;
use crate::schema::{GroupVersionKind, INTERNAL_VERSION, ParseError};

/// Result alias of the machinery.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An object decoded together with the GVK it was decoded as.
#[derive(Debug)]
pub struct Decoded {
    /// The decoded object.
    pub object: Box<dyn Object>,
    /// The GVK the data declared (after defaulting).
    pub gvk: GroupVersionKind,
}

/// Strict decoding problems (unknown or duplicate fields); the object decoded anyway rides
/// along, as in Go where both are returned (R1.9, R2.9).
#[derive(Debug)]
pub struct StrictDecodingError {
    /// One message per problem, e.g. `unknown field "spec.foo"`.
    pub errors: Vec<String>,
    /// The object decoded despite the problems, when there is one.
    pub decoded: Option<Box<Decoded>>,
}

impl std::fmt::Display for StrictDecodingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "strict decoding error: {}", self.errors.join(", "))
    }
}

/// Every error the machinery returns.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No type is registered for the GVK (R1.6).
    #[error("{}", not_registered_kind(.gvk, .scheme))]
    NotRegisteredKind {
        /// The GVK asked for.
        gvk: GroupVersionKind,
        /// The scheme's name.
        scheme: String,
    },
    /// The Rust type is not registered (R1.7).
    #[error("no kind is registered for the type {type_name} in scheme {scheme:?}")]
    NotRegisteredType {
        /// The Rust type name.
        type_name: String,
        /// The scheme's name.
        scheme: String,
    },
    /// The type cannot be converted to the target (R1.10).
    #[error("{type_name} is not suitable for converting to {target:?} in scheme {scheme:?}")]
    NotRegisteredTypeForTarget {
        /// The Rust type name.
        type_name: String,
        /// The target versioner's identifier.
        target: String,
        /// The scheme's name.
        scheme: String,
    },
    /// The group version cannot be converted to the target (R1.10).
    #[error("{:?} is not suitable for converting to {target:?} in scheme {scheme:?}", .gvk.api_version())]
    NotRegisteredGvkForTarget {
        /// The object's GVK.
        gvk: GroupVersionKind,
        /// The target versioner's identifier.
        target: String,
        /// The scheme's name.
        scheme: String,
    },
    /// The data has no kind (R2.7).
    #[error("Object 'Kind' is missing in '{data}'")]
    MissingKind {
        /// The offending data (or a description of it).
        data: String,
    },
    /// The data has no apiVersion (R2.7).
    #[error("Object 'apiVersion' is missing in '{data}'")]
    MissingVersion {
        /// The offending data (or a description of it).
        data: String,
    },
    /// Unknown or duplicate fields in strict mode (R1.9).
    #[error("{0}")]
    StrictDecoding(StrictDecodingError),
    /// A conversion failed or none is registered (R1.12).
    #[error("{0}")]
    Conversion(String),
    /// The object has no protobuf form; a 406 in the server (R2.19).
    #[error(
        "object {type_name} does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message"
    )]
    NotMarshalable {
        /// The Rust type name.
        type_name: String,
    },
    /// A bad apiVersion string (R1.20).
    #[error(transparent)]
    GroupVersion(#[from] ParseError),
    /// Bytes that do not decode.
    #[error("{0}")]
    Decode(String),
    /// An object that does not encode.
    #[error("{0}")]
    Encode(String),
    /// A scheme rule was broken (registration or priority).
    #[error("{0}")]
    Scheme(String),
}

fn not_registered_kind(gvk: &GroupVersionKind, scheme: &str) -> String {
    if gvk.kind.is_empty() {
        format!(
            "no version {:?} has been registered in scheme {scheme:?}",
            gvk.api_version()
        )
    } else if gvk.version == INTERNAL_VERSION {
        format!(
            "no kind {:?} is registered for the internal version of group {:?} in scheme {scheme:?}",
            gvk.kind, gvk.group
        )
    } else {
        format!(
            "no kind {:?} is registered for version {:?} in scheme {scheme:?}",
            gvk.kind,
            gvk.api_version()
        )
    }
}

impl Error {
    /// True for every not-registered variant (Go's `IsNotRegisteredError`).
    pub fn is_not_registered(&self) -> bool {
        matches!(
            self,
            Error::NotRegisteredKind { .. }
                | Error::NotRegisteredType { .. }
                | Error::NotRegisteredTypeForTarget { .. }
                | Error::NotRegisteredGvkForTarget { .. }
        )
    }

    /// True for a missing kind (Go's `IsMissingKind`).
    pub fn is_missing_kind(&self) -> bool {
        matches!(self, Error::MissingKind { .. })
    }

    /// True for a missing version (Go's `IsMissingVersion`).
    pub fn is_missing_version(&self) -> bool {
        matches!(self, Error::MissingVersion { .. })
    }

    /// The strict decoding error, if this is one (Go's `AsStrictDecodingError`).
    pub fn as_strict_decoding(&self) -> Option<&StrictDecodingError> {
        match self {
            Error::StrictDecoding(e) => Some(e),
            _ => None,
        }
    }

    /// Builds a strict decoding error carrying the object decoded anyway.
    pub fn strict(errors: Vec<String>, decoded: Option<Decoded>) -> Self {
        Error::StrictDecoding(StrictDecodingError {
            errors,
            decoded: decoded.map(Box::new),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_registered_messages_match_kubernetes_r1_6() {
        let e = Error::NotRegisteredKind {
            gvk: GroupVersionKind::new("apps", "v1", "Foo"),
            scheme: "s".into(),
        };
        assert_eq!(
            e.to_string(),
            r#"no kind "Foo" is registered for version "apps/v1" in scheme "s""#
        );
        let e = Error::NotRegisteredKind {
            gvk: GroupVersionKind::new("apps", INTERNAL_VERSION, "Foo"),
            scheme: "s".into(),
        };
        assert_eq!(
            e.to_string(),
            r#"no kind "Foo" is registered for the internal version of group "apps" in scheme "s""#
        );
        let e = Error::NotRegisteredKind {
            gvk: GroupVersionKind::new("apps", "v9", ""),
            scheme: "s".into(),
        };
        assert_eq!(
            e.to_string(),
            r#"no version "apps/v9" has been registered in scheme "s""#
        );
    }

    #[test]
    fn not_suitable_for_target_messages_match_kubernetes_r1_10() {
        let e = Error::NotRegisteredGvkForTarget {
            gvk: GroupVersionKind::new("a", "v1", "K"),
            target: "b/v2".into(),
            scheme: "s".into(),
        };
        assert_eq!(
            e.to_string(),
            r#""a/v1" is not suitable for converting to "b/v2" in scheme "s""#
        );
    }

    #[test]
    fn strict_decoding_error_joins_problems_r1_9() {
        let e = Error::strict(
            vec![
                r#"unknown field "a""#.into(),
                r#"duplicate field "b""#.into(),
            ],
            None,
        );
        assert_eq!(
            e.to_string(),
            r#"strict decoding error: unknown field "a", duplicate field "b""#
        );
        assert!(e.as_strict_decoding().is_some());
    }

    #[test]
    fn missing_kind_and_version_messages_r2_7() {
        assert_eq!(
            Error::MissingKind { data: "{}".into() }.to_string(),
            "Object 'Kind' is missing in '{}'"
        );
        assert_eq!(
            Error::MissingVersion { data: "{}".into() }.to_string(),
            "Object 'apiVersion' is missing in '{}'"
        );
    }
}
