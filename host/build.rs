//! Builds the kernels crate to PTX and hands its path to the host crate,
//! which embeds it with `include_str!` (what `cuda_builder` does for the
//! rust-cuda toolchain, done here with the stock nightly NVPTX backend).
//!
//! Two modules: every kernel for the oldest GPU CUDA 13 supports, and the
//! kernels that need thread-block clusters for sm_90 (`--cfg bfs_sm90`).
//! The kernels build in their own target directories, so this nested
//! cargo never waits on the lock of the build that runs this script, and
//! the two builds never invalidate each other. The kernels of
//! `abi::LAUNCH_BOUNDS` then get their launch bounds in the PTX.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use bfs_kernels::abi::LAUNCH_BOUNDS;

/// Oldest compute capability CUDA 13 supports; the driver JIT-compiles the
/// PTX for newer GPUs when the module loads.
const PTX_TARGET_CPU: &str = "sm_75";

/// The first with thread-block clusters (Hopper).
const CLUSTER_TARGET_CPU: &str = "sm_90";

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

    let target = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    for (target_cpu, cfg, folder, file, variable) in [
        (
            PTX_TARGET_CPU,
            None,
            "kernels",
            "bfs_kernels.ptx",
            "BFS_KERNELS_PTX",
        ),
        (
            CLUSTER_TARGET_CPU,
            Some("bfs_sm90"),
            "kernels-sm90",
            "bfs_kernels_sm90.ptx",
            "BFS_KERNELS_SM90_PTX",
        ),
    ] {
        let target_dir = target.join(folder);
        let ptx = target_dir.join(file);
        build_ptx(workspace, (target_cpu, cfg), &target_dir, &ptx);
        bound_launches(&ptx);
        println!("cargo:rustc-env={variable}={}", ptx.display());
    }
}

fn build_ptx(
    workspace: &Path,
    (target_cpu, cfg): (&str, Option<&str>),
    target_dir: &Path,
    ptx: &Path,
) {
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
            &format!("target-cpu={target_cpu}"),
            "-C",
            "debuginfo=0",
        ]);
    if let Some(cfg) = cfg {
        command.args(["--cfg", cfg]);
    }
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

/// Writes `.maxntid THREADS, 1, 1` into the PTX of each kernel of
/// `LAUNCH_BOUNDS` that `ptx` holds, between its parameters and its body,
/// where CUDA C's `__launch_bounds__` puts it; once.
fn bound_launches(ptx: &Path) {
    let mut text = fs::read_to_string(ptx)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", ptx.display()));
    for (kernel, threads) in LAUNCH_BOUNDS {
        let Some(entry) = text.find(&format!(".entry {kernel}(")) else {
            continue;
        };
        let body = text[entry..]
            .find("\n{")
            .map(|offset| entry + offset)
            .unwrap_or_else(|| panic!("no body after `.entry {kernel}` in {}", ptx.display()));
        // A PTX the nested cargo found fresh has its bounds already.
        if !text[entry..body].contains(".maxntid") {
            text.insert_str(body, &format!("\n.maxntid {threads}, 1, 1"));
        }
    }
    fs::write(ptx, text).unwrap_or_else(|error| panic!("cannot write {}: {error}", ptx.display()));
}
