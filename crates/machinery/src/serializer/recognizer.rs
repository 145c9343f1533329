//! The recognizing decoder: picks the decoder whose format the data is in (R2.21).

use super::{Decoder, SharedDecoder};
use crate::runtime::{Decoded, Error, Object, Result};
use crate::schema::GroupVersionKind;

/// How a decoder recognizes its data: `(recognized, unknown)`.
pub type Recognizer = fn(&[u8]) -> (bool, bool);

/// Tries the decoder that recognizes the data, then those that cannot tell, in order.
#[derive(Clone)]
pub struct RecognizingDecoder {
    decoders: Vec<(SharedDecoder, Option<Recognizer>)>,
}

impl std::fmt::Debug for RecognizingDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecognizingDecoder")
            .field("decoders", &self.decoders.len())
            .finish()
    }
}

impl RecognizingDecoder {
    /// Decoders with their recognizers (`None`: a decoder that cannot recognize).
    pub fn new(decoders: Vec<(SharedDecoder, Option<Recognizer>)>) -> Self {
        Self { decoders }
    }
}

fn usable(result: &Result<Decoded>) -> bool {
    match result {
        Ok(_) => true,
        Err(Error::StrictDecoding(e)) => e.decoded.is_some(),
        Err(_) => false,
    }
}

impl Decoder for RecognizingDecoder {
    fn decode(
        &self,
        data: &[u8],
        defaults: Option<&GroupVersionKind>,
        into: Option<&dyn Object>,
    ) -> Result<Decoded> {
        let mut skipped: Vec<&SharedDecoder> = Vec::new();
        for (decoder, recognizer) in &self.decoders {
            match recognizer.map(|r| r(data)) {
                Some((true, _)) => return decoder.decode(data, defaults, into),
                Some((false, false)) => {}
                Some((false, true)) | None => skipped.push(decoder),
            }
        }
        let mut last = None;
        for decoder in skipped {
            let result = decoder.decode(data, defaults, into);
            if usable(&result) {
                return result;
            }
            last = Some(result);
        }
        last.unwrap_or_else(|| {
            Err(Error::Decode(
                "no serialization format matched the provided data".into(),
            ))
        })
    }
}
