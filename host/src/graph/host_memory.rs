//! The host memory a graph may be built in, so that a file declaring an
//! absurd graph gets a clear error instead of the out-of-memory killer.

/// Checks that building a graph of `vertex_count` vertices (and at most
/// `edges` directed edges, where they are counted) needs no more than the
/// host memory it may use ([`host_memory`]), so a file that declares an
/// absurd graph gets a clear error instead of the out-of-memory killer.
pub(super) fn fits_in_host_memory(
    bytes: u64,
    vertex_count: u32,
    edges: Option<u64>,
) -> Result<(), String> {
    match host_memory()? {
        Some((available, what)) if bytes > available => Err(format!(
            "{vertex_count} vertices{} need {} MB of host memory to build, {} MB are available ({})",
            edges
                .map(|edges| format!(" and up to {edges} directed edges"))
                .unwrap_or_default(),
            bytes / 1_000_000,
            available / 1_000_000,
            if what == HOST_MEMORY_VARIABLE {
                format!("set by {HOST_MEMORY_VARIABLE}")
            } else {
                format!(
                    "{what}; set {HOST_MEMORY_VARIABLE} to the machine's real limit if it is higher"
                )
            }
        )),
        _ => Ok(()),
    }
}

/// Checks that `bytes` more of host memory, for `what` (a search's bits, an
/// output matrix), fit in what this process may still use (as a graph's
/// build is checked: [`HOST_MEMORY_VARIABLE`], else the control group's
/// room, else `MemAvailable`); the error says how much is needed and how
/// much there is.
pub fn check_host_memory(bytes: u64, what: &str) -> Result<(), String> {
    match host_memory()? {
        Some((available, source)) if bytes > available => Err(format!(
            "{what} needs {} MB of host memory, {} MB are available ({source})",
            bytes.div_ceil(1_000_000),
            available / 1_000_000
        )),
        _ => Ok(()),
    }
}

/// The variable that sets the host memory a graph may be built in, in
/// bytes or with a `K`, `M`, `G` or `T` suffix (powers of 1,024).
pub const HOST_MEMORY_VARIABLE: &str = "BFS_HOST_MEMORY";

/// The host memory a graph may be built in, and where the figure comes
/// from: [`HOST_MEMORY_VARIABLE`] where it is set (for machines whose
/// memory grows as it is used, where the kernel's counts see too little);
/// else, inside a control group with a memory limit, what the group has
/// left (cgroup v2's `memory.max` less `memory.current`, or v1's
/// `memory.limit_in_bytes` less `memory.usage_in_bytes`): the limit the
/// out-of-memory killer enforces; else the kernel's `MemAvailable`. `None`
/// where none can be read.
fn host_memory() -> Result<Option<(u64, &'static str)>, String> {
    if let Some(value) = std::env::var_os(HOST_MEMORY_VARIABLE) {
        let value = value.to_string_lossy();
        return parse_size(&value)
            .map(|bytes| Some((bytes, HOST_MEMORY_VARIABLE)))
            .ok_or_else(|| {
                format!(
                    "{HOST_MEMORY_VARIABLE}={value} is not a size (bytes, or a number with K, M, G or T)"
                )
            });
    }
    let read =
        |path: &str| -> Option<u64> { std::fs::read_to_string(path).ok()?.trim().parse().ok() };
    // An unlimited v1 group reads as a page-rounded `i64::MAX`.
    let limited = |limit: u64| limit < 1 << 62;
    let group_room = [
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        (
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            "/sys/fs/cgroup/memory/memory.usage_in_bytes",
        ),
    ]
    .into_iter()
    .find_map(|(limit, usage)| {
        let limit = read(limit).filter(|&limit| limited(limit))?;
        Some(limit.saturating_sub(read(usage)?))
    });
    if let Some(room) = group_room {
        return Ok(Some((room, "the control group's limit less its use")));
    }
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text
                .lines()
                .find(|line| line.starts_with("MemAvailable:"))?;
            Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
        });
    Ok(available.map(|bytes| (bytes, "MemAvailable")))
}

/// `value` as bytes: a whole number, with an optional `K`, `M`, `G` or `T`
/// (powers of 1,024).
fn parse_size(value: &str) -> Option<u64> {
    let value = value.trim();
    let (number, unit) = match value.char_indices().last()? {
        (end, suffix) if suffix.is_ascii_alphabetic() => (&value[..end], suffix),
        _ => (value, 'B'),
    };
    let shift = match unit.to_ascii_uppercase() {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        'T' => 40,
        _ => return None,
    };
    number.parse::<u64>().ok()?.checked_mul(1 << shift)
}
