//! The etcd backend over TLS with client certificates: an etcd that requires them serves a
//! store configured with CA, certificate and key, and refuses one without a client certificate.

use std::time::Duration;

use kapi_storage::{EtcdConfig, EtcdStore, EtcdTls, Store};
use kapi_testsupport::etcd::{EtcdProcess, TlsFiles};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_store_connects_with_ca_and_client_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let files = TlsFiles::generate(dir.path());
    let etcd = EtcdProcess::start_tls(files.clone()).await;
    let tls = EtcdTls {
        ca_file: files.ca.clone(),
        client_cert: Some((files.client_cert.clone(), files.client_key.clone())),
    };
    let config = EtcdConfig::new([etcd.client_url.clone()]).with_tls(tls);
    let store = EtcdStore::connect(config).await.unwrap();
    let written = store.create(b"/tls/a", b"1".to_vec()).await.unwrap();
    assert_eq!(store.get(b"/tls/a", None).await.unwrap(), Some(written));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_store_without_client_certificate_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let files = TlsFiles::generate(dir.path());
    let etcd = EtcdProcess::start_tls(files.clone()).await;
    let mut config = EtcdConfig::new([etcd.client_url.clone()]).with_tls(EtcdTls {
        ca_file: files.ca.clone(),
        client_cert: None,
    });
    config.request_timeout = Duration::from_secs(5);
    let refused = match EtcdStore::connect(config).await {
        Ok(store) => store.put(b"/tls/a", b"1".to_vec()).await.is_err(),
        Err(_) => true,
    };
    assert!(
        refused,
        "etcd requires client certificates; a store without one must fail"
    );
}
