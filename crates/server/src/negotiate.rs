//! Content negotiation: which serializer and transform answer a request (`Accept`, R3.7–R3.10,
//! R3.12), and which decoder reads its body (`Content-Type`, R3.11).

use crate::status::ApiError;

/// JSON.
pub const JSON: &str = "application/json";
/// YAML.
pub const YAML: &str = "application/yaml";
/// Kubernetes protobuf (`k8s\0` envelope).
pub const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

/// A wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    /// `application/json`.
    Json,
    /// `application/yaml`.
    Yaml,
    /// `application/vnd.kubernetes.protobuf`.
    Protobuf,
}

impl Media {
    /// The bare media type.
    pub fn as_str(self) -> &'static str {
        match self {
            Media::Json => JSON,
            Media::Yaml => YAML,
            Media::Protobuf => PROTOBUF,
        }
    }
}

/// A response transform requested with `as=` (meta.k8s.io v1/v1beta1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    /// The object itself.
    None,
    /// `as=Table`.
    Table,
    /// `as=PartialObjectMetadata`.
    PartialObjectMetadata,
    /// `as=PartialObjectMetadataList`.
    PartialObjectMetadataList,
}

/// The negotiated response representation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Output {
    /// Serializer.
    pub media: Media,
    /// Transform.
    pub transform: Transform,
    /// The `v=` of the transform (`v1` or `v1beta1`).
    pub transform_v1beta1: bool,
}

/// One parsed clause of an Accept header.
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    /// `type/subtype`, lower-cased.
    pub media: String,
    /// Parameters, keys lower-cased.
    pub params: Vec<(String, String)>,
    /// Quality.
    pub q: f32,
}

impl Clause {
    /// A parameter value.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses an Accept header into clauses ordered by quality (stable otherwise).
pub fn parse_accept(header: &str) -> Vec<Clause> {
    let mut clauses: Vec<Clause> = header
        .split(',')
        .filter_map(|raw| {
            let mut parts = raw.split(';');
            let media = parts.next()?.trim().to_ascii_lowercase();
            if media.is_empty() {
                return None;
            }
            let mut q = 1.0;
            let mut params = Vec::new();
            for p in parts {
                let Some((k, v)) = p.split_once('=') else {
                    continue;
                };
                let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().trim_matches('"'));
                if k == "q" {
                    q = v.parse().unwrap_or(0.0);
                } else {
                    params.push((k, v.to_owned()));
                }
            }
            Some(Clause { media, params, q })
        })
        .filter(|c| c.q > 0.0)
        .collect();
    clauses.sort_by(|a, b| b.q.partial_cmp(&a.q).unwrap_or(std::cmp::Ordering::Equal));
    clauses
}

fn media_matches(clause: &str, media: Media) -> bool {
    clause == "*/*" || clause == "application/*" || clause == media.as_str()
}

/// The media types a resource can be served in, in preference order.
pub fn offered(protobuf: bool) -> Vec<Media> {
    if protobuf {
        vec![Media::Json, Media::Yaml, Media::Protobuf]
    } else {
        vec![Media::Json, Media::Yaml]
    }
}

/// The media type of an error `Status` (kube's `ErrorNegotiated` with the default endpoint
/// restrictions): the first `Accept` clause without a transform that names a serializer;
/// JSON when none does, as kube writes an error it cannot negotiate as JSON.
pub fn negotiate_error(accept: Option<&str>) -> Media {
    let Some(accept) = accept else {
        return Media::Json;
    };
    for clause in parse_accept(accept) {
        if clause.param("as").is_some() {
            continue;
        }
        if let Some(media) = offered(true)
            .into_iter()
            .find(|m| media_matches(&clause.media, *m))
        {
            return media;
        }
    }
    Media::Json
}

/// Picks the response representation for a resource request (R3.7–R3.9).
pub fn negotiate_output(accept: Option<&str>, protobuf: bool) -> Result<Output, ApiError> {
    let offer = offered(protobuf);
    let plain = Output {
        media: Media::Json,
        transform: Transform::None,
        transform_v1beta1: false,
    };
    let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
        return Ok(plain);
    };
    for clause in parse_accept(accept) {
        let transform = match clause_transform(&clause) {
            Some(t) => t,
            None => continue,
        };
        // Transforms to PartialObjectMetadata may use protobuf even where the kind cannot (R3.9).
        let candidates: Vec<Media> = match transform.0 {
            Transform::Table => vec![Media::Json, Media::Yaml],
            Transform::PartialObjectMetadata | Transform::PartialObjectMetadataList => {
                offered(true)
            }
            Transform::None => offer.clone(),
        };
        if let Some(media) = candidates
            .into_iter()
            .find(|m| media_matches(&clause.media, *m))
        {
            return Ok(Output {
                media,
                transform: transform.0,
                transform_v1beta1: transform.1,
            });
        }
    }
    let names: Vec<&str> = offer.iter().map(|m| m.as_str()).collect();
    Err(ApiError::not_acceptable(&names))
}

