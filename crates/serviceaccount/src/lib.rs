//! ServiceAccount tokens as kube-apiserver makes and checks them: keys read from the PEM
//! files of `--service-account-signing-key-file` and `--service-account-key-file`
//! ([`keys`]), JWS compact tokens signed with them ([`jws`]), and what bound and legacy
//! tokens claim and how they are checked ([`claims`]). kapi writes its own JWS code on ring
//! (the TLS stack's crypto already) rather than pull in a JWT crate with a second one.

pub mod claims;
mod der;
pub mod jws;
pub mod keys;

pub use claims::{BoundToken, ObjectRef, Outcome, Subject, Verifier};
pub use keys::{KeyError, SigningKey, VerifyingKey};
