//! # Connected components: union–find over the arcs, and strong components by signatures
//!
//! **Weak components** (connected ones, on an undirected graph) are
//! ECL-CC's union–find (Jaiganesh & Burtscher, "A High-Performance
//! Connected Components Implementation for GPUs", HPDC 2018): every vertex
//! starts as its own tree ([`components_start`]); every arc unites its
//! ends' trees, hanging the larger root under the smaller with a
//! compare-and-swap, so a tree's root is always its least vertex
//! ([`components_hook`]); then every vertex points straight at its root
//! ([`components_flatten`]). Finding a root while hooking shortens the
//! path as it goes (each visited vertex is pointed at its grandparent:
//! ECL-CC's intermediate pointer jumping), with plain stores, since a
//! vertex that is not a root only ever gets a nearer ancestor as its
//! parent; the flattening only reads the path, each vertex writing its
//! own root alone (ECL-CC's finalization), so no late store of another
//! thread's puts an ancestor back over it. An arc's
//! direction does not matter to a union, so a directed graph's weak
//! components take its arcs as they are.
//!
//! **Strong components** are ECL-SCC's signatures (Alabandi, Sands, Biros
//! & Burtscher, "A GPU Algorithm for Detecting Strongly Connected
//! Components", SC 2023): each vertex takes the largest id that reaches it
//! and the largest it reaches, by sweeps that push the first along each
//! arc and pull the second back against it until neither grows
//! ([`strong_propagate`]). Two vertices of one component reach and are
//! reached by the same vertices, so an arc whose ends' signatures differ
//! joins two components and is dropped; a vertex whose two halves are
//! equal, `m`, reaches `m` and is reached by it, so it lies in `m`'s
//! component and is settled ([`strong_split`]). The rounds repeat on what
//! is left, which every round splits further, until every vertex is
//! settled. A component's label is then its least vertex
//! ([`strong_least`], [`strong_label`]).
//!
//! Encodings: `abi::components`.

use core::ptr::{read_volatile, write_volatile};

use crate::abi::components::{Forest, Signatures};
use crate::abi::{Rows, UNREACHED};
use crate::gpu::{self, FULL_WARP, WARP_SIZE};
use crate::visit::row;

/// Every vertex the root of its own tree.
///
/// # Safety
/// `forest.parents` holds `vertex_count` words.
///
/// # Launch
/// Blocks of `abi::components::BLOCK_SIZE` threads, any number.
///
/// # Thread mapping
/// Grid thread `t` of `T` takes vertices `t`, `t + T`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn components_start(forest: Forest) {
    for_each_vertex(forest.vertex_count, |vertex| {
        // SAFETY: `vertex < n` (the contract).
        unsafe { *forest.parents.add(vertex as usize) = vertex };
    });
}

/// Unites the trees of every arc's ends (on a symmetric graph, each edge
/// once: from its larger end), for the vertices of fewer than
/// [`HEAVY_ARCS`] arcs; [`components_hook_heavy`] takes the others.
///
/// # Safety
/// `rows` are the graph's `n` rows, `forest` its forest, every parent at
/// most its vertex.
///
/// # Launch
/// Blocks of `abi::components::BLOCK_SIZE` threads, any number.
///
/// # Thread mapping
/// Grid thread `t` of `T` takes vertices `t`, `t + T`, …, and each of
/// their arcs (ECL-CC's first kernel: most vertices of a sparse graph
/// have a few arcs, so a warp a vertex would leave most lanes idle).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn components_hook(rows: Rows, forest: Forest) {
    let parents = gpu::global(forest.parents);
    for_each_vertex(forest.vertex_count, |vertex| {
        // SAFETY: rows and parents within `n` (the contract); parents
        // change only as `root` and `unite` say.
        unsafe {
            let (first_arc, end_arc) = row(rows.offsets, vertex);
            if end_arc - first_arc >= HEAVY_ARCS {
                return;
            }
            for arc in first_arc..end_arc {
                hook_arc(rows, forest, parents, vertex, arc);
            }
        }
    });
}

/// Rows of this many arcs or more are [`components_hook_heavy`]'s.
const HEAVY_ARCS: u64 = WARP_SIZE as u64;

/// [`components_hook`] for the vertices of [`HEAVY_ARCS`] arcs or more.
///
/// # Safety
/// As [`components_hook`].
///
/// # Launch
/// As [`components_hook`].
///
/// # Thread mapping
/// The grid's warp `w` of `W` takes vertices `w`, `w + W`, …, its lanes
/// every 32nd arc of the vertex's row.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn components_hook_heavy(rows: Rows, forest: Forest) {
    let parents = gpu::global(forest.parents);
    let (mut vertex, warps) = gpu::grid_warps();
    // SAFETY: as in `components_hook`.
    unsafe {
        while vertex < forest.vertex_count {
            let (first_arc, end_arc) = row(rows.offsets, vertex);
            if end_arc - first_arc >= HEAVY_ARCS {
                let mut arc = first_arc + gpu::lane_index() as u64;
                while arc < end_arc {
                    hook_arc(rows, forest, parents, vertex, arc);
                    arc += WARP_SIZE as u64;
                }
            }
            vertex += warps;
        }
    }
}

