//! The few DER structures kapi writes itself: a public key's `SubjectPublicKeyInfo` (what
//! a key id is the hash of) and the PKCS#8 wrapping of a SEC1 EC private key (what ring
//! reads).

/// `rsaEncryption` (1.2.840.113549.1.1.1).
pub const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
/// `id-ecPublicKey` (1.2.840.10045.2.1).
pub const OID_EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
/// `prime256v1` (1.2.840.10045.3.1.7).
pub const OID_P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
/// `secp384r1` (1.3.132.0.34).
pub const OID_P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];

/// One DER element: `tag`, its length, `content`.
pub fn element(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len
            .to_be_bytes()
            .into_iter()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

fn sequence(parts: &[&[u8]]) -> Vec<u8> {
    element(0x30, &parts.concat())
}

fn bit_string(bytes: &[u8]) -> Vec<u8> {
    let mut content = vec![0u8];
    content.extend_from_slice(bytes);
    element(0x03, &content)
}

/// The `SubjectPublicKeyInfo` of an RSA key given as PKCS#1 `RSAPublicKey` DER.
pub fn rsa_spki(pkcs1: &[u8]) -> Vec<u8> {
    let alg = sequence(&[&element(0x06, OID_RSA), &element(0x05, &[])]);
    sequence(&[&alg, &bit_string(pkcs1)])
}

/// The `SubjectPublicKeyInfo` of an EC key on `curve` (an OID) given as its point.
pub fn ec_spki(curve: &[u8], point: &[u8]) -> Vec<u8> {
    let alg = sequence(&[&element(0x06, OID_EC), &element(0x06, curve)]);
    sequence(&[&alg, &bit_string(point)])
}

/// A SEC1 `ECPrivateKey` on `curve` wrapped as PKCS#8 `PrivateKeyInfo`.
pub fn sec1_to_pkcs8(curve: &[u8], sec1: &[u8]) -> Vec<u8> {
    let alg = sequence(&[&element(0x06, OID_EC), &element(0x06, curve)]);
    sequence(&[&element(0x02, &[0]), &alg, &element(0x04, sec1)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lengths_use_the_long_form() {
        let e = element(0x04, &[0u8; 300]);
        assert_eq!(&e[..4], &[0x04, 0x82, 0x01, 0x2c]);
        assert_eq!(e.len(), 304);
    }

    #[test]
    fn short_lengths_use_one_byte() {
        assert_eq!(element(0x05, &[]), vec![0x05, 0x00]);
        assert_eq!(element(0x02, &[0]), vec![0x02, 0x01, 0x00]);
    }

    #[test]
    fn an_ec_spki_parses_back_as_x509_parser_reads_it() {
        use x509_parser::prelude::FromDer;
        let point = [4u8; 65];
        let der = ec_spki(OID_P256, &point);
        let (rest, spki) = x509_parser::x509::SubjectPublicKeyInfo::from_der(&der).unwrap();
        assert!(rest.is_empty());
        assert_eq!(&*spki.subject_public_key.data, &point[..]);
    }
}
