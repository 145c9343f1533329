//! ServiceAccount keys as kube-apiserver reads them: the signing key
//! (`--service-account-signing-key-file`: an RSA key in PKCS#1 or PKCS#8, an EC P-256 or
//! P-384 key in SEC1 or PKCS#8) and the verifying keys (`--service-account-key-file`: any
//! number of public keys, certificates or private keys in one PEM file). Each key's id is
//! upstream's: the unpadded base64url SHA-256 of its DER `SubjectPublicKeyInfo`.

use crate::der;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, KeyPair, RsaKeyPair};
use serde_json::{Value, json};
use x509_parser::prelude::FromDer;
use x509_parser::public_key::PublicKey;
use x509_parser::x509::SubjectPublicKeyInfo;

/// Why a key file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The file holds no PEM block kapi can use.
    #[error("no {0} found (PEM blocks of RSA or EC keys, or certificates, are read)")]
    NotFound(&'static str),
    /// A PEM block that does not parse as its label says.
    #[error("invalid {label} PEM block: {reason}")]
    Invalid {
        /// The PEM label.
        label: String,
        /// What is wrong.
        reason: String,
    },
    /// A key of an algorithm or curve kapi does not support.
    #[error("unsupported key: {0}")]
    Unsupported(String),
    /// The system random source failed.
    #[error("no randomness for a new key")]
    Random,
}

/// The kind of a key, which fixes the algorithm kapi signs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// RSA: RS256 (verifies RS256, RS384, RS512).
    Rsa,
    /// EC P-256: ES256.
    P256,
    /// EC P-384: ES384.
    P384,
}

impl KeyKind {
    /// The JWS algorithm kapi signs with under this kind of key.
    pub fn signing_alg(self) -> &'static str {
        match self {
            KeyKind::Rsa => "RS256",
            KeyKind::P256 => "ES256",
            KeyKind::P384 => "ES384",
        }
    }

    /// ring's verification algorithm for a token's `alg` under this kind of key.
    fn verification(self, alg: &str) -> Option<&'static dyn signature::VerificationAlgorithm> {
        Some(match (self, alg) {
            (KeyKind::Rsa, "RS256") => &signature::RSA_PKCS1_2048_8192_SHA256,
            (KeyKind::Rsa, "RS384") => &signature::RSA_PKCS1_2048_8192_SHA384,
            (KeyKind::Rsa, "RS512") => &signature::RSA_PKCS1_2048_8192_SHA512,
            (KeyKind::Rsa, "PS256") => &signature::RSA_PSS_2048_8192_SHA256,
            (KeyKind::Rsa, "PS384") => &signature::RSA_PSS_2048_8192_SHA384,
            (KeyKind::Rsa, "PS512") => &signature::RSA_PSS_2048_8192_SHA512,
            (KeyKind::P256, "ES256") => &signature::ECDSA_P256_SHA256_FIXED,
            (KeyKind::P384, "ES384") => &signature::ECDSA_P384_SHA384_FIXED,
            _ => return None,
        })
    }
}

/// A public key that verifies ServiceAccount tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyingKey {
    kind: KeyKind,
    /// PKCS#1 `RSAPublicKey` DER, or the EC point.
    public: Vec<u8>,
    /// The DER `SubjectPublicKeyInfo`.
    spki: Vec<u8>,
    kid: String,
}

impl VerifyingKey {
    fn new(kind: KeyKind, public: Vec<u8>) -> Self {
        let spki = match kind {
            KeyKind::Rsa => der::rsa_spki(&public),
            KeyKind::P256 => der::ec_spki(der::OID_P256, &public),
            KeyKind::P384 => der::ec_spki(der::OID_P384, &public),
        };
        let digest = ring::digest::digest(&ring::digest::SHA256, &spki);
        let kid = URL_SAFE_NO_PAD.encode(digest.as_ref());
        Self {
            kind,
            public,
            spki,
            kid,
        }
    }

