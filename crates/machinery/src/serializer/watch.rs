//! Watch event encoding: the object is encoded first with the negotiated encoder, then
//! wrapped in a WatchEvent, encoded with the stream serializer and framed (R2.26–R2.28).

use super::framer::Framing;
use super::{Decoder, SharedDecoder, SharedEncoder};
use crate::meta::v1::{RawExtension, WatchEvent};
use crate::runtime::{Decoded, Error, Object, Result};

/// Content type of a JSON watch response (no `stream=watch` suffix, R2.28).
pub const WATCH_CONTENT_TYPE_JSON: &str = "application/json";
/// Content type of a protobuf watch response (R2.28).
pub const WATCH_CONTENT_TYPE_PROTOBUF: &str = "application/vnd.kubernetes.protobuf;stream=watch";

/// Encodes watch events into framed bytes.
#[derive(Clone)]
pub struct WatchEncoder {
    embedded: SharedEncoder,
    stream: SharedEncoder,
    framing: Framing,
}

impl WatchEncoder {
    /// `embedded` encodes the object (e.g. JSON, or protobuf with its envelope); `stream`
    /// encodes the WatchEvent (JSON, or raw protobuf); `framing` delimits events.
    pub fn new(embedded: SharedEncoder, stream: SharedEncoder, framing: Framing) -> Self {
        Self {
            embedded,
            stream,
            framing,
        }
    }

    /// Appends one framed event of `event_type` (`ADDED`, …) carrying `obj`.
    pub fn encode_event(
        &self,
        event_type: &str,
        obj: &dyn Object,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let mut raw = Vec::new();
        self.embedded.encode(obj, &mut raw)?;
        if self.framing == Framing::Json && raw.last() == Some(&b'\n') {
            raw.pop();
        }
        let event = WatchEvent {
            type_: event_type.to_string(),
            object: RawExtension { raw },
        };
        let mut payload = Vec::new();
        self.stream.encode(&event, &mut payload)?;
        self.framing.write_frame(&payload, out)
    }
}

/// Decodes one watch event frame: the event, then its embedded object.
pub fn decode_event(
    frame: &[u8],
    stream: &dyn Decoder,
    embedded: &SharedDecoder,
    into: Option<&dyn Object>,
) -> Result<(String, Decoded)> {
    let event = stream.decode(frame, None, Some(&WatchEvent::default()))?;
    let event = event
        .object
        .downcast_ref::<WatchEvent>()
        .ok_or_else(|| Error::Decode("frame is not a WatchEvent".into()))?;
    let object = embedded.decode(&event.object.raw, None, into)?;
    Ok((event.type_.clone(), object))
}
