//! A webhook call slower than 50 ms + 8 ms × objects is logged as slow, with the object
//! count and the duration (R4.29).

mod webhook_common;

use kapi_apiextensions::{convert_one, converter_for_with};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use webhook_common::*;

/// Collects what the subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_call_slower_than_its_allowance_is_logged_with_count_and_duration() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    // One object: the allowance is 58 ms; the webhook answers after 150 ms.
    let hook = TamperingWebhook::start(Arc::new(ok), Duration::from_millis(150)).await;
    let crd = widget_crd(&hook.url, &hook.certs.ca_pem, &["v1"]);
    let c = converter_for_with(&crd, env(Duration::from_secs(30))).unwrap();
    convert_one(&*c, widget("w", "x"), "golden.example.com/v1beta1")
        .await
        .unwrap();
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(log.contains("slow conversion webhook call"), "{log}");
    assert!(log.contains("object_count=1"), "{log}");
    assert!(log.contains("duration_ms="), "{log}");
}
