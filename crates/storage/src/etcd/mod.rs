//! The etcd backend: the store trait mapped 1:1 onto etcd v3 transactions, ranges and
//! watches (as kube-apiserver's etcd3 storage does), under a key prefix, over one or more
//! endpoints with optional TLS client certificates.

mod convert;
mod watch;

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use etcd_client::{
    Certificate, Client, Compare, CompareOp, ConnectOptions, DeleteOptions, GetOptions, Identity,
    KvClient, PutOptions, TlsOptions, Txn, TxnOp, TxnOpResponse,
};

use crate::error::{Result, StoreError};
use crate::store::{Store, WatchStream};
use crate::types::{DeleteResponse, KeyValue, RangeRequest, RangeResponse, WatchRequest};
use convert::{Prefix, map_error};

/// PEM files for a TLS connection to etcd.
#[derive(Debug, Clone)]
pub struct EtcdTls {
    /// CA bundle that signed the etcd servers' certificates.
    pub ca_file: PathBuf,
    /// Client certificate and key, when etcd requires client authentication.
    pub client_cert: Option<(PathBuf, PathBuf)>,
}

/// Settings of an [`EtcdStore`].
#[derive(Debug, Clone)]
pub struct EtcdConfig {
    /// Client URLs, e.g. `http://127.0.0.1:2379` (`https://` with TLS).
    pub endpoints: Vec<String>,
    /// TLS settings; `None` for plaintext.
    pub tls: Option<EtcdTls>,
    /// Prepended to every key (kube-apiserver's `--etcd-prefix` is `/registry`; our keys
    /// already carry it, so the default is empty).
    pub prefix: Vec<u8>,
    /// Time budget of one call, retries of reads included.
    pub request_timeout: Duration,
    /// Time budget of establishing connections.
    pub connect_timeout: Duration,
}

impl EtcdConfig {
    /// Plaintext, no prefix, default timeouts.
    pub fn new(endpoints: impl IntoIterator<Item = impl Into<String>>) -> Self {
        EtcdConfig {
            endpoints: endpoints.into_iter().map(Into::into).collect(),
            tls: None,
            prefix: Vec::new(),
            request_timeout: Duration::from_secs(15),
            connect_timeout: Duration::from_secs(5),
        }
    }

    /// Returns the config with a key prefix.
    pub fn with_prefix(mut self, prefix: impl Into<Vec<u8>>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Returns the config with TLS.
    pub fn with_tls(mut self, tls: EtcdTls) -> Self {
        self.tls = Some(tls);
        self
    }
}

/// The etcd-backed store.
#[derive(Clone)]
pub struct EtcdStore {
    client: Client,
    prefix: Prefix,
    config: EtcdConfig,
}

impl std::fmt::Debug for EtcdStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdStore")
            .field("endpoints", &self.config.endpoints)
            .finish_non_exhaustive()
    }
}

/// Pause between retries of a read after a transient failure.
const RETRY_PAUSE: Duration = Duration::from_millis(200);

/// The largest response accepted from etcd: Go's clientv3 default (`math.MaxInt32`), which
/// kube-apiserver keeps; gRPC's own 4 MiB default would fail the range of every resource
/// whose objects add up to more (10 000 ConfigMaps of 1 KiB).
pub(crate) const MAX_RESPONSE_BYTES: usize = i32::MAX as usize;

impl EtcdStore {
    /// Connects to the endpoints (requests are balanced over them and fail over when one dies).
    pub async fn connect(config: EtcdConfig) -> Result<Self> {
        let mut options = ConnectOptions::new()
            .with_connect_timeout(config.connect_timeout)
            .with_keep_alive(Duration::from_secs(5), Duration::from_secs(5))
            .with_keep_alive_while_idle(true)
            .with_require_leader(true);
        if let Some(tls) = &config.tls {
            options = options.with_tls(tls_options(tls)?);
        }
        let client = tokio::time::timeout(
            config.connect_timeout,
            Client::connect(&config.endpoints, Some(options)),
        )
        .await
        .map_err(|_| {
            StoreError::Unavailable(format!(
                "etcd: connecting to {:?} timed out",
                config.endpoints
            ))
        })?
        .map_err(|e| map_error(e, None))?;
        let prefix = Prefix(config.prefix.clone());
        Ok(EtcdStore {
            client,
            prefix,
            config,
        })
    }

