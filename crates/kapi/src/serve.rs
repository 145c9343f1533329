//! `kapi serve`: start the API server.

use kapi_apiextensions::webhook::{StaticServiceResolver, WebhookEnvironment};
use kapi_apiserver::{ControlPlane, ControlPlaneOptions};
use kapi_controllers::{ControllerOptions, ControllerSet, LeaseTiming};
use kapi_registry::builtin::ServiceNetwork;
use kapi_server::ServerOptions;
use kapi_storage::{EmbeddedConfig, EtcdConfig, EtcdTls, StoreConfig};
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Flags of `kapi serve`, named as kube-apiserver names them.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// The IP address on which to listen for the --secure-port port.
    #[arg(long, default_value = "127.0.0.1")]
    bind_address: IpAddr,
    /// The port on which to serve HTTPS; 0 picks a free port (logged and written to the kubeconfig).
    #[arg(long, default_value_t = 6443)]
    secure_port: u16,
    /// Directory for the embedded store, certificates, token file and kubeconfig (default
    /// `kapi-data`; without a subcommand and with --cert-dir, `<cert-dir>/kapi`).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// The directory of the serving certificate: its `apiserver.crt` and `apiserver.key`
    /// are served when both exist (as envtest writes them), else kapi's own.
    #[arg(long)]
    cert_dir: Option<PathBuf>,
    /// A serving certificate file (PEM, the chain after the leaf) served instead of kapi's
    /// own; its chain is the written kubeconfig's CA.
    #[arg(long, requires = "tls_private_key_file")]
    tls_cert_file: Option<PathBuf>,
    /// The key of --tls-cert-file.
    #[arg(long, requires = "tls_cert_file")]
    tls_private_key_file: Option<PathBuf>,
    /// A CA bundle whose client certificates authenticate (CN = user, each O = a group),
    /// besides the data dir's CA.
    #[arg(long)]
    client_ca_file: Option<PathBuf>,
    /// The IP address advertised to clients (added to the serving certificate and kubeconfig).
    #[arg(long)]
    advertise_address: Option<IpAddr>,
    /// Comma-separated etcd endpoints; when set, objects are stored in etcd instead of the data dir.
    #[arg(long, value_delimiter = ',')]
    etcd_servers: Vec<String>,
    /// The prefix to prepend to all resource paths in etcd.
    #[arg(long, default_value = "/registry")]
    etcd_prefix: String,
    /// SSL Certificate Authority file used to secure etcd communication.
    #[arg(long)]
    etcd_cafile: Option<PathBuf>,
    /// SSL certification file used to secure etcd communication.
    #[arg(long)]
    etcd_certfile: Option<PathBuf>,
    /// SSL key file used to secure etcd communication.
    #[arg(long)]
    etcd_keyfile: Option<PathBuf>,
    /// Interval of compaction requests (embedded store and etcd); 0 disables it.
    #[arg(long, default_value = "5m", value_parser = parse_duration)]
    etcd_compaction_interval: Duration,
    /// Where a conversion webhook's service is reached, `namespace/name=host:port`
    /// (repeatable); other services are dialled as `name.namespace.svc:port`.
    #[arg(long = "service-resolver")]
    service_resolver: Vec<String>,
    /// With etcd: how long a controller's lease (namespace controller, storage-version
    /// migrator) lasts without renewal before another kapi on the same etcd takes over.
    #[arg(long, default_value = "15s", value_parser = parse_duration)]
    leader_elect_lease_duration: Duration,
    /// With etcd: how often the lease holder renews it and the others try to take it.
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    leader_elect_retry_period: Duration,
    /// Controllers to run, as kube-controller-manager's flag: '*' runs all (namespace-controller,
    /// garbage-collector-controller, storage-version-migrator-controller,
    /// serviceaccount-controller, root-ca-certificate-publisher-controller,
    /// pod-termination-controller, clusterrole-aggregation-controller,
    /// serviceaccount-token-controller, validatingadmissionpolicy-status-controller,
    /// persistentvolumeclaim-protection-controller, persistentvolume-protection-controller),
    /// 'foo' runs foo, '-foo' does not. The CRD
    /// controller always runs.
    #[arg(long, value_delimiter = ',', default_value = "*")]
    controllers: Vec<String>,
    /// Admission plugins to turn off, as kube-apiserver's flag (comma-separated). kapi runs
    /// StorageObjectInUseProtection (on by default); other plugins of kube-apiserver are
    /// accepted and ignored with a warning (envtest turns off ServiceAccount, which kapi has
    /// not got); a name kube-apiserver does not know stops kapi, as it stops kube-apiserver.
    #[arg(long, value_delimiter = ',')]
    pub(crate) disable_admission_plugins: Vec<String>,
    /// A CIDR notation IPv4 range from which to assign service cluster IPs (the first
    /// address goes to the `kubernetes` Service).
    #[arg(long, default_value = "10.0.0.0/24")]
    service_cluster_ip_range: String,
    /// A port range to reserve for services with NodePort visibility, `lo-hi` inclusive.
    #[arg(long, default_value = "30000-32767")]
    service_node_port_range: String,
    /// Authorizers, in order, as kube-apiserver's flag: RBAC (roles and bindings; members
    /// of system:masters may do anything), AlwaysAllow, and Node (no opinion: kapi has no
    /// nodes' users).
    #[arg(long, default_value = "RBAC", value_parser = kapi_server::authz::Mode::parse)]
    authorization_mode: kapi_server::authz::Mode,
    /// A token file in kube-apiserver's CSV format (`token,user,uid,"group1,group2"`): each
    /// bearer token authenticates its user, with its groups. The data dir's own token file
    /// (the admin kubeconfig's token) is always read too.
    #[arg(long)]
    token_auth_file: Option<std::path::PathBuf>,
    /// Requests without credentials act as `system:anonymous` (group
    /// `system:unauthenticated`) and get what RBAC grants them (the bootstrap policy: the
    /// health and version paths) instead of 401. Off by default for `kapi serve`; on by
    /// default with kube-apiserver's command line (as kube-apiserver).
    #[arg(long, default_value_t = false, num_args = 0..=1, default_missing_value = "true",
        action = clap::ArgAction::Set)]
    pub(crate) anonymous_auth: bool,
    /// The PEM private key (RSA, or EC P-256/P-384) that signs ServiceAccount tokens; without
    /// it kapi uses the data dir's `service-account.key`, made on first start.
    #[arg(long)]
    service_account_signing_key_file: Option<PathBuf>,
    /// PEM files of more keys that verify ServiceAccount tokens (public or private keys,
    /// certificates; repeatable). The signing key always verifies.
    #[arg(long, value_delimiter = ',')]
    service_account_key_file: Vec<PathBuf>,
    /// The issuer (`iss`) of ServiceAccount tokens (repeatable: the first issues, all are
    /// accepted). Default https://kubernetes.default.svc.cluster.local.
    #[arg(long)]
    service_account_issuer: Vec<String>,
    /// Audiences the API accepts in tokens (comma-separated); default the issuers.
    #[arg(long, value_delimiter = ',')]
    api_audiences: Vec<String>,
    /// The longest lifetime of a requested ServiceAccount token; longer requests are
    /// shortened to it (with a warning).
    #[arg(long, value_parser = parse_duration)]
    service_account_max_token_expiration: Option<Duration>,
    /// The `jwks_uri` of the OpenID discovery document; default the issuer's host with
    /// /openid/v1/jwks.
    #[arg(long)]
    service_account_jwks_uri: Option<String>,
    /// Once serving, write the kubeconfig's path into this file (atomically), so a test
    /// fixture can wait for it; the path is also printed on stdout then.
    #[arg(long)]
    ready_file: Option<PathBuf>,
    /// Run as kube-apiserver would be (no subcommand): the data dir defaults to
    /// `<cert-dir>/kapi`.
    #[arg(skip)]
    pub apiserver_mode: bool,
    /// kube-apiserver flags of the command line that kapi does not implement, ignored
    /// (logged as warnings once logging is up).
    #[arg(skip)]
    pub ignored_flags: Vec<String>,
}

