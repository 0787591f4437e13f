//! `cargo xtask wheel`: the Python package `bfs-gpu` (`python/`) as one
//! wheel, built by maturin: abi3 (every CPython from 3.9), x86-64, tagged
//! with the oldest manylinux its symbols allow (maturin's audit: the glibc
//! it was linked against asks for 2.34, so `manylinux_2_34`; installable
//! on any newer glibc). The wheel holds the extension and its kernels; it
//! loads `libcuda.so.1` at run time, so it installs and imports where
//! there is no GPU and no CUDA.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use crate::setup::{self, Environment};
use crate::{Workspace, succeed};

/// Which build of the extension.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Optimized, for use and for the bundle: `target/wheels/`.
    Release,
    /// The test suite's debug build, which `cargo test` has mostly built
    /// already: `target/wheels/debug/`.
    Debug,
}

/// Builds the wheel and returns its path.
pub fn build(
    workspace: &Workspace,
    environment: &Environment,
    profile: Profile,
) -> Result<PathBuf> {
    let maturin = setup::maturin(workspace)?;
    let out = match profile {
        Profile::Release => workspace.target().join("wheels"),
        Profile::Debug => workspace.target().join("wheels").join("debug"),
    };
    // Only this build's wheel is left there, so that installing `*.whl`
    // takes it.
    remove_wheels(&out)?;
    let mut command = Command::new(&maturin);
    command
        .args(["build", "--quiet", "--manifest-path"])
        .arg(workspace.root().join("python").join("Cargo.toml"))
        .arg("--out")
        .arg(&out)
        .current_dir(workspace.root());
    if profile == Profile::Release {
        command.arg("--release");
    }
    environment.apply(&mut command);
    succeed(&mut command, "maturin build failed")?;
    let wheel = wheels_in(&out)?
        .pop()
        .with_context(|| format!("maturin wrote no wheel into {}", out.display()))?;
    Ok(wheel)
}

/// The wheels in `folder`.
pub fn wheels_in(folder: &Path) -> Result<Vec<PathBuf>> {
    let mut wheels = Vec::new();
    if !folder.exists() {
        return Ok(wheels);
    }
    for entry in std::fs::read_dir(folder)? {
        let path = entry?.path();
        if path.extension().is_some_and(|extension| extension == "whl") {
            wheels.push(path);
        }
    }
    wheels.sort();
    Ok(wheels)
}

fn remove_wheels(folder: &Path) -> Result<()> {
    for wheel in wheels_in(folder)? {
        std::fs::remove_file(&wheel).with_context(|| format!("removing {}", wheel.display()))?;
    }
    Ok(())
}
