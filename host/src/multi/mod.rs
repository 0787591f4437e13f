//! BFS over several GPUs: a layer above the single-GPU kernels.
//!
//! The graph is split into vertex ranges of about equal edges
//! ([`partition`]); each GPU, a *rank*, holds its range's rows and
//! labels, its piece of each hub's list ([`delegates`]) and a few
//! bitmaps over every vertex, and the ranks exchange
//! each level's claims ([`claims`], to their owners) and frontier through
//! NCCL ([`nccl`], loaded at run time), as [`direction_optimizing`]
//! describes. Ranks run as threads of one process, one per GPU of this
//! host ([`Ranks::Threads`]), or one per process ([`Ranks::Process`]: the
//! path that spans machines, placed by the options or by their launcher,
//! [`launcher`]), the NCCL id passed from rank 0 to the others through a
//! file or over TCP ([`rendezvous`]). Threads whose GPUs reach each
//! other's memory read each top-down level's claims and each bottom-up
//! level's frontier words where the other GPUs wrote them
//! ([`peer_access`], [`Reach`]); processes exchange and all-gather them. For tests, ranks can also
//! share one GPU and exchange by copies ([`Ranks::SharedGpu`],
//! [`shared_gpu`]), behind the same [`Collectives`] as NCCL's.

pub mod claims;
pub mod clock;
pub mod delegates;
pub mod direction_optimizing;
pub mod injected_failure;
pub mod launcher;
pub mod nccl;
pub mod partition;
pub mod peer_access;
pub mod rendezvous;
mod running;
pub mod shared_gpu;

use std::time::Duration;

use cust::memory::{CopyDestination, DeviceBuffer, DevicePointer};
use cust::stream::Stream;

use direction_optimizing::{Layout, RankMemory};
use nccl::Communicator;
use peer_access::PeerAccess;
use rendezvous::Rendezvous;
use running::{Joined, on_threads, run_rank};

use crate::error::CudaContext;
use crate::gpu::{Gpu, Step};
use crate::{Bfs, Csr, Error, Result};

/// What a rank needs of the others: the collectives the search calls,
/// each queued on the rank's stream after the work queued before it. Every
/// rank calls each one, in the same order. NCCL's ([`Communicator`]) in
/// every search over GPUs; copies on one GPU ([`shared_gpu`]) where ranks
/// share it, in tests.
pub trait Collectives {
    /// This rank.
    fn rank(&self) -> u32;

    /// Ranks in all.
    fn ranks(&self) -> u32;

    /// How the ranks exchange, for the device's description: `NCCL`.
    fn transport(&self) -> &'static str;

    /// Gathers `count` words from every rank: rank `r`'s `send` reaches
    /// every rank at `receive + r * count`.
    fn all_gather(
        &self,
        send: DevicePointer<u32>,
        receive: DevicePointer<u32>,
        count: usize,
        stream: &Stream,
    ) -> Result<()>;

    /// Sends and receives words pairwise: each of `sends` goes to its
    /// peer, each of `receives` comes from its peer, where the peer
    /// queues the matching transfer (the same count) in the same call.
    /// Every rank calls it, even with nothing to move. Each buffer holds
    /// its count of words on this rank's device.
    fn exchange(&self, sends: &[Transfer], receives: &[Transfer], stream: &Stream) -> Result<()>;

    /// Waits for the work queued on `stream`: where that holds a
    /// collective that another rank never joins (it failed or was killed),
    /// an error within the ranks' timeout, never a hang.
    fn wait(&self, stream: &Stream) -> Result<()>;

    /// How long a rank waits for the others before it gives up.
    fn timeout(&self) -> Duration;

    /// Leaves the collectives at once, for a rank that stops on an error:
    /// what it queued ends without the others, and no later call waits for
    /// them. Returns whether work queued on this rank's GPU may still wait
    /// for the others (a collective's kernels that an abort did not reach),
    /// so that freeing the rank's buffers could wait too.
    fn give_up(&self) -> bool {
        false
    }

    /// Whether this rank's GPU runs no other rank's work, so that it may
    /// wait there for the others (`distributed_meet_peers`): two ranks on
    /// one GPU could each wait for a kernel queued behind the other's.
    fn has_own_gpu(&self) -> bool;

    /// Whether the ranks are threads of one process, which can meet on the
    /// host ([`meet_on_host`](Self::meet_on_host)).
    fn meets_on_host(&self) -> bool;