impl ServeArgs {
    /// The data dir: --data-dir, else `<cert-dir>/kapi` in kube-apiserver mode, else
    /// `kapi-data`.
    fn data_dir(&self) -> PathBuf {
        match (&self.data_dir, &self.cert_dir) {
            (Some(d), _) => d.clone(),
            (None, Some(c)) if self.apiserver_mode => c.join("kapi"),
            _ => PathBuf::from("kapi-data"),
        }
    }

    /// The serving certificate and key to serve instead of kapi's own: --tls-cert-file and
    /// --tls-private-key-file, else --cert-dir's `apiserver.crt` and `apiserver.key` when
    /// both exist.
    fn serving_files(&self) -> Option<(PathBuf, PathBuf)> {
        if let (Some(c), Some(k)) = (&self.tls_cert_file, &self.tls_private_key_file) {
            return Some((c.clone(), k.clone()));
        }
        let dir = self.cert_dir.as_ref()?;
        let (c, k) = (dir.join("apiserver.crt"), dir.join("apiserver.key"));
        (c.exists() && k.exists()).then_some((c, k))
    }
}

/// Parses Go-style durations: `300ms`, `10s`, `5m`, `1h` (or bare seconds).
fn parse_duration(text: &str) -> Result<Duration, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("invalid duration {text:?}"))?;
    match unit {
        "" | "s" => Ok(Duration::from_secs(n)),
        "ms" => Ok(Duration::from_millis(n)),
        "m" => Ok(Duration::from_secs(n * 60)),
        "h" => Ok(Duration::from_secs(n * 3600)),
        _ => Err(format!("invalid duration {text:?}")),
    }
}

