//! Lays out the code `kapi serve` runs at start-up together in the release binary.
//!
//! `startup-order.txt` lists the symbols executed while kapi starts, answers its first
//! requests and idles (recorded by `scripts/startup-order.sh`). A release build of the
//! `kapi` binary passes it to the linker's `--symbol-ordering-file`, so those functions sit
//! side by side at the start of the text segment. Without it they are spread over the whole
//! 60 MB text and the kernel, which maps the 64 KiB around every page fault of a cached file,
//! makes ~20 MiB of the binary resident for ~2 MiB of code run (docs/benchmarks.md).
//!
//! Only where the linker is Rust's default for x86_64 Linux (rust-lld since Rust 1.90): a
//! build that names another linker or linker flavour gets no order (GNU ld and gold refuse
//! the flag). `KAPI_STARTUP_ORDER=0` turns it off (to measure the difference).

use std::path::Path;

/// Why the link may not be rust-lld's: a linker or flavour chosen by environment or flags.
fn other_linker() -> Option<String> {
    for var in [
        "RUSTC_LINKER",
        "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
        if std::env::var_os(var).is_some() {
            return Some(format!("{var} is set"));
        }
    }
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    flags
        .split('\x1f')
        .find(|f| {
            ["linker", "fuse-ld", "link-self-contained"]
                .iter()
                .any(|word| f.contains(word))
        })
        .map(|f| format!("RUSTFLAGS has {f}"))
}

/// The symbols' hashes depend on the compiler: warn when the order was recorded by another.
fn warn_if_other_toolchain(dir: &Path) {
    let recorded_by = dir.join("startup-order.rustc");
    println!("cargo:rerun-if-changed=startup-order.rustc");
    let Ok(recorded) = std::fs::read_to_string(&recorded_by) else {
        return;
    };
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let Ok(out) = std::process::Command::new(rustc).arg("-V").output() else {
        return;
    };
    let now = String::from_utf8_lossy(&out.stdout);
    if now.trim() != recorded.trim() {
        println!(
            "cargo:warning=startup-order.txt was recorded with {} and this is {}: few of its \
             symbols will match; re-run scripts/startup-order.sh",
            recorded.trim(),
            now.trim()
        );
    }
}

fn main() {
    println!("cargo:rerun-if-changed=startup-order.txt");
    println!("cargo:rerun-if-env-changed=KAPI_STARTUP_ORDER");
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let wanted = std::env::var("KAPI_STARTUP_ORDER").map_or(true, |v| v != "0");
    let target = std::env::var("TARGET").unwrap_or_default();
    if !(release && wanted && target == "x86_64-unknown-linux-gnu") {
        return;
    }
    let Ok(dir) = std::env::var("CARGO_MANIFEST_DIR") else {
        return;
    };
    let order = Path::new(&dir).join("startup-order.txt");
    if !order.is_file() {
        return;
    }
    if let Some(why) = other_linker() {
        println!("cargo:warning=startup-order.txt not used: {why} (only lld takes it)");
        return;
    }
    warn_if_other_toolchain(Path::new(&dir));
    println!(
        "cargo:rustc-link-arg-bin=kapi=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    // Names that later changes renamed are skipped, not warned about one by one.
    println!("cargo:rustc-link-arg-bin=kapi=-Wl,--no-warn-symbol-ordering");
}
