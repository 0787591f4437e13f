//! Each kernel the host launches with its parameters' type
//! (`abi::Kernel<P>`) takes, in the PTX, exactly `P`: one parameter for
//! each of `P`'s values, of its size and alignment; and where a value is a
//! parameter block, every read the kernel makes of it is of whole fields,
//! at the offsets the host's compiler gives them (`offset_of!`). So the
//! host's launch, which passes a `P`, passes what the kernel reads. No GPU
//! is needed: the PTX is the one `bfs` embeds.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::mem::{offset_of, size_of};

use bfs::abi::betweenness::{self, Levels, Paths, Scores};
use bfs::abi::betweenness_blocks::{self, Slots};
use bfs::abi::components::{self, Forest, Signatures};
use bfs::abi::distributed::{Outbox, Owned};
use bfs::abi::frontier::FrontierLevel;
use bfs::abi::hierarchy_sweep::{Hierarchy, Seeds};
use bfs::abi::hierarchy_trees::{self, Arcs, Chains, Labels, Tally};
use bfs::abi::many_sources::{self, Kept, Step};
use bfs::abi::{
    KERNEL_NAMES, Kernel, Parameters, Rows, SM90_KERNEL_NAMES, block_queue, chain_contracted,
    direction_optimizing, distributed, ghost_zones, global_queue, hierarchical_queue,
    hierarchy_sweep, hub_chunks, hybrid_cpu, on_chip, partitioned, persistent,
    persistent_direction_optimizing, renumbering, small_frontier, symmetry, two_kernel,
    vertex_levels, warp_specialized,
};
use bfs::gpu::{CLUSTER_KERNELS_PTX, KERNELS_PTX};

/// A field of a parameter block: its name, offset and size.
type Field = (&'static str, usize, usize);

/// The size of the field `field` picks.
fn size_of_field<T, F>(_field: fn(&T) -> &F) -> usize {
    size_of::<F>()
}

/// The fields of block type `$block`, as the host lays them out.
macro_rules! fields {
    ($block:ty { $($($field:ident).+),+ $(,)? }) => {
        vec![$((
            stringify!($($field).+),
            offset_of!($block, $($field).+),
            size_of_field(|block: &$block| &block.$($field).+),
        )),+]
    };
}

fn frontier_level() -> Vec<Field> {
    fields!(FrontierLevel {
        row_offsets,
        column_indices,
        frontier,
        next_frontier,
        next_frontier_size,
        visited,
        levels,
        parents,
        frontier_size,
        level,
    })
}

fn owned() -> Vec<Field> {
    fields!(Owned {
        row_offsets,
        visited,
        levels,
        parents,
        next_queue,
        next_size,
        next_edges,
        first_vertex,
        end_vertex,
    })
}

fn outbox() -> Vec<Field> {
    fields!(Outbox {
        regions,
        counts,
        rank_ends,
        capacity,
        rank,
    })
}

/// The batch kernels' one block, field by field through its parts, and
/// its tail padding (which the kernels never read).
fn step() -> Vec<Field> {
    let mut fields = fields!(Step {
        rows.out_offsets,
        rows.out_columns,
        rows.in_offsets,
        rows.in_columns,
        rows.vertex_count,
        rows.words,
        batch.visited,
        batch.frontier,
        batch.next,
        batch.frontier_masks,
        batch.touched,
        batch.touched_queue,
        batch.level_counts,
        batch.valid_bits,
        batch.live,
        kept.reached_by,
        kept.distance_sums,
        kept.reciprocal_sums,
        kept.farthest,
        kept.distances,
        heavy.chunks,
        heavy.ordinals,
        heavy.gathered,
        heavy.chunk_count,
        heavy.chunk_edges,
        current.vertices,
        current.chunks,
        current.figures,
        next.vertices,
        next.chunks,
        next.figures,
        sources,
        source_count,
        level,
        seeds,
    });
    let end = offset_of!(Step, seeds) + size_of::<u32>();
    fields.push(("tail padding", end, size_of::<Step>() - end));
    fields
}

fn labels() -> Vec<Field> {
    fields!(Labels {
        labels,
        width,
        count
    })
}

fn arcs() -> Vec<Field> {
    fields!(Arcs {
        rows,
        arcs,
        first,
        end
    })
}

fn chains() -> Vec<Field> {
    fields!(Chains {
        places,
        chains,
        own,
        vertex_count,
        kept_count,
        chain_count,
        limit,
    })
}

fn tally() -> Vec<Field> {
    fields!(Tally {
        counts,
        scratch,
        bins,
        group
    })
}

fn hierarchy() -> Vec<Field> {
    fields!(Hierarchy {
        level_starts,
        wide_ends,
        lower_rows,
        lower_arcs,
        higher_rows,
        higher_arcs,
        level_count,
        kept_count,
    })
}

fn seeds() -> Vec<Field> {
    fields!(Seeds {
        first,
        first_distance,
        second,
        second_distance,
    })
}

fn rows() -> Vec<Field> {
    fields!(Rows { offsets, columns })
}

fn paths() -> Vec<Field> {
    fields!(Paths {
        levels,
        sigma,
        delta,
        width,
        words
    })
}

fn levels() -> Vec<Field> {
    fields!(Levels {
        entries,
        queued_at,
        level_starts,
        level_words,
        level_count
    })
}

fn scores() -> Vec<Field> {
    fields!(Scores {
        vertices,
        edges,
        endpoint
    })
}

fn slots() -> Vec<Field> {
    fields!(Slots {
        marks,
        queue,
        level_ends,
        totals,
        vertex_count,
        slots
    })
}

fn forest() -> Vec<Field> {
    fields!(Forest {
        parents,
        vertex_count,
        symmetric
    })
}

fn signatures() -> Vec<Field> {
    fields!(Signatures {
        reached_by,
        reaches,
        labels,
        dropped,
        vertex_count,
        unused
    })
}

fn kept() -> Vec<Field> {
    fields!(Kept {
        reached_by,
        distance_sums,
        reciprocal_sums,
        farthest,
        distances,
    })
}

/// The entry points of both modules' PTX.
fn entry_points() -> BTreeSet<&'static str> {
    [KERNELS_PTX, CLUSTER_KERNELS_PTX]
        .iter()
        .flat_map(|ptx| ptx.split(".entry ").skip(1))
        .map(|after| &after[..after.find('(').unwrap()])
        .collect()
}

