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
//!
//! Each module is then assembled by `ptxas` into machine code (cubins) for
//! the common architectures, so that the driver has nothing to compile on
//! those GPUs (its JIT of the whole PTX is most of a second on a machine
//! whose JIT cache is empty); the PTX stays the fallback for the others.
//! The cubins are gzipped (a fifth of their size) and listed in
//! `$OUT_DIR/kernel_images.rs`, which `gpu::module` includes. Without a
//! `ptxas` (a plain `cargo build` on a machine without CUDA; `cargo xtask`
//! always provides one) the list is empty and every GPU compiles the PTX.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use bfs_kernels::abi::LAUNCH_BOUNDS;

/// Oldest compute capability CUDA 13 supports; the driver JIT-compiles the
/// PTX for newer GPUs when the module loads.
const PTX_TARGET_CPU: &str = "sm_75";

/// The first with thread-block clusters (Hopper).
const CLUSTER_TARGET_CPU: &str = "sm_90";

/// Architectures whose machine code is embedded for the module of every
/// kernel: Ampere (A100; A10 and RTX 30; L4, L40 and RTX 40), Hopper,
/// Blackwell (B200; RTX 50). A cubin runs on its own major version's later
/// minor ones too, so other GPUs of these families load one of these.
const CUBIN_ARCHITECTURES: [u32; 6] = [80, 86, 89, 90, 100, 120];

/// The same for the cluster kernels' module, which needs sm_90 or newer.
const CLUSTER_CUBIN_ARCHITECTURES: [u32; 3] = [90, 100, 120];

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

    println!("cargo:rerun-if-env-changed=BFS_PTXAS");
    println!("cargo:rerun-if-env-changed=PTXAS");

    let target = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let ptxas = find_ptxas(&target);
    let mut images = String::from("// Written by host/build.rs: the kernels' gzipped cubins.\n");
    for (target_cpu, cfg, folder, file, variable, architectures, list) in [
        (
            PTX_TARGET_CPU,
            None,
            "kernels",
            "bfs_kernels.ptx",
            "BFS_KERNELS_PTX",
            &CUBIN_ARCHITECTURES[..],
            "KERNELS_CUBINS",
        ),
        (
            CLUSTER_TARGET_CPU,
            Some("bfs_sm90"),
            "kernels-sm90",
            "bfs_kernels_sm90.ptx",
            "BFS_KERNELS_SM90_PTX",
            &CLUSTER_CUBIN_ARCHITECTURES[..],
            "CLUSTER_KERNELS_CUBINS",
        ),
    ] {
        let target_dir = target.join(folder);
        let ptx = target_dir.join(file);
        build_ptx(workspace, (target_cpu, cfg), &target_dir, &ptx);
        bound_launches(&ptx);
        println!("cargo:rustc-env={variable}={}", ptx.display());
        let cubins = match &ptxas {
            Some(ptxas) => assemble(ptxas, &ptx, architectures),
            None => Vec::new(),
        };
        writeln!(images, "const {list}: &[(u32, &[u8])] = &[").expect("a String takes writes");
        for (architecture, cubin) in cubins {
            writeln!(
                images,
                "    ({architecture}, include_bytes!({:?})),",
                cubin.display().to_string()
            )
            .expect("a String takes writes");
        }
        images.push_str("];\n");
    }
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo"));
    fs::write(out_dir.join("kernel_images.rs"), images).expect("OUT_DIR is writable");
}

/// The `ptxas` to assemble the kernels with: `BFS_PTXAS` (what `cargo
/// xtask` fetched), `PTXAS`, the one `cargo xtask` keeps in the target
/// folder, or one on the `PATH` or in `/usr/local/cuda`; `None` (with a
/// warning) where there is none.
fn find_ptxas(target: &Path) -> Option<PathBuf> {
    let path = env::var_os("PATH").unwrap_or_default();
    let candidates = ["BFS_PTXAS", "PTXAS"]
        .into_iter()
        .filter_map(|variable| env::var_os(variable).map(PathBuf::from))
        .chain([target.join("ptxas").join("ptxas")])
        .chain(env::split_paths(&path).map(|folder| folder.join("ptxas")))
        .chain([PathBuf::from("/usr/local/cuda/bin/ptxas")]);
    for candidate in candidates {
        if candidate.is_file() {
            println!("cargo:rerun-if-changed={}", candidate.display());
            return Some(candidate);
        }
    }
    println!(
        "cargo:warning=no ptxas found (cargo xtask fetches one): the kernels are embedded as PTX \
         only, and the driver compiles them when they load"
    );
    None
}

/// Assembles `ptx` for each of `architectures` (in parallel: one `ptxas`
/// each) and gzips each cubin; returns each architecture's gzipped file.
fn assemble(ptxas: &Path, ptx: &Path, architectures: &[u32]) -> Vec<(u32, PathBuf)> {
    std::thread::scope(|scope| {
        let assemblies: Vec<_> = architectures
            .iter()
            .map(|&architecture| {
                scope.spawn(move || {
                    let cubin = ptx.with_extension(format!("sm_{architecture}.cubin"));
                    let status = Command::new(ptxas)
                        .arg(format!("-arch=sm_{architecture}"))
                        .arg("-o")
                        .arg(&cubin)
                        .arg(ptx)
                        .status()
                        .unwrap_or_else(|error| panic!("cannot run {}: {error}", ptxas.display()));
                    assert!(
                        status.success(),
                        "{} -arch=sm_{architecture} rejected {} ({status})",
                        ptxas.display(),
                        ptx.display()
                    );
                    let bytes = fs::read(&cubin)
                        .unwrap_or_else(|error| panic!("cannot read {}: {error}", cubin.display()));
                    let gzipped = cubin.with_extension("cubin.gz");
                    let mut encoder =
                        flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
                    encoder.write_all(&bytes).expect("a Vec takes writes");
                    let compressed = encoder.finish().expect("a Vec takes writes");
                    fs::write(&gzipped, compressed).unwrap_or_else(|error| {
                        panic!("cannot write {}: {error}", gzipped.display())
                    });
                    (architecture, gzipped)
                })
            })
            .collect();
        assemblies
            .into_iter()
            .map(|assembly| assembly.join().expect("an assembly thread panicked"))
            .collect()
    })
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
