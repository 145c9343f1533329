//! Stream framing for watch: JSON values back to back, or 4-byte big-endian length prefixes
//! (R2.22–R2.24). Readers are incremental: push bytes as they arrive, pop whole frames.

use crate::runtime::{Error, Result};

/// Largest frame a reader accepts (Go's streaming decoder limit, R2.25).
pub const MAX_FRAME_SIZE: usize = 16 * 1024 * 1024;

/// How frames are delimited on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// JSON values one after another; the JSON encoder's `\n` ends each (R2.22).
    Json,
    /// A 4-byte big-endian length before each frame (R2.23).
    LengthDelimited,
    /// `---\n` before each YAML document (R2.24).
    Yaml,
}

impl Framing {
    /// Appends one frame holding `payload`.
    pub fn write_frame(self, payload: &[u8], out: &mut Vec<u8>) -> Result<()> {
        match self {
            Framing::Json => out.extend_from_slice(payload),
            Framing::LengthDelimited => {
                let len = u32::try_from(payload.len())
                    .map_err(|_| Error::Encode("frame larger than 4 GiB".into()))?;
                out.extend_from_slice(&len.to_be_bytes());
                out.extend_from_slice(payload);
            }
            Framing::Yaml => {
                out.extend_from_slice(b"---\n");
                out.extend_from_slice(payload);
            }
        }
        Ok(())
    }
}

/// Collects bytes and returns complete frames.
#[derive(Debug)]
pub struct FrameReader {
    framing: Framing,
    buf: Vec<u8>,
    max_frame: usize,
}

impl FrameReader {
    /// A reader for `framing` (JSON or length-delimited).
    pub fn new(framing: Framing) -> Self {
        Self {
            framing,
            buf: Vec::new(),
            max_frame: MAX_FRAME_SIZE,
        }
    }

    /// Appends received bytes.
    pub fn push(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
    }

    /// The next complete frame, `Ok(None)` if more bytes are needed.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>> {
        match self.framing {
            Framing::LengthDelimited => self.next_length_delimited(),
            Framing::Json | Framing::Yaml => self.next_json(),
        }
    }

    fn next_length_delimited(&mut self) -> Result<Option<Vec<u8>>> {
        let Some(header) = self.buf.first_chunk::<4>() else {
            return Ok(None);
        };
        let len = u32::from_be_bytes(*header) as usize;
        if len > self.max_frame {
            self.buf.clear();
            return Err(Error::Decode(
                "object to decode was longer than maximum allowed size".into(),
            ));
        }
        if self.buf.len() < 4 + len {
            return Ok(None);
        }
        let frame = self.buf[4..4 + len].to_vec();
        self.buf.drain(..4 + len);
        Ok(Some(frame))
    }

    fn next_json(&mut self) -> Result<Option<Vec<u8>>> {
        let start = self
            .buf
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(self.buf.len());
        if start == self.buf.len() {
            self.buf.clear();
            return Ok(None);
        }
        let mut stream = serde_json::Deserializer::from_slice(&self.buf[start..])
            .into_iter::<serde::de::IgnoredAny>();
        match stream.next() {
            Some(Ok(_)) => {
                let end = start + stream.byte_offset();
                let frame = self.buf[start..end].to_vec();
                self.buf.drain(..end);
                Ok(Some(frame))
            }
            Some(Err(e)) if e.is_eof() => {
                if self.buf.len() > self.max_frame {
                    self.buf.clear();
                    return Err(Error::Decode(
                        "object to decode was longer than maximum allowed size".into(),
                    ));
                }
                Ok(None)
            }
            Some(Err(e)) => {
                self.buf.clear();
                Err(Error::Decode(e.to_string()))
            }
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_delimited_frames_have_big_endian_prefix_r2_23() {
        let mut out = Vec::new();
        Framing::LengthDelimited
            .write_frame(b"abc", &mut out)
            .unwrap();
        assert_eq!(out, b"\x00\x00\x00\x03abc");
    }

    #[test]
    fn json_reader_returns_one_value_per_frame_across_pushes_r2_22() {
        let mut r = FrameReader::new(Framing::Json);
        r.push(b"{\"a\":1}\n{\"b\":");
        assert_eq!(r.next_frame().unwrap().unwrap(), b"{\"a\":1}");
        assert_eq!(r.next_frame().unwrap(), None);
        r.push(b"2}\n");
        assert_eq!(r.next_frame().unwrap().unwrap(), b"{\"b\":2}");
    }

    #[test]
    fn length_delimited_reader_waits_for_whole_frame() {
        let mut r = FrameReader::new(Framing::LengthDelimited);
        r.push(b"\x00\x00\x00\x05ab");
        assert_eq!(r.next_frame().unwrap(), None);
        r.push(b"cde");
        assert_eq!(r.next_frame().unwrap().unwrap(), b"abcde");
    }

    #[test]
    fn length_prefix_beyond_limit_is_an_error_r2_25() {
        let mut r = FrameReader::new(Framing::LengthDelimited);
        r.push(&[0xff, 0xff, 0xff, 0xff, 1, 2]);
        assert!(r.next_frame().is_err());
    }

    #[test]
    fn yaml_writer_puts_separator_before_each_document_r2_24() {
        let mut out = Vec::new();
        Framing::Yaml.write_frame(b"a: 1\n", &mut out).unwrap();
        Framing::Yaml.write_frame(b"b: 2\n", &mut out).unwrap();
        assert_eq!(out, b"---\na: 1\n---\nb: 2\n");
    }
}
