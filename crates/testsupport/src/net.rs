//! Loopback ports and process-unique names, so that tests running in parallel (and several
//! test binaries at once) never share a port, an etcd member name or a CA name.

use std::net::TcpListener;
use std::sync::atomic::{AtomicU32, Ordering};

/// A free loopback port: bound, then released (whoever uses it should check it got it).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `prefix-PID-N`, unique within this machine while this process runs.
pub fn unique_name(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_port_can_be_bound_again() {
        let port = free_port();
        assert!(TcpListener::bind(("127.0.0.1", port)).is_ok());
    }

    #[test]
    fn unique_name_differs_between_calls() {
        assert_ne!(unique_name("x"), unique_name("x"));
    }
}
