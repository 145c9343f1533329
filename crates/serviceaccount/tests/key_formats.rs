//! Keys in every PEM form kube-apiserver reads, made by openssl (tests/data), give the
//! key ids openssl's own SubjectPublicKeyInfo hashes to, and sign what they verify.

use kapi_serviceaccount::keys::{KeyKind, SigningKey, verifying_keys_from_pem};

const RSA_KID: &str = "uN5PDwn5hlqMcEn2JXIdtORZ5AoMrTPjVwkUapDcvG8";
const EC_KID: &str = "TAFpBv55lrQ98yzbhSR82NmQy4Br3RTV071sjZNG4Oc";
const EC384_KID: &str = "eOWWO0iDtXmSYmoStgm6SvLQsrBc2hbX7ACveaE2fOg";

fn data(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn signs_and_verifies(key: &SigningKey) {
    let sig = key.sign(b"message").unwrap();
    assert!(key.verifying_key().verify(key.alg(), b"message", &sig));
}

#[test]
fn an_rsa_pkcs1_private_key_signs_rs256_with_openssls_kid() {
    let key = SigningKey::from_pem(&data("rsa-pkcs1.key")).unwrap();
    assert_eq!(key.alg(), "RS256");
    assert_eq!(key.verifying_key().kid(), RSA_KID);
    signs_and_verifies(&key);
}

#[test]
fn an_rsa_pkcs8_private_key_is_the_same_key() {
    let key = SigningKey::from_pem(&data("rsa-pkcs8.key")).unwrap();
    assert_eq!(key.verifying_key().kid(), RSA_KID);
}

#[test]
fn an_ec_sec1_private_key_after_its_parameters_block_signs_es256() {
    let key = SigningKey::from_pem(&data("ec-sec1.key")).unwrap();
    assert_eq!(key.alg(), "ES256");
    assert_eq!(key.verifying_key().kid(), EC_KID);
    signs_and_verifies(&key);
}

#[test]
fn a_p384_pkcs8_private_key_signs_es384() {
    let key = SigningKey::from_pem(&data("ec384-pkcs8.key")).unwrap();
    assert_eq!(key.alg(), "ES384");
    assert_eq!(key.verifying_key().kid(), EC384_KID);
    signs_and_verifies(&key);
}

#[test]
fn public_keys_certificates_and_private_keys_all_verify_with_the_same_kid() {
    for file in [
        "rsa.pub",
        "rsa-pkcs1.pub",
        "rsa.crt",
        "rsa-pkcs1.key",
        "rsa-pkcs8.key",
    ] {
        let keys = verifying_keys_from_pem(&data(file)).unwrap();
        assert_eq!(keys.len(), 1, "{file}");
        assert_eq!(keys[0].kid(), RSA_KID, "{file}");
        assert_eq!(keys[0].kind(), KeyKind::Rsa, "{file}");
    }
}

#[test]
fn a_signature_by_the_private_key_verifies_with_the_certificate() {
    let key = SigningKey::from_pem(&data("rsa-pkcs1.key")).unwrap();
    let cert = verifying_keys_from_pem(&data("rsa.crt")).unwrap();
    let sig = key.sign(b"message").unwrap();
    assert!(cert[0].verify("RS256", b"message", &sig));
}

#[test]
fn several_keys_in_one_file_are_all_read() {
    let mut both = data("rsa.pub");
    both.extend(data("ec-sec1.key"));
    let keys = verifying_keys_from_pem(&both).unwrap();
    let kids: Vec<&str> = keys.iter().map(|k| k.kid()).collect();
    assert_eq!(kids, vec![RSA_KID, EC_KID]);
}

#[test]
fn an_rsa_jwk_has_the_modulus_and_exponent() {
    let keys = verifying_keys_from_pem(&data("rsa.pub")).unwrap();
    let jwk = keys[0].jwk();
    assert_eq!(jwk["kty"], "RSA");
    assert_eq!(jwk["alg"], "RS256");
    assert_eq!(jwk["e"], "AQAB");
    // 2048 bits: 256 bytes, 342 base64url characters without padding.
    assert_eq!(jwk["n"].as_str().unwrap().len(), 342);
}

#[test]
fn a_public_key_is_not_a_signing_key() {
    assert!(SigningKey::from_pem(&data("rsa.pub")).is_err());
}