    fn kv(&self) -> KvClient {
        self.client
            .kv_client()
            .max_decoding_message_size(MAX_RESPONSE_BYTES)
    }

    /// Runs a read, retrying transient failures until the request timeout.
    async fn read<T, F, Fut>(&self, mut call: F) -> Result<T>
    where
        F: FnMut(KvClient) -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let deadline = tokio::time::Instant::now() + self.config.request_timeout;
        loop {
            let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
            let outcome = match tokio::time::timeout(remaining, call(self.kv())).await {
                Ok(outcome) => outcome,
                Err(_) => Err(StoreError::Unavailable("etcd: request timed out".into())),
            };
            match outcome {
                Err(StoreError::Unavailable(reason))
                    if tokio::time::Instant::now() + RETRY_PAUSE < deadline =>
                {
                    tracing::debug!(%reason, "etcd read failed; retrying");
                    tokio::time::sleep(RETRY_PAUSE).await;
                }
                other => return other,
            }
        }
    }

    /// Runs a write. It is retried only when the request provably never left this process
    /// (no connection to the chosen member); any other failure may have applied it, so the
    /// caller gets [`StoreError::Unavailable`] and decides.
    async fn write<T, F, Fut>(&self, requested: Option<i64>, mut call: F) -> Result<T>
    where
        F: FnMut(KvClient) -> Fut,
        Fut: Future<Output = std::result::Result<T, etcd_client::Error>>,
    {
        let deadline = tokio::time::Instant::now() + self.config.request_timeout;
        loop {
            let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
            let outcome = tokio::time::timeout(remaining, call(self.kv()))
                .await
                .map_err(|_| {
                    StoreError::Unavailable(
                        "etcd: request timed out; the write may have been applied".into(),
                    )
                })?;
            match outcome {
                Ok(value) => return Ok(value),
                Err(error)
                    if convert::never_sent(&error)
                        && tokio::time::Instant::now() + RETRY_PAUSE < deadline =>
                {
                    tracing::debug!(%error, "etcd write not sent; retrying");
                    tokio::time::sleep(RETRY_PAUSE).await;
                }
                Err(error) => return Err(map_error(error, requested)),
            }
        }
    }

    async fn txn(&self, txn: Txn) -> Result<etcd_client::TxnResponse> {
        self.write(None, |mut kv| {
            let txn = txn.clone();
            async move { kv.txn(txn).await }
        })
        .await
    }

    /// The key as read in a failed transaction's else-branch.
    fn else_get(&self, response: &etcd_client::TxnResponse) -> Option<KeyValue> {
        response.op_responses().into_iter().find_map(|op| match op {
            TxnOpResponse::Get(get) => get.kvs().first().map(|kv| self.prefix.kv(kv)),
            _ => None,
        })
    }

    /// The previous key-value returned by a put in a transaction.
    fn put_prev(&self, response: &etcd_client::TxnResponse) -> Option<KeyValue> {
        response.op_responses().into_iter().find_map(|op| match op {
            TxnOpResponse::Put(put) => put.prev_key().map(|kv| self.prefix.kv(kv)),
            _ => None,
        })
    }

    /// Put `key` under `guard`, returning the new key-value or the current one on failure.
    async fn guarded_put(
        &self,
        key: &[u8],
        value: Vec<u8>,
        guard: Vec<Compare>,
    ) -> Result<std::result::Result<KeyValue, Option<KeyValue>>> {
        let full = self.prefix.full(key);
        let txn = Txn::new()
            .when(guard)
            .and_then([TxnOp::put(
                full.clone(),
                value.clone(),
                Some(PutOptions::new().with_prev_key()),
            )])
            .or_else([TxnOp::get(full, None)]);
        let response = self.txn(txn).await?;
        if !response.succeeded() {
            return Ok(Err(self.else_get(&response)));
        }
        let revision = response.header().map_or(0, |h| h.revision());
        Ok(Ok(new_kv(key, value, revision, self.put_prev(&response))))
    }
}