/// The text of `name`'s entry, from its `.entry` on, in whichever module
/// holds it.
fn entry_text(name: &str) -> &'static str {
    let entry = format!(".entry {name}(");
    [KERNELS_PTX, CLUSTER_KERNELS_PTX]
        .iter()
        .find_map(|ptx| ptx.find(&entry).map(|start| &ptx[start..]))
        .unwrap_or_else(|| panic!("no .entry {name} in the PTX"))
}

/// The entry's parameters in the PTX: (size, alignment) each.
fn entry_parameters(name: &str) -> Vec<(usize, usize)> {
    let list = entry_text(name);
    let list = &list[list.find('(').unwrap() + 1..list.find(')').unwrap()];
    list.split(',')
        .map(|parameter| {
            let words: Vec<&str> = parameter.split_whitespace().collect();
            // `.param .align A .b8 NAME[SIZE]`: a block.
            if let Some(bytes) = words.last().and_then(|last| last.split_once('[')) {
                let size = bytes.1.trim_end_matches(']').parse().unwrap();
                let align = words[words.iter().position(|&w| w == ".align").unwrap() + 1];
                return (size, align.parse().unwrap());
            }
            // `.param .u64 [.ptr .align A] NAME`: a scalar of its type's
            // size (a pointer's `.align` is its pointee's).
            let bits: usize = words[1][2..].parse().unwrap();
            (bits / 8, bits / 8)
        })
        .collect()
}

/// The entry's reads of parameter `index`: (offset, bytes) each.
fn reads_of(name: &str, index: usize) -> Vec<(usize, usize)> {
    let body = entry_text(name);
    let body = &body[..body.find("\n}").unwrap()];
    let parameter = format!("[{name}_param_{index}");
    body.lines()
        .filter(|line| line.contains(&parameter))
        .map(|line| {
            // `ld.param[.vN].bW dest, [NAME_param_I+OFFSET];`
            let operation = line.split_whitespace().next().unwrap();
            let lanes: usize = operation
                .split('.')
                .find_map(|part| part.strip_prefix('v')?.parse().ok())
                .unwrap_or(1);
            let bits: usize = operation.rsplit('.').next().unwrap()[1..].parse().unwrap();
            let address = &line[line.find(&parameter).unwrap() + parameter.len()..];
            let offset = address
                .strip_prefix('+')
                .map_or(0, |rest| rest[..rest.find(']').unwrap()].parse().unwrap());
            assert!(operation.starts_with("ld.param"), "{name}: {line}");
            (offset, lanes * bits / 8)
        })
        .collect()
}