    fn from_spki(label: &str, der_bytes: &[u8]) -> Result<Self, KeyError> {
        let invalid = |reason: String| KeyError::Invalid {
            label: label.to_owned(),
            reason,
        };
        let (_, spki) =
            SubjectPublicKeyInfo::from_der(der_bytes).map_err(|e| invalid(e.to_string()))?;
        let oid = spki.algorithm.algorithm.as_bytes();
        let data = spki.subject_public_key.data.to_vec();
        if oid == der::OID_RSA {
            return Ok(Self::new(KeyKind::Rsa, data));
        }
        if oid == der::OID_EC {
            let curve = spki
                .algorithm
                .parameters
                .as_ref()
                .and_then(|p| p.as_oid().ok())
                .map(|o| o.as_bytes().to_vec())
                .unwrap_or_default();
            return match curve.as_slice() {
                c if c == der::OID_P256 => Ok(Self::new(KeyKind::P256, data)),
                c if c == der::OID_P384 => Ok(Self::new(KeyKind::P384, data)),
                _ => Err(KeyError::Unsupported(
                    "EC keys on curves other than P-256 and P-384".into(),
                )),
            };
        }
        Err(KeyError::Unsupported(format!(
            "public key algorithm {}",
            spki.algorithm.algorithm
        )))
    }

    /// The key id (`kid`) tokens signed by this key carry.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The kind of key.
    pub fn kind(&self) -> KeyKind {
        self.kind
    }

    /// Whether `signature` over `message` is this key's under the token's `alg`.
    pub fn verify(&self, alg: &str, message: &[u8], sig: &[u8]) -> bool {
        let Some(verification) = self.kind.verification(alg) else {
            return false;
        };
        signature::UnparsedPublicKey::new(verification, &self.public)
            .verify(message, sig)
            .is_ok()
    }

    /// The key as a JSON Web Key (`/openid/v1/jwks`), in go-jose's field order.
    pub fn jwk(&self) -> Value {
        let b64 = |b: &[u8]| URL_SAFE_NO_PAD.encode(b);
        let spki = SubjectPublicKeyInfo::from_der(&self.spki)
            .ok()
            .map(|(_, s)| s);
        let parsed = spki.as_ref().and_then(|s| s.parsed().ok());
        match (self.kind, parsed) {
            (KeyKind::Rsa, Some(PublicKey::RSA(rsa))) => json!({
                "use": "sig",
                "kty": "RSA",
                "kid": self.kid,
                "alg": "RS256",
                "n": b64(strip_zeros(rsa.modulus)),
                "e": b64(strip_zeros(rsa.exponent)),
            }),
            (kind, _) => {
                let coord = (self.public.len().saturating_sub(1)) / 2;
                let (x, y) = self.public.get(1..).unwrap_or_default().split_at(coord);
                json!({
                    "use": "sig",
                    "kty": "EC",
                    "kid": self.kid,
                    "crv": if kind == KeyKind::P384 { "P-384" } else { "P-256" },
                    "alg": kind.signing_alg(),
                    "x": b64(x),
                    "y": b64(y),
                })
            }
        }
    }
}

fn strip_zeros(b: &[u8]) -> &[u8] {
    let first = b.iter().position(|x| *x != 0).unwrap_or(b.len());
    &b[first..]
}

enum Pair {
    Rsa(RsaKeyPair),
    Ec(EcdsaKeyPair),
}

/// The private key kapi signs ServiceAccount tokens with.
pub struct SigningKey {
    pair: Pair,
    public: VerifyingKey,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("kind", &self.public.kind)
            .field("kid", &self.public.kid)
            .finish_non_exhaustive()
    }
}

impl SigningKey {
    /// The key's public half.
    pub fn verifying_key(&self) -> &VerifyingKey {
        &self.public
    }

