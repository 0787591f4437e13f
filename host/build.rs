//! Builds the kernels crate to PTX and hands its path to the host crate,
//! which embeds it with `include_str!` (what `cuda_builder` does for the
//! rust-cuda toolchain, done here with the stock nightly NVPTX backend).
//!
//! The kernels build in their own target directory, so this nested cargo
//! never waits on the lock of the build that runs this script.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Oldest compute capability CUDA 13 supports; the driver JIT-compiles the
/// PTX for newer GPUs when the module loads.
const PTX_TARGET_CPU: &str = "sm_75";

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let workspace = manifest_dir
        .parent()
        .expect("host/ sits in the workspace root");
    let kernels = workspace.join("kernels");
    println!("cargo:rerun-if-changed={}", kernels.join("src").display());
    println!(
        "cargo:rerun-if-changed={}",
        kernels.join("Cargo.toml").display()
    );
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_DIR");

    let target_dir = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"))
        .join("kernels");
    let ptx = target_dir.join("bfs_kernels.ptx");
    build_ptx(workspace, &target_dir, &ptx);
    println!("cargo:rustc-env=BFS_KERNELS_PTX={}", ptx.display());
}

fn build_ptx(workspace: &Path, target_dir: &Path, ptx: &Path) {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(workspace)
        .args(["rustc", "--package", "bfs-kernels", "--lib", "--release"])
        .args(["--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core"])
        .arg("--target-dir")
        .arg(target_dir)
        .arg("--")
        .arg(format!("--emit=asm={}", ptx.display()))
        .args([
            "-C",
            &format!("target-cpu={PTX_TARGET_CPU}"),
            "-C",
            "debuginfo=0",
        ]);
    // Flags and wrappers meant for the host build must not reach the kernels.
    for variable in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_WRAPPER",
    ] {
        command.env_remove(variable);
    }
    let status = command
        .status()
        .unwrap_or_else(|error| panic!("cannot run cargo to build the kernels: {error}"));
    assert!(
        status.success(),
        "building the kernels for nvptx64-nvidia-cuda failed ({status})"
    );
}
