//! Lays out the code `kapi serve` runs at start-up together in the release binary.
//!
//! `startup-order.txt` lists the symbols executed while kapi starts, answers its first
//! requests and idles (recorded by `scripts/startup-order.sh`). A release build of the
//! `kapi` binary passes it to the linker's `--symbol-ordering-file`, so those functions sit
//! side by side at the start of the text segment. Without it they are spread over the whole
//! 60 MB text and the kernel, which maps the 64 KiB around every page fault of a cached file,
//! makes ~20 MiB of the binary resident for ~2 MiB of code run (docs/benchmarks.md).
//!
//! Only where the linker is rust-lld (x86_64 Linux, Rust's default since 1.90) or another
//! lld; `KAPI_STARTUP_ORDER=0` turns it off (to measure the difference).

use std::path::Path;

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
    println!(
        "cargo:rustc-link-arg-bin=kapi=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    // Names that later changes renamed are skipped, not warned about one by one.
    println!("cargo:rustc-link-arg-bin=kapi=-Wl,--no-warn-symbol-ordering");
}