    /// Where [`meets_on_host`](Self::meets_on_host): passes this rank's
    /// `words` to every other rank and returns every rank's, in rank order,
    /// once every rank has come (each with as many), or an error within
    /// the ranks' timeout. A few words a level cost no collective there:
    /// no kernel, and no launch that waits for one.
    fn meet_on_host(&self, words: &[u32]) -> Result<Vec<u32>>;
}

/// One side of a pairwise transfer: `count` words at `words`, to or from
/// rank `peer`.
#[derive(Clone, Copy, Debug)]
pub struct Transfer {
    /// The other rank.
    pub peer: u32,
    /// The words sent or received into.
    pub words: DevicePointer<u32>,
    /// How many words.
    pub count: usize,
}

/// Where a search's ranks run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ranks {
    /// One thread per GPU of this process, on GPUs `0..count`.
    Threads(u32),
    /// This process is rank `rank` of `ranks`, on GPU `local_rank` modulo
    /// this host's GPUs; rank 0 passes the NCCL id to the others as
    /// `rendezvous` says.
    Process {
        /// This process's rank.
        rank: u32,
        /// Ranks in all.
        ranks: u32,
        /// Its rank among those on this host, where its launcher says;
        /// else its rank.
        local_rank: u32,
        /// How the id passes from rank 0 to the others.
        rendezvous: Rendezvous,
    },
    /// `count` ranks as threads on GPU 0, exchanging by copies there
    /// ([`shared_gpu`]), reaching each other as `reach` says: the
    /// search's logic over several ranks on a host with one GPU, where
    /// NCCL, which takes one rank a GPU, cannot run it. For tests: its
    /// times say nothing of several GPUs.
    SharedGpu(u32, Reach),
}

/// What each rank reaches of the others, which decides how a level's
/// claims and frontier words travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Only their collectives: a top-down level's claims are exchanged,
    /// a bottom-up level's frontier words all-gathered, landed beside the
    /// bitmap and copied into place. Ranks in processes of their own, or
    /// on GPUs that cannot reach each other's memory.
    Collectives,
    /// Their memory: threads of one process, each GPU able to reach the
    /// others' memory. A rank reads the claims for it where their senders
    /// wrote them, once the ranks have met (on the GPU, where each has its
    /// own), in levels of a few frontier edges
    /// ([`claims::IN_PLACE_EDGES`]), and the frontier's words (or, fresh
    /// from a top-down level, queues) where the others keep them: no
    /// collective in those levels, and each word written once, where it
    /// is read.
    PeerMemory,
}

/// One search over the ranks, as rank 0 sees it.
pub struct MultiRun {
    /// Every vertex's level and parent.
    pub result: Bfs,
    /// Wall time from the first level's start to the last level's end.
    pub elapsed: Duration,
    /// Each level's time, exchange included.
    pub steps: Vec<Step>,
    /// The GPUs: the rank count, the device's name and the transport, e.g.
    /// `2 × <name> (NCCL)`.
    pub device: String,
    /// Each rank's device memory, by rank.
    pub memory: Vec<RankMemory>,
}

/// What rank 0 does with each search as it ends: checks it, keeps its
/// figures. Results are handed over one at a time, as a Kronecker 28
/// search's labels alone take 2 GB of host memory.
pub type OnRun<'a> = &'a mut dyn FnMut(MultiRun) -> Result<()>;

/// Searches `graph` from each of `sources` over `ranks`, handing rank 0's
/// view of each search (its result and time) to `on_run` (never called on
/// the other ranks of [`Ranks::Process`]); a rank that waits longer than
/// `join_timeout` for the others gives up with an error. An error of
/// `on_run` ends nothing early (the other ranks are in the next search's
/// collectives): the first is returned once every search has run.
pub fn search(
    graph: &Csr,
    ranks: &Ranks,
    sources: &[u32],
    join_timeout: Duration,
    on_run: OnRun<'_>,
) -> Result<()> {
    search_with_regions(graph, ranks, sources, join_timeout, None, on_run)
}

