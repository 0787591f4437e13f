//! The payload of a contraction hierarchy's section: its arrays written in
//! order, and read back with every index checked before it is trusted.

use bfs_kernels::abi::chain_contracted;
use rayon::prelude::*;

use super::codec::{Decoder, Encoder};
use crate::graph::EdgeOffset;
use crate::graph::chains::{ChainContraction, WeightedRows};
use crate::graph::hierarchy::ContractionHierarchy;

fn encode_rows(rows: &WeightedRows, payload: &mut Encoder) {
    payload.array(&rows.row_offsets);
    payload.array(&rows.arcs);
}

pub(super) fn encode_hierarchy(hierarchy: &ContractionHierarchy, payload: &mut Encoder) {
    let chains = &hierarchy.chains;
    encode_rows(&chains.graph, payload);
    payload.array(&chains.places);
    payload.array(&chains.chains);
    payload.array(&hierarchy.level_starts);
    payload.array(&hierarchy.wide_ends);
    encode_rows(&hierarchy.lower, payload);
    encode_rows(&hierarchy.higher, payload);
    payload.word(hierarchy.shortcuts);
}

/// Whether `decoded` is `rows` rows of arcs whose heads lie below `heads`
/// and whose weights (path lengths) lie in `1..=vertex_count`.
fn rows_fit(decoded: &WeightedRows, (rows, heads, vertex_count): (u32, u32, u32)) -> bool {
    let offsets = &decoded.row_offsets;
    offsets.len() == rows as usize + 1
        && offsets.first() == Some(&0)
        && offsets.windows(2).all(|pair| pair[0] <= pair[1])
        && offsets.last().copied() == Some(decoded.arcs.len() as EdgeOffset / 2)
        && decoded.arcs.len().is_multiple_of(2)
        && decoded
            .arcs
            .par_chunks(2)
            .all(|arc| arc[0] < heads && (1..=vertex_count).contains(&arc[1]))
}

/// Decodes rows of arcs of the shape [`rows_fit`] checks.
fn decode_rows(
    payload: &mut Decoder<'_>,
    shape: (u32, u32, u32),
    what: &str,
) -> Result<WeightedRows, String> {
    let decoded = WeightedRows {
        row_offsets: payload.array::<EdgeOffset>()?,
        arcs: payload.array()?,
    };
    match rows_fit(&decoded, shape) {
        true => Ok(decoded),
        false => Err(format!("its {what} are out of range")),
    }
}

pub(super) fn decode_hierarchy(
    payload: &mut Decoder<'_>,
    vertex_count: u32,
) -> Result<ContractionHierarchy, String> {
    let contracted_row_offsets = payload.array::<EdgeOffset>()?;
    let kept_count = u32::try_from(contracted_row_offsets.len().saturating_sub(1))
        .map_err(|_| "too many kept vertices")?;
    let contracted = WeightedRows {
        row_offsets: contracted_row_offsets,
        arcs: payload.array()?,
    };
    let places: Vec<u32> = payload.array()?;
    let chain_words: Vec<u32> = payload.array()?;
    let level_starts: Vec<u32> = payload.array()?;
    let wide_ends: Vec<u32> = payload.array()?;
    let shape = (kept_count, kept_count, vertex_count);
    let lower = decode_rows(payload, shape, "lower arcs")?;
    let higher = decode_rows(payload, shape, "higher arcs")?;
    let shortcuts = payload.word()?;
    let chain_count = (chain_words.len() / chain_contracted::CHAIN_WORDS as usize) as u32;
    let contracted_fits = rows_fit(&contracted, shape);
    let chains_fit = chain_words
        .len()
        .is_multiple_of(chain_contracted::CHAIN_WORDS as usize)
        && chain_words
            .par_chunks(chain_contracted::CHAIN_WORDS as usize)
            .all(|chain| {
                chain[0] < kept_count && chain[1] < kept_count && chain[2] <= vertex_count
            });
    let places_fit = places.len() == 2 * vertex_count as usize
        && places
            .par_chunks(2)
            .all(|place| match place[0] & chain_contracted::IN_CHAIN {
                0 => place[0] < kept_count,
                _ => {
                    let chain = (place[0] & !chain_contracted::IN_CHAIN) as usize;
                    chain < chain_count as usize
                        && place[1]
                            < chain_words[chain_contracted::CHAIN_WORDS as usize * chain + 2]
                }
            });
    let levels_fit = level_starts.len() >= 2
        && level_starts.first() == Some(&0)
        && level_starts.last() == Some(&kept_count)
        && level_starts.windows(2).all(|pair| pair[0] <= pair[1])
        && wide_ends.len() + 1 == level_starts.len()
        && wide_ends
            .iter()
            .zip(level_starts.windows(2))
            .all(|(&end, level)| level[0] <= end && end <= level[1]);
    if !(contracted_fits && chains_fit && places_fit && levels_fit) {
        return Err("its indices are out of range".into());
    }
    if !arcs_join_levels_in_order(&level_starts, &lower, &higher) {
        return Err("its arcs do not join its levels in order".into());
    }
    Ok(ContractionHierarchy {
        chains: ChainContraction {
            graph: contracted,
            places,
            chains: chain_words,
        },
        level_starts,
        wide_ends,
        lower,
        higher,
        shortcuts,
    })
}

/// Whether each vertex's lower arcs lead to lower levels and its higher
/// arcs to higher ones (a core vertex's, the last level's, to the core),
/// as the sweeps read them: a vertex's distance is final when its level's
/// turn comes.
fn arcs_join_levels_in_order(
    level_starts: &[u32],
    lower: &WeightedRows,
    higher: &WeightedRows,
) -> bool {
    let level_of = |vertex: u32| level_starts.partition_point(|&start| start <= vertex) - 1;
    let core = level_starts.len() - 2;
    let kept_count = level_starts[level_starts.len() - 1];
    (0..kept_count).into_par_iter().all(|vertex| {
        let level = level_of(vertex);
        lower.of(vertex).all(|(head, _)| level_of(head) < level)
            && higher.of(vertex).all(|(head, _)| match level {
                _ if level == core => level_of(head) == core,
                _ => level_of(head) > level,
            })
    })
}