/// The key-value after a put at `revision` over `prev`.
fn new_kv(key: &[u8], value: Vec<u8>, revision: i64, prev: Option<KeyValue>) -> KeyValue {
    KeyValue {
        key: key.to_vec(),
        value,
        create_revision: prev.as_ref().map_or(revision, |p| p.create_revision),
        mod_revision: revision,
        version: prev.as_ref().map_or(1, |p| p.version + 1),
    }
}

fn tls_options(tls: &EtcdTls) -> Result<TlsOptions> {
    let read = |path: &PathBuf| {
        std::fs::read(path)
            .map_err(|e| StoreError::InvalidRequest(format!("cannot read {}: {e}", path.display())))
    };
    let mut options = TlsOptions::new().ca_certificate(Certificate::from_pem(read(&tls.ca_file)?));
    if let Some((cert, key)) = &tls.client_cert {
        options = options.identity(Identity::from_pem(read(cert)?, read(key)?));
    }
    Ok(options)
}

fn check_key(key: &[u8]) -> Result<()> {
    if key.is_empty() {
        return Err(StoreError::InvalidRequest("key is empty".into()));
    }
    Ok(())
}

#[async_trait]
impl Store for EtcdStore {
    async fn get(&self, key: &[u8], revision: Option<i64>) -> Result<Option<KeyValue>> {
        check_key(key)?;
        let full = self.prefix.full(key);
        let options = match revision {
            Some(r) if r > 0 => GetOptions::new().with_revision(r),
            _ => GetOptions::new(),
        };
        let response = self
            .read(|mut kv| {
                let (full, options) = (full.clone(), options.clone());
                async move {
                    kv.get(full, Some(options))
                        .await
                        .map_err(|e| map_error(e, revision))
                }
            })
            .await?;
        Ok(response.kvs().first().map(|kv| self.prefix.kv(kv)))
    }

    async fn range(&self, request: RangeRequest) -> Result<RangeResponse> {
        let full_prefix = self.prefix.full(&request.prefix);
        let start = match &request.start_after {
            Some(after) if after.as_slice() >= request.prefix.as_slice() => {
                let mut start = self.prefix.full(after);
                start.push(0);
                start
            }
            _ => full_prefix.clone(),
        };
        let mut options = self.prefix.range_options(&full_prefix);
        if request.limit > 0 {
            options = options.with_limit(i64::try_from(request.limit).unwrap_or(i64::MAX));
        }
        let revision = request.revision.filter(|r| *r > 0);
        if let Some(r) = revision {
            options = options.with_revision(r);
        }
        let response = self
            .read(|mut kv| {
                let (start, options) = (start.clone(), options.clone());
                async move {
                    kv.get(start, Some(options))
                        .await
                        .map_err(|e| map_error(e, revision))
                }
            })
            .await?;
        Ok(RangeResponse {
            kvs: response.kvs().iter().map(|kv| self.prefix.kv(kv)).collect(),
            more: response.more(),
            count: response.count(),
            revision: revision.unwrap_or_else(|| response.header().map_or(0, |h| h.revision())),
        })
    }

    async fn count(&self, prefix: &[u8]) -> Result<i64> {
        let full_prefix = self.prefix.full(prefix);
        let options = self.prefix.range_options(&full_prefix).with_count_only();
        let response = self
            .read(|mut kv| {
                let (full, options) = (full_prefix.clone(), options.clone());
                async move {
                    kv.get(full, Some(options))
                        .await
                        .map_err(|e| map_error(e, None))
                }
            })
            .await?;
        Ok(response.count())
    }

