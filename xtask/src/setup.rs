//! What a fresh machine lacks, made or fetched into `target/` on first use.
//!
//! - The CUDA driver's link library. `cust`'s bindings ask the linker for
//!   `-lcuda`, but the host defines every driver function it calls and
//!   loads `libcuda.so.1` at run time (`host/src/gpu/libcuda.rs`), so the
//!   link library gives nothing: an empty one (a linker script naming no
//!   file) is written into `target/cuda-driver/lib64/`, where
//!   `.cargo/config.toml` points `cust`'s build script. A driver call
//!   missing from `libcuda.rs`'s list then fails to link, instead of tying
//!   the binaries to the driver again.
//! - `ptxas`, to check the kernels offline, from PyPI's `nvidia-cuda-nvcc-cu12`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::Workspace;

/// `ptxas` release checked against; pinned so CI sees the same assembler.
const NVCC_WHEEL: &str = "nvidia-cuda-nvcc-cu12==12.9.86";

/// The link library's text: a linker script that adds nothing.
const LINK_LIBRARY: &str = "/* cust's bindings link -lcuda; the host loads libcuda.so.1 at run time\n   (host/src/gpu/libcuda.rs) and takes nothing from this library. */\n";

/// Environment for cargo and the programs it runs.
pub struct Environment {
    /// `CUDA_LIBRARY_PATH` for `cust`'s build script, where the user's own
    /// holds no link library.
    cuda_library_path: Option<PathBuf>,
    /// The `ptxas` to check kernels with.
    pub ptxas: PathBuf,
}

impl Environment {
    /// Sets the variables on `command`.
    pub fn apply(&self, command: &mut Command) {
        // host/build.rs assembles the kernels with it.
        command.env("BFS_PTXAS", &self.ptxas);
        if let Some(path) = &self.cuda_library_path {
            command.env("CUDA_LIBRARY_PATH", path);
        }
    }
}

/// Makes sure the link library and `ptxas` are there.
pub fn prepare(workspace: &Workspace) -> Result<Environment> {
    let driver = workspace.target().join("cuda-driver");
    write_link_library(&driver.join("lib64"))?;
    Ok(Environment {
        cuda_library_path: user_link_library().is_none().then_some(driver),
        ptxas: ptxas(workspace)?,
    })
}

/// A `CUDA_LIBRARY_PATH` of the user's that holds `lib64/libcuda.so`
/// (`.cargo/config.toml` sets one to our own folder).
fn user_link_library() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("CUDA_LIBRARY_PATH")?);
    path.join("lib64")
        .join("libcuda.so")
        .exists()
        .then_some(path)
}

/// Writes the empty link library into `lib64`, unless it is there.
fn write_link_library(lib64: &Path) -> Result<()> {
    let library = lib64.join("libcuda.so");
    if std::fs::read_to_string(&library).is_ok_and(|text| text == LINK_LIBRARY) {
        return Ok(());
    }
    std::fs::create_dir_all(lib64)?;
    // Earlier checkouts kept links to Debian's libcuda1 here.
    for name in ["libcuda.so", "libcuda.so.1"] {
        let _ = std::fs::remove_file(lib64.join(name));
    }
    std::fs::write(&library, LINK_LIBRARY).with_context(|| format!("writing {}", library.display()))
}

/// `ptxas`: `$PTXAS`, else one fetched before, else the pinned PyPI wheel's.
fn ptxas(workspace: &Workspace) -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("PTXAS") {
        return Ok(path.into());
    }
    let folder = workspace.target().join("ptxas");
    let ptxas = folder.join("ptxas");
    if ptxas.exists() {
        return Ok(ptxas);
    }
    eprintln!(
        "xtask: fetching ptxas ({NVCC_WHEEL}) into {}",
        folder.display()
    );
    let wheels = folder.join("wheel");
    quiet(
        Command::new("python3")
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--only-binary=:all:",
                "--dest",
            ])
            .arg(&wheels)
            .arg(NVCC_WHEEL),
    )?;
    let extract = "import sys, zipfile, glob, os\n\
                   wheel = zipfile.ZipFile(glob.glob(os.path.join(sys.argv[1], '*.whl'))[0])\n\
                   open(sys.argv[2], 'wb').write(wheel.read('nvidia/cuda_nvcc/bin/ptxas'))\n\
                   os.chmod(sys.argv[2], 0o755)";
    quiet(
        Command::new("python3")
            .args(["-c", extract])
            .arg(&wheels)
            .arg(&ptxas),
    )?;
    Ok(ptxas)
}

/// Runs `command`, showing its output only if it fails.
fn quiet(command: &mut Command) -> Result<()> {
    let output = command
        .output()
        .with_context(|| format!("running {command:?}"))?;
    if !output.status.success() {
        bail!(
            "{command:?} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}
