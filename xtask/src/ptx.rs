//! The kernels' PTX, both modules (every kernel for sm_75, the cluster
//! kernels for sm_90): built through the host crate's build script, then
//! checked offline with `ptxas` for Hopper (sm_90): each must assemble (an
//! unresolved `core` symbol, such as a panic path, fails here), spill
//! nothing, use no stack (local memory: an array the compiler could not
//! keep in registers), and hold an `.entry` for every kernel name the
//! shared ABI lists for it.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use bfs_kernels::abi::{KERNEL_NAMES, SM90_KERNEL_NAMES};

use crate::Workspace;
use crate::setup::Environment;

/// Architecture the offline check assembles for.
const CHECK_ARCH: &str = "sm_90";

/// Builds the PTX modules, checks them, and returns their paths.
pub fn build_and_check(workspace: &Workspace, environment: &Environment) -> Result<Vec<PathBuf>> {
    workspace.cargo_ok(
        environment,
        &["build", "--quiet", "--package", "bfs", "--lib"],
    )?;
    let target = workspace.target();
    let modules = [
        (target.join("kernels").join("bfs_kernels.ptx"), KERNEL_NAMES),
        (
            target.join("kernels-sm90").join("bfs_kernels_sm90.ptx"),
            SM90_KERNEL_NAMES,
        ),
    ];
    for (ptx, names) in &modules {
        check(environment, ptx, names)?;
    }
    Ok(modules.into_iter().map(|(ptx, _)| ptx).collect())
}

/// Checks one module, which must define `kernel_names`.
fn check(environment: &Environment, ptx: &Path, kernel_names: &[&str]) -> Result<()> {
    let text =
        std::fs::read_to_string(ptx).with_context(|| format!("reading {}", ptx.display()))?;
    let missing: Vec<&str> = kernel_names
        .iter()
        .copied()
        .filter(|name| !text.contains(&format!(".entry {name}(")))
        .collect();
    if !missing.is_empty() {
        bail!("{} has no .entry for {}", ptx.display(), missing.join(", "));
    }

    let output = Command::new(&environment.ptxas)
        .args([&format!("-arch={CHECK_ARCH}"), "-v", "-o", "/dev/null"])
        .arg(ptx)
        .output()
        .with_context(|| format!("running {}", environment.ptxas.display()))?;
    let report = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        bail!("ptxas rejected {}:\n{report}", ptx.display());
    }
    let mut using_local_memory = Vec::new();
    let mut kernel = "";
    eprintln!(
        "ptxas -arch={CHECK_ARCH}: {} kernels of {}",
        kernel_names.len(),
        ptx.display()
    );
    for line in report.lines() {
        if let Some(name) = line.split("Function properties for ").nth(1) {
            kernel = name.trim();
        } else if line.contains("spill stores") {
            let local_memory = line
                .split(',')
                .filter(|part| part.contains("spill") || part.contains("stack frame"))
                .any(|part| !part.trim().starts_with("0 "));
            if local_memory {
                using_local_memory.push(kernel.to_string());
            }
            eprint!("  {kernel:<36} {}", line.trim());
        } else if line.contains("Used ") {
            eprintln!(
                ", {}",
                line.split("Used ").nth(1).unwrap_or_default().trim()
            );
        }
    }
    if !using_local_memory.is_empty() {
        bail!(
            "ptxas reports register spills or a stack frame in {}",
            using_local_memory.join(", ")
        );
    }
    Ok(())
}
