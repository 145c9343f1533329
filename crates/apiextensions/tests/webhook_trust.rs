//! Which webhook certificates a caBundle trusts, as Go's `x509.Verify` decides: a chain to
//! one of its CAs, or the webhook's own serving certificate itself (envtest puts the
//! serving certificate, not its CA, in the caBundles it writes).

mod webhook_common;

use kapi_apiextensions::{convert_one, converter_for_with};
use std::sync::Arc;
use std::time::Duration;
use webhook_common::*;

#[tokio::test]
async fn a_ca_bundle_holding_the_webhooks_own_certificate_trusts_it() {
    let hook = TamperingWebhook::start(Arc::new(ok), Duration::ZERO).await;
    let crd = widget_crd(&hook.url, &hook.certs.cert_pem, &["v1"]);
    let c = converter_for_with(&crd, env(Duration::from_secs(30))).unwrap();
    let out = convert_one(&*c, widget("w", "x"), "golden.example.com/v1beta1")
        .await
        .unwrap();
    assert_eq!(out["apiVersion"], "golden.example.com/v1beta1");
}

#[tokio::test]
async fn a_ca_bundle_holding_another_leaf_certificate_is_refused() {
    let hook = TamperingWebhook::start(Arc::new(ok), Duration::ZERO).await;
    let other_leaf = make_certs().cert_pem;
    let crd = widget_crd(&hook.url, &other_leaf, &["v1"]);
    let c = converter_for_with(&crd, env(Duration::from_secs(30))).unwrap();
    let err = convert_one(&*c, widget("w", "x"), "golden.example.com/v1beta1")
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("x509: certificate signed by unknown authority"),
        "{err}"
    );
}