/// Unites the trees of `vertex` and the head of its arc `arc` (on a
/// symmetric graph, only where the head is the smaller).
///
/// # Safety
/// As [`components_hook`], `arc` one of `vertex`'s.
#[inline(always)]
unsafe fn hook_arc(rows: Rows, forest: Forest, parents: *mut u32, vertex: u32, arc: u64) {
    // SAFETY: the caller's contract.
    unsafe {
        let head = gpu::load_read_only(rows.columns.add(arc as usize));
        if forest.symmetric == 0 || head < vertex {
            unite(parents, root(parents, vertex), root(parents, head));
        }
    }
}

/// Every vertex's parent made its root.
///
/// # Safety
/// As [`components_hook`], which ran before.
///
/// # Launch
/// As [`components_start`].
///
/// # Thread mapping
/// As [`components_start`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn components_flatten(forest: Forest) {
    let parents = gpu::global(forest.parents);
    for_each_vertex(forest.vertex_count, |vertex| {
        // SAFETY: `vertex < n`; a vertex's root is settled after the
        // hooks. The walk shortens no path on its way: another thread's
        // late store could then put back an ancestor over a root this
        // thread has written, and the vertex's own store is its last.
        unsafe {
            let mut current = vertex;
            loop {
                let next = read_volatile(parents.add(current as usize));
                if next == current {
                    break;
                }
                current = next;
            }
            write_volatile(parents.add(vertex as usize), current);
        }
    });
}

/// The root of `vertex`'s tree, each vertex on the way pointed at its
/// grandparent.
///
/// # Safety
/// `vertex < n`, `parents` the forest's, each parent at most its vertex.
#[inline(always)]
unsafe fn root(parents: *mut u32, vertex: u32) -> u32 {
    // SAFETY: the caller's contract. A vertex whose parent is below it is
    // no root, and stays none: only its parent's place changes, to an
    // ancestor, so racing stores each leave a valid parent.
    unsafe {
        let mut current = read_volatile(parents.add(vertex as usize));
        if current == vertex {
            return current;
        }
        let mut previous = vertex;
        loop {
            let next = read_volatile(parents.add(current as usize));
            if next >= current {
                return current;
            }
            write_volatile(parents.add(previous as usize), next);
            previous = current;
            current = next;
        }
    }
}

/// Hangs the larger of two roots under the smaller; where the larger has
/// meanwhile got a parent, tries again from it.
///
/// # Safety
/// As [`root`], `a` and `b` vertices.
#[inline(always)]
unsafe fn unite(parents: *mut u32, mut a: u32, mut b: u32) {
    // SAFETY: the caller's contract; the swap succeeds only on a root.
    unsafe {
        while a != b {
            if a < b {
                (a, b) = (b, a);
            }
            let found = gpu::atomic_compare_exchange(parents.add(a as usize), a, b);
            if found == a {
                return;
            }
            a = found;
        }
    }
}

/// Each unsettled vertex's signature: its own id, twice.
///
/// # Safety
/// `signatures` as `abi::components` says.
///
/// # Launch
/// As [`components_start`].
///
/// # Thread mapping
/// As [`components_start`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn strong_start(signatures: Signatures) {
    let signatures = signatures.in_global();
    for_each_vertex(signatures.vertex_count, |vertex| {
        let v = vertex as usize;
        // SAFETY: `vertex < n` (the contract).
        unsafe {
            if *signatures.labels.add(v) == UNREACHED {
                *signatures.reached_by.add(v) = vertex;
                *signatures.reaches.add(v) = vertex;
            }
        }
    });
}