/// Runs the server until SIGTERM or SIGINT.
pub fn run(args: ServeArgs) -> ExitCode {
    let started = Instant::now();
    init_logging();
    for flag in &args.ignored_flags {
        tracing::warn!(flag = %flag, "a kube-apiserver flag kapi does not implement; ignored");
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the async runtime");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(args, started)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "kapi serve failed");
            ExitCode::FAILURE
        }
    }
}

async fn serve(args: ServeArgs, started: Instant) -> Result<(), Box<dyn std::error::Error>> {
    // The environment every CRD's webhook converter calls through, injected into the server.
    let overrides =
        StaticServiceResolver::from_flags(args.service_resolver.iter().map(String::as_str))?;
    let webhooks = Arc::new(WebhookEnvironment::new().add_service_resolver(Arc::new(overrides)));
    let service_network = ServiceNetwork::parse(
        &args.service_cluster_ip_range,
        &args.service_node_port_range,
    )?;
    let token_users = match &args.token_auth_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--token-auth-file {}: {e}", path.display()))?;
            kapi_server::token_file::parse(&text)
                .map_err(|e| format!("--token-auth-file {}: {e}", path.display()))?
        }
        None => Default::default(),
    };
    let mut admission_plugins = kapi_server::admission::builtin::BuiltinPlugins::default();
    for name in
        admission_plugins.disable(args.disable_admission_plugins.iter().map(String::as_str))?
    {
        // Worded as the whole flag was before kapi ran a plugin, so one name reads the same.
        tracing::warn!(
            flag = %format!("--disable-admission-plugins={name}"),
            plugin = name,
            "an admission plugin kapi does not run; ignored"
        );
    }
    if !admission_plugins.storage_object_in_use_protection {
        tracing::info!(
            plugin = kapi_registry::builtin::storage_protection::PLUGIN_NAME,
            "admission plugin disabled"
        );
    }
    let opts = ServerOptions {
        bind_address: args.bind_address,
        secure_port: args.secure_port,
        data_dir: args.data_dir(),
        advertise_address: args.advertise_address,
        webhooks,
        service_network: service_network.clone(),
        authorization: args.authorization_mode,
        token_users,
        anonymous_auth: args.anonymous_auth,
        service_accounts: kapi_server::service_accounts::ServiceAccountOptions {
            signing_key_file: args.service_account_signing_key_file.clone(),
            key_files: args.service_account_key_file.clone(),
            issuers: args.service_account_issuer.clone(),
            api_audiences: args.api_audiences.clone(),
            max_token_expiration: args.service_account_max_token_expiration,
            jwks_uri: args.service_account_jwks_uri.clone(),
        },
        serving_files: args.serving_files(),
        client_ca_file: args.client_ca_file.clone(),
        admission_plugins,
    };
    let shutdown = shutdown_signal()?;
    let selection = ControllerSet::parse(args.controllers.iter().map(String::as_str))?;
    // The embedded store is one process's alone; on etcd other kapi may run too.
    let controllers = ControllerOptions {
        election: (!args.etcd_servers.is_empty()).then_some(LeaseTiming {
            duration: args.leader_elect_lease_duration,
            retry_period: args.leader_elect_retry_period,
        }),
        controllers: selection,
    };
    let plane = ControlPlane::start(ControlPlaneOptions {
        server: opts,
        store: store_config(&args),
        storage_prefix: args.etcd_prefix.clone(),
        controllers,
    })
    .await?;
    let server = plane.server();
    tracing::info!(
        address = %server.local_addr(),
        port = server.local_addr().port(),
        kubeconfig = %server.kubeconfig_path().display(),
        ready_after_ms = started.elapsed().as_secs_f64() * 1000.0,
        "serving",
    );
    announce_ready(server.kubeconfig_path(), args.ready_file.as_deref())?;
    plane.run(shutdown).await;
    tracing::info!("stopped");
    Ok(())
}

