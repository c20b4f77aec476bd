//! Records the versions Cargo.lock resolved for paimon, paimon-ftindex-core and tantivy, so that
//! ping reports what the runner was built on (not what Cargo.toml asks for). Rebuilds the runner
//! when PKFT_RUST_SOURCES, the digest of its sources scripts/rust-runner.sh passes, changes.

use std::fs;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-env-changed=PKFT_RUST_SOURCES");
    let lock = fs::read_to_string("Cargo.lock").expect("Cargo.lock is committed beside Cargo.toml");
    for (krate, var) in [
        ("paimon", "PKFT_PAIMON_VERSION"),
        ("paimon-ftindex-core", "PKFT_FTINDEX_VERSION"),
        ("tantivy", "PKFT_TANTIVY_VERSION"),
    ] {
        let version = locked_version(&lock, krate)
            .unwrap_or_else(|| panic!("Cargo.lock has no package {krate}"));
        println!("cargo:rustc-env={var}={version}");
    }
}

/// The version of the one package named krate in a Cargo.lock.
fn locked_version(lock: &str, krate: &str) -> Option<String> {
    let name = format!("name = \"{krate}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == name {
            let version = lines.next()?.trim();
            return version
                .strip_prefix("version = \"")
                .and_then(|v| v.strip_suffix('"'))
                .map(str::to_string);
        }
    }
    None
}
