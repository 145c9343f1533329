//! Feeds arbitrary bytes to every decoder; any panic or overflow is a bug.
#![no_main]

use kapi_machinery::runtime::{Scheme, Unstructured};
use kapi_machinery::serializer::framer::{FrameReader, Framing};
use kapi_machinery::serializer::CodecFactory;
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};

fn codecs() -> &'static CodecFactory {
    static CODECS: OnceLock<CodecFactory> = OnceLock::new();
    CODECS.get_or_init(|| {
        let mut scheme = Scheme::new("fuzz");
        kapi_machinery::meta::v1::add_to_scheme(&mut scheme).expect("meta types register");
        CodecFactory::new(Arc::new(scheme))
    })
}

fuzz_target!(|data: &[u8]| {
    let f = codecs();
    let _ = f.universal_deserializer().decode(data, None, None);
    let _ = f.universal_deserializer().decode(data, None, Some(&Unstructured::default()));
    for info in f.supported_media_types() {
        let _ = info.serializer.decode(data, None, None);
        if let Some(strict) = &info.strict_serializer {
            let _ = strict.decode(data, None, None);
        }
    }
    for framing in [Framing::Json, Framing::LengthDelimited] {
        let mut reader = FrameReader::new(framing);
        reader.push(data);
        while let Ok(Some(_)) = reader.next_frame() {}
    }
});