thread_local! {
    /// The entry points this thread's [`check`]s checked.
    static CHECKED: RefCell<BTreeSet<&'static str>> = const { RefCell::new(BTreeSet::new()) };
}

/// Checks `kernel`'s entry against `P`, and each block (its index in `P`
/// and its fields) against the entry's reads of it.
fn check<P: Parameters>(kernel: Kernel<P>, blocks: &[(usize, Vec<Field>)]) {
    let name = kernel.name();
    CHECKED.with(|checked| checked.borrow_mut().insert(name));
    assert_eq!(entry_parameters(name), P::LAYOUT, "{name}'s parameters");
    for (index, fields) in blocks {
        let (size, _) = P::LAYOUT[*index];
        // The fields fill the block: no padding goes to the driver unset.
        assert_eq!(
            fields.iter().map(|&(_, _, bytes)| bytes).sum::<usize>(),
            size,
            "{name}: block {index}'s fields and its size"
        );
        let reads = reads_of(name, *index);
        assert!(!reads.is_empty(), "{name} reads nothing of block {index}");
        for (offset, bytes) in reads {
            // A read covers whole fields, from one field's start.
            let first = fields
                .iter()
                .position(|&(_, at, _)| at == offset)
                .unwrap_or_else(|| {
                    panic!("{name} reads block {index} at {offset}, no field's start")
                });
            let mut covered = 0;
            for &(_, _, size) in &fields[first..] {
                if covered == bytes {
                    break;
                }
                covered += size;
            }
            assert_eq!(
                covered, bytes,
                "{name} reads {bytes} bytes of block {index} at {offset} ({}), not whole fields",
                fields[first].0
            );
        }
    }
}

#[test]
fn the_frontier_kernels_take_a_level_block_as_the_host_lays_it_out() {
    check(global_queue::EXPAND, &[(0, frontier_level())]);
    check(block_queue::EXPAND, &[(0, frontier_level())]);
    check(block_queue::EXPAND_PLAIN_LOADS, &[(0, frontier_level())]);
    check(hierarchical_queue::EXPAND, &[(0, frontier_level())]);
    check(small_frontier::LEVELS, &[(0, frontier_level())]);
    check(direction_optimizing::TOP_DOWN, &[(0, frontier_level())]);
    check(hub_chunks::EXPAND, &[(0, frontier_level())]);
}

#[test]
fn the_exchange_kernels_take_the_owned_block_and_the_outbox_as_the_host_lays_them_out() {
    check(distributed::TOP_DOWN, &[(0, owned()), (1, outbox())]);
    check(
        distributed::EXPAND_HUB_CHUNKS,
        &[(0, owned()), (1, outbox())],
    );
    check(distributed::APPLY_CLAIMS, &[(0, owned())]);
    check(distributed::EXPAND_DELEGATES, &[(0, owned())]);
    check(distributed::NOTE_DELEGATES, &[]);
}

#[test]
fn the_textbooks_first_kernels_take_their_scalars_in_order() {
    check(two_kernel::EXPAND, &[]);
    check(two_kernel::UPDATE, &[]);
    check(vertex_levels::STEP, &[]);
    check(hybrid_cpu::MARK, &[]);
}

#[test]
fn the_batch_kernels_take_one_step_block_as_the_host_lays_it_out() {
    for kernel in [
        many_sources::START,
        many_sources::QUEUE,
        many_sources::TOP_DOWN,
        many_sources::SETTLE,
        many_sources::BOTTOM_UP_HEAVY,
        many_sources::BOTTOM_UP,
    ] {
        check(kernel, &[(0, step())]);
    }
}

#[test]
fn the_hierarchy_tree_kernels_take_their_blocks_as_the_host_lays_them_out() {
    check(hierarchy_trees::SEED, &[(0, labels())]);
    check(hierarchy_trees::SWEEP, &[(0, labels()), (1, arcs())]);
    check(hierarchy_trees::CORE_ROUND, &[(0, labels()), (1, arcs())]);
    check(hierarchy_trees::FARTHEST, &[(0, labels())]);
    check(
        hierarchy_trees::COUNT,
        &[(0, labels()), (1, chains()), (2, tally())],
    );
    check(
        hierarchy_trees::TOTALS,
        &[(0, labels()), (1, chains()), (2, kept())],
    );
    check(
        hierarchy_trees::DISTANCES,
        &[(0, labels()), (1, chains()), (2, kept())],
    );
}

