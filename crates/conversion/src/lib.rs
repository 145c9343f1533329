//! Declarative conversion: a CRD's versions converted by rules instead of a webhook.
//!
//! The rules live in the CRD's annotation [`RULES_ANNOTATION`] (YAML or JSON), so the same
//! manifest installs unchanged on any cluster. They name a **hub** version and, for every
//! other version, the steps from it to the hub:
//!
//! ```yaml
//! hub: v1beta1
//! versions:
//!   v1alpha1:
//!     - rename: {from: spec.label, to: spec.displayName}
//!     - rename: {from: 'spec.ports[].portName', to: 'spec.ports[].name'}  # [] quoted in {…}
//!     - preserve: spec.priority
//!     - default: {field: spec.priority, value: 0}
//!     - compute:
//!         toHub: {spec.repository: "self.spec.image.split(':')[0]", spec.tag: "self.spec.image.split(':')[1]"}
//!         fromHub: {spec.image: "self.spec.repository + ':' + self.spec.tag"}
//! ```
//!
//! A version converts to the hub by its steps in order, each applied to the result of the
//! ones before, and back from the hub by the same steps undone in reverse order; any
//! version reaches any other through the hub ([`Rules::convert`]). [`Rules::check`] finds
//! rules that cannot work against the versions' schemas before they are used.

mod check;
mod engine;
mod path;
mod rules;

pub use check::Problem;
pub use engine::ConvertError;
pub use path::FieldPath;
pub use rules::{Rule, Rules, RulesError, Step};

/// The CRD annotation that holds the rules.
pub const RULES_ANNOTATION: &str = "conversion.kapi.dev/rules";
/// The object annotation that carries hub fields a version cannot hold (`preserve`).
pub const PRESERVED_ANNOTATION: &str = "conversion.kapi.dev/preserved";