    async fn create(&self, key: &[u8], value: Vec<u8>) -> Result<KeyValue> {
        check_key(key)?;
        let guard = vec![Compare::create_revision(
            self.prefix.full(key),
            CompareOp::Equal,
            0,
        )];
        match self.guarded_put(key, value, guard).await? {
            Ok(kv) => Ok(kv),
            Err(Some(current)) => Err(StoreError::AlreadyExists {
                current: Box::new(current),
            }),
            Err(None) => Err(StoreError::Unavailable(
                "etcd: create failed but the key is absent; retry".into(),
            )),
        }
    }

    async fn update(
        &self,
        key: &[u8],
        value: Vec<u8>,
        expected_mod_revision: i64,
    ) -> Result<KeyValue> {
        check_key(key)?;
        let full = self.prefix.full(key);
        let guard = vec![
            Compare::create_revision(full.clone(), CompareOp::Greater, 0),
            Compare::mod_revision(full, CompareOp::Equal, expected_mod_revision),
        ];
        match self.guarded_put(key, value, guard).await? {
            Ok(kv) => Ok(kv),
            Err(Some(current)) => Err(StoreError::Conflict {
                expected: expected_mod_revision,
                current: Box::new(current),
            }),
            Err(None) => Err(StoreError::NotFound { key: key.to_vec() }),
        }
    }

    async fn put(&self, key: &[u8], value: Vec<u8>) -> Result<KeyValue> {
        check_key(key)?;
        let full = self.prefix.full(key);
        let response = self
            .write(None, |mut kv| {
                let (full, value) = (full.clone(), value.clone());
                async move {
                    kv.put(full, value, Some(PutOptions::new().with_prev_key()))
                        .await
                }
            })
            .await?;
        let revision = response.header().map_or(0, |h| h.revision());
        Ok(new_kv(
            key,
            value,
            revision,
            response.prev_key().map(|p| self.prefix.kv(p)),
        ))
    }

    async fn delete(
        &self,
        key: &[u8],
        expected_mod_revision: Option<i64>,
    ) -> Result<DeleteResponse> {
        check_key(key)?;
        let full = self.prefix.full(key);
        let mut guard = vec![Compare::create_revision(
            full.clone(),
            CompareOp::Greater,
            0,
        )];
        if let Some(expected) = expected_mod_revision {
            guard.push(Compare::mod_revision(
                full.clone(),
                CompareOp::Equal,
                expected,
            ));
        }
        let txn = Txn::new()
            .when(guard)
            .and_then([TxnOp::delete(
                full.clone(),
                Some(DeleteOptions::new().with_prev_key()),
            )])
            .or_else([TxnOp::get(full, None)]);
        let response = self.txn(txn).await?;
        if !response.succeeded() {
            return Err(match self.else_get(&response) {
                Some(current) => StoreError::Conflict {
                    expected: expected_mod_revision.unwrap_or_default(),
                    current: Box::new(current),
                },
                None => StoreError::NotFound { key: key.to_vec() },
            });
        }
        let revision = response.header().map_or(0, |h| h.revision());
        let prev = response.op_responses().into_iter().find_map(|op| match op {
            TxnOpResponse::Delete(d) => d.prev_kvs().first().map(|kv| self.prefix.kv(kv)),
            _ => None,
        });
        match prev {
            Some(prev) => Ok(DeleteResponse { prev, revision }),
            None => Err(StoreError::NotFound { key: key.to_vec() }),
        }
    }

    async fn watch(&self, request: WatchRequest) -> Result<WatchStream> {
        watch::start(
            self.client.clone(),
            self.prefix.clone(),
            request,
            self.config.request_timeout,
        )
        .await
    }

    async fn compact(&self, revision: i64) -> Result<()> {
        self.write(Some(revision), |mut kv| async move {
            kv.compact(revision, None).await
        })
        .await
        .map(|_| ())
    }

    async fn current_revision(&self) -> Result<i64> {
        let key = self.prefix.full(b"\0");
        let response = self
            .read(|mut kv| {
                let key = key.clone();
                async move {
                    kv.get(key, Some(GetOptions::new().with_count_only()))
                        .await
                        .map_err(|e| map_error(e, None))
                }
            })
            .await?;
        Ok(response.header().map_or(0, |h| h.revision()))
    }
}