/// The transform a clause asks for; `None` when the clause cannot be honoured.
fn clause_transform(clause: &Clause) -> Option<(Transform, bool)> {
    let Some(as_kind) = clause.param("as") else {
        return Some((Transform::None, false));
    };
    if clause.param("g") != Some("meta.k8s.io") {
        return None;
    }
    let v1beta1 = match clause.param("v") {
        Some("v1") => false,
        Some("v1beta1") => true,
        _ => return None,
    };
    let t = match as_kind {
        "Table" => Transform::Table,
        "PartialObjectMetadata" => Transform::PartialObjectMetadata,
        "PartialObjectMetadataList" => Transform::PartialObjectMetadataList,
        _ => return None,
    };
    Some((t, v1beta1))
}

/// Picks the decoder for a request body from `Content-Type` (parameters ignored, R3.11).
pub fn negotiate_input(content_type: Option<&str>, protobuf: bool) -> Result<Media, ApiError> {
    let offer = offered(protobuf);
    let media = content_type
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if media.is_empty() {
        return Ok(Media::Json);
    }
    offer
        .iter()
        .copied()
        .find(|m| m.as_str() == media)
        .ok_or_else(|| {
            let names: Vec<&str> = offer.iter().map(|m| m.as_str()).collect();
            ApiError::unsupported_media_type(&names)
        })
}

/// Pretty output: `?pretty=true|1`, `pretty=1` in Accept, or (without `?pretty`) a
/// browser/curl/wget User-Agent (R3.10).
pub fn is_pretty(
    pretty_param: Option<&str>,
    accept: Option<&str>,
    user_agent: Option<&str>,
) -> bool {
    if let Some(p) = pretty_param.filter(|p| !p.is_empty()) {
        return matches!(p, "true" | "1" | "True" | "TRUE" | "t" | "T");
    }
    if accept.is_some_and(|a| {
        parse_accept(a)
            .iter()
            .any(|c| c.param("pretty") == Some("1"))
    }) {
        return true;
    }
    user_agent.is_some_and(|ua| {
        ["curl", "Wget", "Mozilla/5.0"]
            .iter()
            .any(|p| ua.starts_with(p))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBECTL_GET: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    #[test]
    fn kubectl_get_accept_negotiates_table_v1() {
        let out = negotiate_output(Some(KUBECTL_GET), true).unwrap();
        assert_eq!(out.transform, Transform::Table);
        assert_eq!(out.media, Media::Json);
        assert!(!out.transform_v1beta1);
    }

    #[test]
    fn empty_accept_is_json() {
        assert_eq!(negotiate_output(None, true).unwrap().media, Media::Json);
    }

    #[test]
    fn xml_accept_is_406_listing_representations() {
        let err = negotiate_output(Some("application/xml"), true).unwrap_err();
        assert_eq!(err.code, 406);
        assert!(
            err.message.ends_with(
                "application/json, application/yaml, application/vnd.kubernetes.protobuf"
            )
        );
    }

    #[test]
    fn protobuf_is_not_acceptable_without_a_protobuf_codec() {
        assert!(negotiate_output(Some(PROTOBUF), false).is_err());
    }

    #[test]
    fn table_in_an_unknown_group_falls_through_to_the_next_clause() {
        let out = negotiate_output(
            Some("application/json;as=Table;g=x;v=v1, application/yaml"),
            true,
        )
        .unwrap();
        assert_eq!((out.media, out.transform), (Media::Yaml, Transform::None));
    }

    #[test]
    fn content_type_parameters_are_ignored_and_xml_is_415() {
        assert_eq!(
            negotiate_input(Some("application/json; charset=utf-8"), true).unwrap(),
            Media::Json
        );
        assert_eq!(
            negotiate_input(Some("application/xml"), true)
                .unwrap_err()
                .code,
            415
        );
    }

    #[test]
    fn curl_user_agent_is_pretty_unless_pretty_false() {
        assert!(is_pretty(None, None, Some("curl/8.0")));
        assert!(!is_pretty(Some("false"), None, Some("curl/8.0")));
        assert!(!is_pretty(None, None, Some("kubectl/v1.32")));
    }
}
