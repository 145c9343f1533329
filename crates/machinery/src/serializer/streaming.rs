//! Stream encoder and decoder: one object per frame (Go's `streaming` package, R2.25).

use super::framer::{FrameReader, Framing};
use super::{SharedDecoder, SharedEncoder};
use crate::runtime::{Decoded, Object, Result};

/// Encodes objects into frames.
#[derive(Clone)]
pub struct StreamEncoder {
    encoder: SharedEncoder,
    framing: Framing,
}

impl StreamEncoder {
    /// Frames what `encoder` writes with `framing`.
    pub fn new(encoder: SharedEncoder, framing: Framing) -> Self {
        Self { encoder, framing }
    }

    /// Appends one framed object.
    pub fn encode(&self, obj: &dyn Object, out: &mut Vec<u8>) -> Result<()> {
        let mut payload = Vec::new();
        self.encoder.encode(obj, &mut payload)?;
        self.framing.write_frame(&payload, out)
    }
}

/// Decodes objects out of framed bytes as they arrive.
pub struct StreamDecoder {
    reader: FrameReader,
    decoder: SharedDecoder,
}

impl StreamDecoder {
    /// Reads frames of `framing` and decodes each with `decoder`.
    pub fn new(decoder: SharedDecoder, framing: Framing) -> Self {
        Self {
            reader: FrameReader::new(framing),
            decoder,
        }
    }

    /// Appends received bytes.
    pub fn push(&mut self, data: &[u8]) {
        self.reader.push(data);
    }

    /// The next object, `Ok(None)` if more bytes are needed.
    pub fn next_object(&mut self, into: Option<&dyn Object>) -> Result<Option<Decoded>> {
        match self.reader.next_frame()? {
            None => Ok(None),
            Some(frame) => self.decoder.decode(&frame, None, into).map(Some),
        }
    }
}