    /// The JWS algorithm of this key's signatures.
    pub fn alg(&self) -> &'static str {
        self.public.kind.signing_alg()
    }

    /// Signs `message`.
    pub fn sign(&self, message: &[u8]) -> Result<Vec<u8>, KeyError> {
        let rng = SystemRandom::new();
        match &self.pair {
            Pair::Rsa(k) => {
                let mut sig = vec![0u8; k.public().modulus_len()];
                k.sign(&signature::RSA_PKCS1_SHA256, &rng, message, &mut sig)
                    .map_err(|_| KeyError::Random)?;
                Ok(sig)
            }
            Pair::Ec(k) => k
                .sign(&rng, message)
                .map(|s| s.as_ref().to_vec())
                .map_err(|_| KeyError::Random),
        }
    }

    fn from_rsa(pair: RsaKeyPair) -> Self {
        let public = VerifyingKey::new(KeyKind::Rsa, pair.public().as_ref().to_vec());
        Self {
            pair: Pair::Rsa(pair),
            public,
        }
    }

    fn from_ec(kind: KeyKind, pair: EcdsaKeyPair) -> Self {
        let public = VerifyingKey::new(kind, pair.public_key().as_ref().to_vec());
        Self {
            pair: Pair::Ec(pair),
            public,
        }
    }

    /// A private key from one PEM block (`PRIVATE KEY`, `RSA PRIVATE KEY`,
    /// `EC PRIVATE KEY`); `None` for blocks that are not private keys.
    fn from_block(label: &str, der_bytes: &[u8]) -> Option<Result<Self, KeyError>> {
        let invalid = |reason: &str| KeyError::Invalid {
            label: label.to_owned(),
            reason: reason.to_owned(),
        };
        let rng = SystemRandom::new();
        let ec = |kind: KeyKind, pkcs8: &[u8]| {
            let alg = match kind {
                KeyKind::P384 => &signature::ECDSA_P384_SHA384_FIXED_SIGNING,
                _ => &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            };
            EcdsaKeyPair::from_pkcs8(alg, pkcs8, &rng)
                .ok()
                .map(|p| Self::from_ec(kind, p))
        };
        Some(match label {
            "RSA PRIVATE KEY" => RsaKeyPair::from_der(der_bytes)
                .map(Self::from_rsa)
                .map_err(|e| invalid(&e.to_string())),
            "PRIVATE KEY" => RsaKeyPair::from_pkcs8(der_bytes)
                .ok()
                .map(Self::from_rsa)
                .or_else(|| ec(KeyKind::P256, der_bytes))
                .or_else(|| ec(KeyKind::P384, der_bytes))
                .ok_or_else(|| invalid("not an RSA, P-256 or P-384 key")),
            "EC PRIVATE KEY" => ec(KeyKind::P256, &der::sec1_to_pkcs8(der::OID_P256, der_bytes))
                .or_else(|| ec(KeyKind::P384, &der::sec1_to_pkcs8(der::OID_P384, der_bytes)))
                .ok_or_else(|| invalid("not a P-256 or P-384 key")),
            _ => return None,
        })
    }

    /// The first private key of a PEM file (`--service-account-signing-key-file`).
    pub fn from_pem(pem: &[u8]) -> Result<Self, KeyError> {
        for block in pem_blocks(pem)? {
            if let Some(key) = Self::from_block(&block.0, &block.1) {
                return key;
            }
        }
        Err(KeyError::NotFound("private key"))
    }

    /// A new EC P-256 key and its PKCS#8 PEM, for a data dir without a configured key.
    pub fn generate() -> Result<(Self, String), KeyError> {
        let rng = SystemRandom::new();
        let alg = &signature::ECDSA_P256_SHA256_FIXED_SIGNING;
        let doc = EcdsaKeyPair::generate_pkcs8(alg, &rng).map_err(|_| KeyError::Random)?;
        let pair = EcdsaKeyPair::from_pkcs8(alg, doc.as_ref(), &rng)
            .map_err(|e| KeyError::Unsupported(e.to_string()))?;
        let pem = pem_encode("PRIVATE KEY", doc.as_ref());
        Ok((Self::from_ec(KeyKind::P256, pair), pem))
    }
}