/// [`search`] with claim regions of `region_pairs` pairs instead of
/// [`claims::region_capacity`]'s: less device memory, more rounds where a
/// top-down level claims more than a region holds (tests run the rounds
/// so on small graphs).
pub fn search_with_regions(
    graph: &Csr,
    ranks: &Ranks,
    sources: &[u32],
    join_timeout: Duration,
    region_pairs: Option<u32>,
    on_run: OnRun<'_>,
) -> Result<()> {
    let capacity = region_pairs.unwrap_or_else(|| claims::region_capacity(graph.vertex_count()));
    let devices = Gpu::device_count()?;
    match ranks {
        Ranks::Threads(count) => {
            if *count == 0 || *count > devices {
                return Err(Error::MultiGpu(format!(
                    "{count} GPUs were asked for; this host has {devices}"
                )));
            }
            let id = nccl::unique_id()?;
            let meeting = shared_gpu::Group::new(*count, join_timeout);
            let reach = match *count > 1 && peer_access::between_all(*count)? {
                true => Reach::PeerMemory,
                false => Reach::Collectives,
            };
            let layout = Layout::of(graph, *count);
            let ranks = (&layout, &*meeting);
            on_threads(graph, ranks, (sources, capacity), on_run, |rank| {
                let gpu = Gpu::open_device(rank)?;
                // Before NCCL takes its share of a GPU too full for the
                // part, which would fail inside NCCL with no bytes to say.
                let member = meeting.member(rank);
                let needed = layout.device_bytes(graph, rank, capacity);
                let parts = member.pairs_from_every_rank([needed, gpu.free_memory()?])?;
                let owned = &layout.ranges[rank as usize];
                direction_optimizing::parts_fit(rank, owned, &gpu, &parts)?;
                let access = match reach {
                    Reach::PeerMemory => Some(PeerAccess::enable(rank, *count)?),
                    Reach::Collectives => None,
                };
                let communicator =
                    Communicator::join(id, (rank, *count), join_timeout, Some(member))?;
                Ok(Joined {
                    gpu,
                    collectives: Box::new(communicator),
                    reach,
                    _access: access,
                })
            })
        }
        Ranks::SharedGpu(count, reach) => {
            if *count == 0 {
                return Err(Error::MultiGpu(
                    "ranks sharing a GPU: none was asked for".into(),
                ));
            }
            let group = shared_gpu::Group::new(*count, join_timeout);
            let layout = Layout::of(graph, *count);
            on_threads(
                graph,
                (&layout, &group),
                (sources, capacity),
                on_run,
                |rank| {
                    Ok(Joined {
                        gpu: Gpu::open_device(0)?,
                        collectives: Box::new(group.member(rank)),
                        reach: *reach,
                        _access: None,
                    })
                },
            )
        }
        Ranks::Process {
            rank,
            ranks,
            local_rank,
            rendezvous,
        } => {
            if rank >= ranks {
                return Err(Error::MultiGpu(format!(
                    "rank {rank} of {ranks}: ranks are numbered 0 to {}",
                    ranks - 1
                )));
            }
            if devices == 0 {
                return Err(Error::NoDevice("the driver reports no GPU".into()));
            }
            let id = rendezvous.pass((*rank, *ranks), join_timeout, nccl::unique_id)?;
            let gpu = Gpu::open_device(local_rank % devices)?;
            let communicator = Communicator::join(id, (*rank, *ranks), join_timeout, None)?;
            // Every rank has the id (joining needs it).
            rendezvous.finish(*rank);
            let on_run = (*rank == 0).then_some(on_run);
            let joined = Joined {
                gpu,
                collectives: Box::new(communicator),
                reach: Reach::Collectives,
                _access: None,
            };
            let layout = Layout::of(graph, *ranks);
            run_rank(
                (graph, &layout),
                joined,
                (sources, capacity),
                on_run,
                &|_| {},
            )
        }
    }
}

/// All-gathers `N` `u64`s from every rank, outside a search's levels (its
/// memory, its buffers' addresses); returns them by rank.
fn all_gather_words<const N: usize>(
    communicator: &dyn Collectives,
    gpu: &Gpu,
    words: [u64; N],
) -> Result<Vec<[u64; N]>> {
    let context = || "exchanging the ranks' figures".to_string();
    let ranks = communicator.ranks() as usize;
    let own = DeviceBuffer::from_slice(&words[..]).context(context)?;
    let all = DeviceBuffer::<u64>::zeroed(N * ranks).context(context)?;
    communicator.all_gather(
        claims::words_of(own.as_device_ptr()),
        claims::words_of(all.as_device_ptr()),
        2 * N,
        gpu.stream(),
    )?;
    communicator.wait(gpu.stream())?;
    let mut values = vec![0u64; N * ranks];
    all.copy_to(&mut values[..]).context(context)?;
    Ok(values
        .chunks(N)
        .map(|chunk| std::array::from_fn(|i| chunk[i]))
        .collect())
}
