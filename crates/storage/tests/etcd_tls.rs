//! The etcd backend over TLS with client certificates: an etcd that requires them serves a
//! store configured with CA, certificate and key, and refuses one without a client certificate.

mod support;

use std::path::Path;
use std::time::Duration;

use kapi_storage::{EtcdConfig, EtcdStore, EtcdTls, Store};
use kapi_testsupport::etcd::{EtcdProcess, TlsFiles};
use rcgen::{
    BasicConstraints, CertificateParams, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

/// Writes a CA, a server certificate for 127.0.0.1 and a client certificate into `dir`.
fn write_certificates(dir: &Path) -> TlsFiles {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_key = KeyPair::generate().unwrap();
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);

    let leaf = |sans: Vec<String>, usage: ExtendedKeyUsagePurpose| {
        let mut params = CertificateParams::new(sans).unwrap();
        params.extended_key_usages = vec![usage];
        params.use_authority_key_identifier_extension = true;
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    };
    let server = leaf(
        vec!["127.0.0.1".into(), "localhost".into()],
        ExtendedKeyUsagePurpose::ServerAuth,
    );
    let client = leaf(
        vec!["kapi-client".into()],
        ExtendedKeyUsagePurpose::ClientAuth,
    );

    let write = |name: &str, pem: &str| {
        let path = dir.join(name);
        std::fs::write(&path, pem).unwrap();
        path
    };
    TlsFiles {
        ca: write("ca.pem", &ca_cert.pem()),
        server_cert: write("server.pem", &server.0),
        server_key: write("server-key.pem", &server.1),
        client_cert: write("client.pem", &client.0),
        client_key: write("client-key.pem", &client.1),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_store_connects_with_ca_and_client_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let files = write_certificates(dir.path());
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
    let files = write_certificates(dir.path());
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
