//! JWS compact serialization (RFC 7515): `base64url(header).base64url(claims).base64url(sig)`.

use crate::keys::{KeyError, SigningKey, VerifyingKey};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

/// `claims` signed by `key`, its header naming the algorithm and the key id.
pub fn sign(key: &SigningKey, claims: &Value) -> Result<String, KeyError> {
    let header = json!({"alg": key.alg(), "kid": key.verifying_key().kid()});
    let b64 = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());
    let input = format!("{}.{}", b64(&header), b64(claims));
    let sig = key.sign(input.as_bytes())?;
    Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig)))
}

/// A token split into its parts, its signature not checked yet.
#[derive(Debug, Clone)]
pub struct Unverified {
    /// The protected header.
    pub header: Value,
    /// The claims.
    pub claims: Value,
    input: String,
    signature: Vec<u8>,
}

impl Unverified {
    /// Splits and decodes a compact JWS; `None` when the text is not one (so the token is
    /// some other authenticator's).
    pub fn parse(token: &str) -> Option<Self> {
        let mut parts = token.split('.');
        let (h, c, s) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let json = |part: &str| -> Option<Value> {
            let bytes = URL_SAFE_NO_PAD.decode(part.trim_end_matches('=')).ok()?;
            serde_json::from_slice::<Value>(&bytes)
                .ok()
                .filter(Value::is_object)
        };
        Some(Self {
            header: json(h)?,
            claims: json(c)?,
            input: format!("{h}.{c}"),
            signature: URL_SAFE_NO_PAD.decode(s.trim_end_matches('=')).ok()?,
        })
    }

    /// Whether one of `keys` made the signature (the key the header's `kid` names first).
    pub fn verified_by(&self, keys: &[VerifyingKey]) -> bool {
        let alg = self.header["alg"].as_str().unwrap_or_default();
        let kid = self.header["kid"].as_str();
        let verifies = |k: &&VerifyingKey| k.verify(alg, self.input.as_bytes(), &self.signature);
        keys.iter()
            .filter(|k| kid == Some(k.kid()))
            .any(|k| verifies(&k))
            || keys
                .iter()
                .filter(|k| kid != Some(k.kid()))
                .any(|k| verifies(&k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_token_parses_back_and_verifies() {
        let (key, _) = SigningKey::generate().unwrap();
        let token = sign(&key, &json!({"sub": "x"})).unwrap();
        let t = Unverified::parse(&token).unwrap();
        assert_eq!(t.claims["sub"], "x");
        assert_eq!(t.header["alg"], "ES256");
        assert!(t.verified_by(&[key.verifying_key().clone()]));
    }

    #[test]
    fn another_keys_signature_does_not_verify() {
        let (key, _) = SigningKey::generate().unwrap();
        let (other, _) = SigningKey::generate().unwrap();
        let token = sign(&other, &json!({"sub": "x"})).unwrap();
        let t = Unverified::parse(&token).unwrap();
        assert!(!t.verified_by(&[key.verifying_key().clone()]));
    }

    #[test]
    fn changed_claims_do_not_verify() {
        let (key, _) = SigningKey::generate().unwrap();
        let token = sign(&key, &json!({"sub": "x"})).unwrap();
        let parts: Vec<&str> = token.split('.').collect();
        let forged_claims = URL_SAFE_NO_PAD.encode(json!({"sub": "admin"}).to_string());
        let forged = format!("{}.{}.{}", parts[0], forged_claims, parts[2]);
        let t = Unverified::parse(&forged).unwrap();
        assert!(!t.verified_by(&[key.verifying_key().clone()]));
    }

    #[test]
    fn text_that_is_not_a_jws_is_not_parsed() {
        assert!(Unverified::parse("abc").is_none());
        assert!(Unverified::parse("a.b.c").is_none());
        assert!(Unverified::parse("a.b.c.d").is_none());
    }
}