#[test]
fn the_betweenness_kernels_take_their_blocks_as_the_host_lays_them_out() {
    check(betweenness::START, &[(0, paths()), (1, levels())]);
    check(
        betweenness::FORWARD,
        &[(0, rows()), (1, paths()), (2, levels())],
    );
    check(
        betweenness::BACKWARD,
        &[(0, rows()), (1, paths()), (2, levels()), (3, scores())],
    );
    check(betweenness::REACHED, &[(0, paths())]);
    check(
        betweenness_blocks::SEARCH,
        &[(0, rows()), (1, slots()), (4, scores())],
    );
    check(betweenness_blocks::TOTALS, &[(0, slots())]);
}

#[test]
fn the_components_and_symmetry_kernels_take_their_blocks_as_laid_out() {
    check(components::START, &[(0, forest())]);
    check(components::HOOK, &[(0, rows()), (1, forest())]);
    check(components::HOOK_HEAVY, &[(0, rows()), (1, forest())]);
    check(components::FLATTEN, &[(0, forest())]);
    for kernel in [
        components::STRONG_START,
        components::STRONG_LEAST,
        components::STRONG_LABEL,
    ] {
        check(kernel, &[(0, signatures())]);
    }
    for kernel in [components::STRONG_PROPAGATE, components::STRONG_SPLIT] {
        check(kernel, &[(0, rows()), (1, signatures())]);
    }
    check(symmetry::CHECK, &[(0, rows())]);
}

#[test]
fn the_kernels_of_scalars_and_pointers_take_them_in_order() {
    check(direction_optimizing::BOTTOM_UP, &[]);
    check(direction_optimizing::BOTTOM_UP_NARROW, &[]);
    check(direction_optimizing::QUEUE_TO_BITMAP, &[]);
    check(direction_optimizing::BITMAP_TO_QUEUE, &[]);
    check(distributed::MEET_PEERS, &[]);
    check(distributed::BOTTOM_UP, &[]);
    check(distributed::BOTTOM_UP_NARROW, &[]);
    check(distributed::READ_PEER_FRONTIERS, &[]);
    check(distributed::READ_PEER_QUEUES, &[]);
    check(distributed::LIST_DELEGATES, &[]);
    check(hub_chunks::SPLIT, &[]);
    check(persistent::LEVELS, &[]);
    check(persistent_direction_optimizing::SEARCH, &[]);
    check(persistent_direction_optimizing::SEARCH_NARROW, &[]);
    check(partitioned::SEARCH, &[]);
    check(warp_specialized::SEARCH, &[]);
    check(ghost_zones::SEARCH, &[]);
    check(renumbering::GATHER, &[]);
    check(chain_contracted::SEARCH, &[]);
    check(chain_contracted::LEVELS, &[]);
    check(chain_contracted::PARENTS, &[]);
    let sweep_blocks = || [(0, hierarchy()), (1, seeds())];
    check(hierarchy_sweep::SEARCH, &sweep_blocks());
    check(hierarchy_sweep::GRID_SEARCH, &sweep_blocks());
    check(on_chip::SEARCH, &[]);
}

/// Every entry point in the PTX is declared with its parameters' type
/// (the ABI's lists, gathered from those declarations, name exactly the
/// PTX's entries), and every one of them is checked above.
#[test]
fn every_entry_point_in_the_ptx_has_its_parameters_checked() {
    let in_ptx = entry_points();
    let declared: BTreeSet<&str> = KERNEL_NAMES
        .iter()
        .chain(SM90_KERNEL_NAMES)
        .copied()
        .collect();
    assert_eq!(declared, in_ptx, "the ABI's entry points and the PTX's");
    assert_eq!(declared.len(), KERNEL_NAMES.len() + SM90_KERNEL_NAMES.len());
    the_frontier_kernels_take_a_level_block_as_the_host_lays_it_out();
    the_exchange_kernels_take_the_owned_block_and_the_outbox_as_the_host_lays_them_out();
    the_textbooks_first_kernels_take_their_scalars_in_order();
    the_batch_kernels_take_one_step_block_as_the_host_lays_it_out();
    the_hierarchy_tree_kernels_take_their_blocks_as_the_host_lays_them_out();
    the_betweenness_kernels_take_their_blocks_as_the_host_lays_them_out();
    the_components_and_symmetry_kernels_take_their_blocks_as_laid_out();
    the_kernels_of_scalars_and_pointers_take_them_in_order();
    let checked = CHECKED.with(|checked| checked.borrow().clone());
    assert_eq!(checked, in_ptx, "the entry points checked and the PTX's");
}
