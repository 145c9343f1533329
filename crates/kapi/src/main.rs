//! The kapi binary.

fn main() {
    println!("kapi {}", env!("CARGO_PKG_VERSION"));
}