/// The embedded store in the data dir, or etcd when `--etcd-servers` is set, through
/// `--etcd-compaction-interval` (0 disables it) compacting either backend as
/// kube-apiserver compacts etcd.
fn store_config(args: &ServeArgs) -> StoreConfig {
    let compaction_interval = Some(args.etcd_compaction_interval).filter(|d| !d.is_zero());
    if args.etcd_servers.is_empty() {
        let mut config = EmbeddedConfig::new(args.data_dir());
        config.compaction_interval = compaction_interval;
        StoreConfig::Embedded(config)
    } else {
        let mut config = EtcdConfig::new(args.etcd_servers.clone());
        if let Some(ca_file) = &args.etcd_cafile {
            let client_cert = match (&args.etcd_certfile, &args.etcd_keyfile) {
                (Some(c), Some(k)) => Some((c.clone(), k.clone())),
                _ => None,
            };
            config = config.with_tls(EtcdTls {
                ca_file: ca_file.clone(),
                client_cert,
            });
        }
        StoreConfig::Etcd {
            config,
            compaction_interval,
        }
    }
}

/// Prints the kubeconfig's path on stdout and writes it into the ready file (through a
/// temporary file renamed into place, so a reader never sees half of it).
fn announce_ready(
    kubeconfig: &std::path::Path,
    ready_file: Option<&std::path::Path>,
) -> Result<(), std::io::Error> {
    use std::io::Write;
    let kubeconfig = std::fs::canonicalize(kubeconfig).unwrap_or_else(|_| kubeconfig.to_owned());
    let line = format!("{}\n", kubeconfig.display());
    if let Some(path) = ready_file {
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, &line)?;
        std::fs::rename(&tmp, path)?;
    }
    let mut out = std::io::stdout().lock();
    out.write_all(line.as_bytes())?;
    out.flush()
}

/// Registers the SIGTERM and SIGINT handlers now; the future resolves on either.
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>, std::io::Error> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => tracing::info!("SIGTERM received"),
            _ = int.recv() => tracing::info!("SIGINT received"),
        }
    })
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}
