//! What a fresh machine lacks, fetched into `target/` on first use.
//!
//! - The CUDA driver library. `cust` links `libcuda.so`, and every binary that
//!   uses it needs `libcuda.so.1` to start, GPU or not. Where no CUDA is
//!   installed, Debian's `libcuda1` (non-free) is downloaded and unpacked
//!   (not installed) into `target/cuda-driver/`; it links, and on a machine
//!   with no GPU its `cuInit` reports "no CUDA-capable device", which the
//!   program turns into a clear message or the CPU fallback.
//! - `ptxas`, to check the kernels offline, from PyPI's `nvidia-cuda-nvcc-cu12`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::Workspace;

/// `ptxas` release checked against; pinned so CI sees the same assembler.
const NVCC_WHEEL: &str = "nvidia-cuda-nvcc-cu12==12.9.86";

/// Environment for cargo and the programs it runs.
pub struct Environment {
    /// `CUDA_LIBRARY_PATH` for `cust`'s build script, where we provide the library.
    cuda_library_path: Option<PathBuf>,
    /// A folder with `libcuda.so.1` for the loader, where the system has none.
    loader_path: Option<PathBuf>,
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
        if let Some(path) = &self.loader_path {
            let mut paths = vec![path.clone()];
            paths.extend(
                std::env::var_os("LD_LIBRARY_PATH")
                    .iter()
                    .flat_map(std::env::split_paths),
            );
            command.env(
                "LD_LIBRARY_PATH",
                std::env::join_paths(paths).expect("paths without ':'"),
            );
        }
    }
}

/// Makes sure the driver library and `ptxas` are there.
pub fn prepare(workspace: &Workspace) -> Result<Environment> {
    let driver = workspace.target().join("cuda-driver");
    let links_without_help = user_link_library().is_some() || system_has_link_library();
    let loads_without_help = system_has_driver();
    if !(links_without_help && loads_without_help) {
        fetch_driver_library(&driver)?;
    }
    Ok(Environment {
        cuda_library_path: (!links_without_help).then(|| driver.clone()),
        loader_path: (!loads_without_help).then(|| driver.join("lib64")),
        ptxas: ptxas(workspace)?,
    })
}

/// A `CUDA_LIBRARY_PATH` of the user's that holds `lib64/libcuda.so`
/// (`.cargo/config.toml` sets one to our own folder, which may be empty yet).
fn user_link_library() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("CUDA_LIBRARY_PATH")?);
    path.join("lib64")
        .join("libcuda.so")
        .exists()
        .then_some(path)
}

/// Whether the linker finds `libcuda.so` on its own (a CUDA toolkit or driver dev link).
fn system_has_link_library() -> bool {
    [
        "/usr/local/cuda/lib64/stubs/libcuda.so",
        "/usr/local/cuda/lib64/libcuda.so",
        "/usr/lib/x86_64-linux-gnu/libcuda.so",
    ]
    .iter()
    .any(|path| Path::new(path).exists())
}

/// Whether the dynamic loader finds `libcuda.so.1` (an installed NVIDIA driver).
fn system_has_driver() -> bool {
    Command::new("ldconfig")
        .arg("-p")
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).contains("libcuda.so.1 "))
        .unwrap_or(false)
}

/// Downloads Debian's `libcuda1` and unpacks it into `driver/` with
/// `lib64/libcuda.so{,.1}` links, the layout `cust`'s build script looks for.
fn fetch_driver_library(driver: &Path) -> Result<()> {
    let lib64 = driver.join("lib64");
    if lib64.join("libcuda.so").exists() {
        return Ok(());
    }
    eprintln!(
        "xtask: no CUDA installed; fetching Debian's libcuda1 into {}",
        driver.display()
    );
    let apt = driver.join("apt");
    for folder in ["lists/partial", "cache/archives/partial", "download"] {
        std::fs::create_dir_all(apt.join(folder))?;
    }
    let sources = apt.join("sources.list");
    std::fs::write(
        &sources,
        format!(
            "deb http://deb.debian.org/debian {} non-free\n",
            debian_codename()
        ),
    )?;
    let options = [
        format!("-oDir::Etc::SourceList={}", sources.display()),
        "-oDir::Etc::SourceParts=/dev/null".into(),
        format!("-oDir::State::Lists={}", apt.join("lists").display()),
        format!("-oDir::Cache={}", apt.join("cache").display()),
        "-oAPT::Sandbox::User=root".into(),
        "-qq".into(),
    ];
    quiet(Command::new("apt-get").args(&options).arg("update"))?;
    quiet(
        Command::new("apt-get")
            .args(&options)
            .args(["download", "libcuda1"])
            .current_dir(apt.join("download")),
    )?;
    let package = std::fs::read_dir(apt.join("download"))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .find(|path| path.extension().is_some_and(|extension| extension == "deb"))
        .context("apt-get download libcuda1 left no .deb")?;
    let unpacked = driver.join("unpacked");
    quiet(
        Command::new("dpkg-deb")
            .arg("-x")
            .arg(&package)
            .arg(&unpacked),
    )?;
    let library = find_file(&unpacked, "libcuda.so.1").context("libcuda1 holds no libcuda.so.1")?;
    std::fs::create_dir_all(&lib64)?;
    for name in ["libcuda.so.1", "libcuda.so"] {
        let link = lib64.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(std::fs::canonicalize(&library)?, &link)?;
    }
    Ok(())
}

fn debian_codename() -> String {
    std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|line| {
                line.strip_prefix("VERSION_CODENAME=")
                    .map(|name| name.trim_matches('"').to_string())
            })
        })
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "bookworm".into())
}

fn find_file(folder: &Path, name: &str) -> Option<PathBuf> {
    for entry in std::fs::read_dir(folder).ok()?.flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|file| file == name) {
            return Some(path);
        }
        if path.is_dir()
            && !path.is_symlink()
            && let Some(found) = find_file(&path, name)
        {
            return Some(found);
        }
    }
    None
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