/// Every key of a PEM file (`--service-account-key-file`): public keys, certificates'
/// keys, and private keys' public halves.
pub fn verifying_keys_from_pem(pem: &[u8]) -> Result<Vec<VerifyingKey>, KeyError> {
    let mut keys = Vec::new();
    for (label, contents) in pem_blocks(pem)? {
        match label.as_str() {
            "PUBLIC KEY" => keys.push(VerifyingKey::from_spki(&label, &contents)?),
            "RSA PUBLIC KEY" => keys.push(VerifyingKey::new(KeyKind::Rsa, contents)),
            "CERTIFICATE" => {
                let (_, cert) = x509_parser::parse_x509_certificate(&contents).map_err(|e| {
                    KeyError::Invalid {
                        label: label.clone(),
                        reason: e.to_string(),
                    }
                })?;
                keys.push(VerifyingKey::from_spki(&label, cert.public_key().raw)?);
            }
            other => {
                if let Some(key) = SigningKey::from_block(other, &contents) {
                    keys.push(key?.public);
                }
            }
        }
    }
    if keys.is_empty() {
        return Err(KeyError::NotFound("public key"));
    }
    Ok(keys)
}

fn pem_blocks(pem: &[u8]) -> Result<Vec<(String, Vec<u8>)>, KeyError> {
    let mut out = Vec::new();
    for block in x509_parser::pem::Pem::iter_from_buffer(pem) {
        let block = block.map_err(|e| KeyError::Invalid {
            label: "PEM".into(),
            reason: e.to_string(),
        })?;
        out.push((block.label, block.contents));
    }
    Ok(out)
}

/// `data` as one PEM block.
pub fn pem_encode(label: &str, data: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(data);
    let mut out = format!("-----BEGIN {label}-----\n");
    for chunk in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_key_signs_what_its_public_half_verifies() {
        let (key, _) = SigningKey::generate().unwrap();
        let sig = key.sign(b"hello").unwrap();
        assert!(key.verifying_key().verify("ES256", b"hello", &sig));
        assert!(!key.verifying_key().verify("ES256", b"hellO", &sig));
        assert!(!key.verifying_key().verify("RS256", b"hello", &sig));
    }

    #[test]
    fn a_generated_key_reads_back_from_its_pem_with_the_same_kid() {
        let (key, pem) = SigningKey::generate().unwrap();
        let again = SigningKey::from_pem(pem.as_bytes()).unwrap();
        assert_eq!(again.verifying_key().kid(), key.verifying_key().kid());
        let public = verifying_keys_from_pem(pem.as_bytes()).unwrap();
        assert_eq!(public, vec![key.verifying_key().clone()]);
    }

    #[test]
    fn the_public_key_pem_of_a_key_has_its_kid() {
        let (key, _) = SigningKey::generate().unwrap();
        let spki = &key.verifying_key().spki;
        let public_pem = pem_encode("PUBLIC KEY", spki);
        let from_public = verifying_keys_from_pem(public_pem.as_bytes()).unwrap();
        assert_eq!(from_public[0].kid(), key.verifying_key().kid());
        assert_eq!(from_public[0].kind(), KeyKind::P256);
    }

    #[test]
    fn a_file_without_keys_is_an_error() {
        assert!(matches!(
            SigningKey::from_pem(b"nothing here"),
            Err(KeyError::NotFound(_))
        ));
        assert!(verifying_keys_from_pem(b"").is_err());
    }

    #[test]
    fn an_ec_jwk_carries_the_point_coordinates() {
        let (key, _) = SigningKey::generate().unwrap();
        let jwk = key.verifying_key().jwk();
        assert_eq!(jwk["kty"], "EC");
        assert_eq!(jwk["crv"], "P-256");
        assert_eq!(jwk["alg"], "ES256");
        assert_eq!(jwk["kid"], key.verifying_key().kid());
        let x = URL_SAFE_NO_PAD.decode(jwk["x"].as_str().unwrap()).unwrap();
        assert_eq!(x.len(), 32);
    }
}