/// One sweep: along each kept arc `v → w`, `w` takes the largest id that
/// reaches `v`, and `v` the largest that `w` reaches; sets `*grew` where a
/// signature grew.
///
/// # Safety
/// As [`strong_start`], with the graph's `rows`; `grew` a word of the
/// launch's own.
///
/// # Launch
/// As [`components_hook`].
///
/// # Thread mapping
/// As [`components_hook`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn strong_propagate(
    rows: Rows,
    signatures: Signatures,
    grew: *mut u32,
) {
    let signatures = signatures.in_global();
    let (mut vertex, warps) = gpu::grid_warps();
    let mut any_grew = false;
    // SAFETY: within `n` and `m` (the contract). Signatures only grow, by
    // atomics, and any value read is an id that does reach (or is reached)
    // over kept arcs, so reading one mid-sweep only hastens the sweeps.
    unsafe {
        while vertex < signatures.vertex_count {
            let v = vertex as usize;
            if read_volatile(signatures.labels.add(v)) == UNREACHED {
                let reached_by = read_volatile(signatures.reached_by.add(v));
                let mut reaches = read_volatile(signatures.reaches.add(v));
                let before = reaches;
                let (first_arc, end_arc) = row(rows.offsets, vertex);
                let mut arc = first_arc + gpu::lane_index() as u64;
                while arc < end_arc {
                    if read_volatile(signatures.dropped.add(arc as usize)) == 0 {
                        let head = gpu::load_read_only(rows.columns.add(arc as usize)) as usize;
                        let theirs = signatures.reached_by.add(head);
                        if read_volatile(theirs) < reached_by
                            && gpu::atomic_max(theirs, reached_by) < reached_by
                        {
                            any_grew = true;
                        }
                        reaches = reaches.max(read_volatile(signatures.reaches.add(head)));
                    }
                    arc += WARP_SIZE as u64;
                }
                let reaches = gpu::warp_max(reaches);
                if reaches > before && gpu::lane_index() == 0 {
                    gpu::atomic_max(signatures.reaches.add(v), reaches);
                    any_grew = true;
                }
            }
            vertex += warps;
        }
        if gpu::ballot(FULL_WARP, any_grew) != 0 && gpu::lane_index() == 0 {
            gpu::atomic_or(grew, 1);
        }
    }
}

/// Drops every kept arc whose ends' signatures differ, settles each
/// unsettled vertex whose signature's halves are equal (its label that
/// id), and counts into `*unsettled` those that are not.
///
/// # Safety
/// As [`strong_propagate`], whose sweeps have ended; `unsettled` a word
/// of the launch's own.
///
/// # Launch
/// As [`components_hook`].
///
/// # Thread mapping
/// As [`components_hook`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn strong_split(
    rows: Rows,
    signatures: Signatures,
    unsettled: *mut u32,
) {
    let signatures = signatures.in_global();
    let (mut vertex, warps) = gpu::grid_warps();
    // SAFETY: within `n` and `m` (the contract); signatures are not
    // written in this launch, an arc's byte only by its tail's warp, and a
    // vertex's label only by its own warp.
    unsafe {
        while vertex < signatures.vertex_count {
            let v = vertex as usize;
            if *signatures.labels.add(v) == UNREACHED {
                let own = (*signatures.reached_by.add(v), *signatures.reaches.add(v));
                let (first_arc, end_arc) = row(rows.offsets, vertex);
                let mut arc = first_arc + gpu::lane_index() as u64;
                while arc < end_arc {
                    let dropped = signatures.dropped.add(arc as usize);
                    if *dropped == 0 {
                        let head = gpu::load_read_only(rows.columns.add(arc as usize)) as usize;
                        let theirs = (
                            *signatures.reached_by.add(head),
                            *signatures.reaches.add(head),
                        );
                        if theirs != own {
                            *dropped = 1;
                        }
                    }
                    arc += WARP_SIZE as u64;
                }
                if gpu::lane_index() == 0 {
                    if own.0 == own.1 {
                        write_volatile(signatures.labels.add(v), own.0);
                    } else {
                        gpu::atomic_add(unsettled, 1);
                    }
                }
            }
            vertex += warps;
        }
    }
}

/// Each component's least vertex, into `reached_by` at its signature (all
/// `u32::MAX` before the launch).
///
/// # Safety
/// As [`strong_start`], every vertex settled.
///
/// # Launch
/// As [`components_start`].
///
/// # Thread mapping
/// As [`components_start`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn strong_least(signatures: Signatures) {
    let signatures = signatures.in_global();
    for_each_vertex(signatures.vertex_count, |vertex| {
        // SAFETY: a settled label is a vertex (the contract).
        unsafe {
            let label = *signatures.labels.add(vertex as usize);
            gpu::atomic_min(signatures.reached_by.add(label as usize), vertex);
        }
    });
}

/// Each vertex labelled by its component's least vertex.
///
/// # Safety
/// As [`strong_least`], which ran before.
///
/// # Launch
/// As [`components_start`].
///
/// # Thread mapping
/// As [`components_start`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn strong_label(signatures: Signatures) {
    let signatures = signatures.in_global();
    for_each_vertex(signatures.vertex_count, |vertex| {
        // SAFETY: as [`strong_least`].
        unsafe {
            let label = signatures.labels.add(vertex as usize);
            *label = *signatures.reached_by.add(*label as usize);
        }
    });
}

/// Calls `body` with the vertices below `count` this thread takes: `t`,
/// `t + T`, … for grid thread `t` of `T`.
#[inline(always)]
fn for_each_vertex(count: u32, mut body: impl FnMut(u32)) {
    let mut vertex = gpu::global_thread_index();
    while vertex < count {
        body(vertex);
        vertex += gpu::grid_threads();
    }
}
