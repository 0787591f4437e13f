//! How the NCCL id travels from rank 0 to the other ranks of a search over
//! processes: through a file on a filesystem every rank sees, or over TCP,
//! rank 0 listening at a port and the others connecting to its address,
//! as torch's `env://` rendezvous (`MASTER_ADDR`, `MASTER_PORT`) does, for
//! clusters without shared scratch space.
//!
//! Over TCP a rank sends rank 0 a hello: [`MAGIC`], [`VERSION`], the rank
//! count and its rank (little-endian `u32`s). Rank 0 answers every
//! connection with [`MAGIC`], [`VERSION`] and its rank count, then, where
//! the hello is a rank of its search, the id; it closes a connection whose
//! hello is not one (another program), and gives up on a rank of another
//! count, version or a rank taken twice, since the search cannot run.
//! Both sides wait at most the ranks' join timeout.

use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::nccl::{UNIQUE_ID_BYTES, UniqueId};
use crate::{Error, Result};

/// How the ranks of a search over processes pass the NCCL id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rendezvous {
    /// Rank 0 writes the id to `path`, the others wait for it there, and
    /// rank 0 removes it once they have all joined.
    File {
        /// A file every rank sees.
        path: PathBuf,
        /// When this process started: a file written before it (less
        /// [`ID_FILE_SLACK`]) is an earlier run's, never taken.
        started: SystemTime,
    },
    /// Rank 0 listens at `port` on every address of its host; the others
    /// connect to `host`, rank 0's host.
    Tcp {
        /// Rank 0's host name or address.
        host: String,
        /// The port rank 0 listens at.
        port: u16,
    },
}

/// How much older than a rank's process an id file may be and still be
/// taken: ranks started together by a launcher start within this of each
/// other.
pub const ID_FILE_SLACK: Duration = Duration::from_secs(10);

/// What a message of the TCP rendezvous starts with.
pub const MAGIC: [u8; 8] = *b"bfs-nccl";

/// The TCP rendezvous's version: a rank of another refuses to run.
pub const VERSION: u32 = 1;

/// A hello's bytes: the magic, the version, the rank count, the rank.
const HELLO_BYTES: usize = 8 + 4 + 4 + 4;

/// An answer's bytes before the id: the magic, the version, the rank count.
const ANSWER_BYTES: usize = 8 + 4 + 4;

/// How long rank 0 waits for a connection's hello: a rank sends it at
/// once, so only another program takes longer.
const HELLO_WAIT: Duration = Duration::from_secs(5);

/// How often a rank tries rank 0 again, and rank 0 looks for connections.
const POLL: Duration = Duration::from_millis(50);

impl Rendezvous {
    /// The id every rank joins with: `make_id`'s on rank 0, which hands it
    /// to the others (over TCP, waiting until they all have it); from rank
    /// 0 on the others. Gives up after `timeout`.
    pub fn pass(
        &self,
        (rank, ranks): (u32, u32),
        timeout: Duration,
        make_id: impl FnOnce() -> Result<UniqueId>,
    ) -> Result<UniqueId> {
        match (self, rank) {
            (Rendezvous::File { path, .. }, 0) => {
                let id = make_id()?;
                write_id(path, &id)?;
                Ok(id)
            }
            (Rendezvous::File { path, started }, _) => {
                read_id(path, timeout, *started - ID_FILE_SLACK)
            }
            (Rendezvous::Tcp { host, port }, 0) => {
                let listener = listen(host, *port)?;
                let id = make_id()?;
                serve(&listener, &id, ranks, timeout)?;
                Ok(id)
            }
            (Rendezvous::Tcp { host, port }, _) => {
                let addresses = resolve(host, *port)?;
                fetch(&addresses, (rank, ranks), timeout)
            }
        }
    }

    /// What rank `rank` does once every rank has joined: rank 0 removes
    /// the id file, which the next run's ranks must not find.
    pub fn finish(&self, rank: u32) {
        if let (Rendezvous::File { path, .. }, 0) = (self, rank) {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Writes the id for the other ranks: whole, or not at all (a temporary
/// file renamed into place).
fn write_id(path: &Path, id: &UniqueId) -> Result<()> {
    crate::output::write_with(path, |writer| writer.write_all(&id.0)).map_err(|error| {
        Error::MultiGpu(format!(
            "writing the NCCL id to {}: {error}",
            path.display()
        ))
    })
}

/// Waits up to `timeout` for rank 0 to write the id (a file written no
/// earlier than `not_before`), and reads it.
fn read_id(path: &Path, timeout: Duration, not_before: SystemTime) -> Result<UniqueId> {
    let started = Instant::now();
    loop {
        let fresh = std::fs::metadata(path)
            .and_then(|metadata| metadata.modified())
            .is_ok_and(|modified| modified >= not_before);
        if fresh
            && let Ok(bytes) = std::fs::read(path)
            && let Ok(bytes) = <[u8; UNIQUE_ID_BYTES]>::try_from(bytes)
        {
            return Ok(UniqueId(bytes));
        }
        if started.elapsed() > timeout {
            return Err(Error::OtherRank(format!(
                "rank 0 wrote no NCCL id to {} within {} s",
                path.display(),
                timeout.as_secs_f64()
            )));
        }
        std::thread::sleep(POLL);
    }
}

/// The addresses `host` names, at `port`.
fn resolve(host: &str, port: u16) -> Result<Vec<SocketAddr>> {
    let addresses: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|error| {
            Error::MultiGpu(format!("rank 0's address {host} does not resolve: {error}"))
        })?
        .collect();
    if addresses.is_empty() {
        return Err(Error::MultiGpu(format!(
            "rank 0's address {host} does not resolve"
        )));
    }
    Ok(addresses)
}

/// Rank 0's listener: `port` on every address of the host, of the family
/// of `host`'s first address (a name may resolve to a loopback address on
/// its own host and to another on the others').
fn listen(host: &str, port: u16) -> Result<TcpListener> {
    let every_address = match resolve(host, port)?[0] {
        SocketAddr::V4(_) => SocketAddr::from((Ipv4Addr::UNSPECIFIED, port)),
        SocketAddr::V6(_) => SocketAddr::from((Ipv6Addr::UNSPECIFIED, port)),
    };
    TcpListener::bind(every_address).map_err(|error| {
        Error::MultiGpu(format!(
            "rank 0 cannot listen at port {port}: {error} (another search's rank 0 there? give another port)"
        ))
    })
}

/// Rank 0: answers connections on `listener` until each of the other
/// `ranks - 1` ranks has `id`, or `timeout` has passed.
pub fn serve(listener: &TcpListener, id: &UniqueId, ranks: u32, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    let failed =
        |what: &str, error: std::io::Error| Error::MultiGpu(format!("rank 0, {what}: {error}"));
    listener
        .set_nonblocking(true)
        .map_err(|error| failed("listening", error))?;
    let mut served = vec![false; ranks as usize];
    served[0] = true;
    // The last connection that was not a rank, for the timeout's message.
    let mut stranger = None;
    while served.contains(&false) {
        match listener.accept() {
            Ok((stream, peer)) => match answer(stream, id, ranks, deadline) {
                Ok(rank) if served[rank as usize] => {
                    return Err(Error::MultiGpu(format!(
                        "rank 0: two processes came as rank {rank} (the second from {peer}): are the ranks' variables the same in every process?"
                    )));
                }
                Ok(rank) => served[rank as usize] = true,
                Err(Answer::Stranger(why)) => stranger = Some(format!("{peer} {why}")),
                Err(Answer::Refused(why)) => {
                    return Err(Error::MultiGpu(format!("rank 0: {peer} {why}")));
                }
            },
            Err(error) if error.kind() == ErrorKind::WouldBlock => {
                if Instant::now() > deadline {
                    let missing: Vec<String> = (0..ranks)
                        .filter(|&rank| !served[rank as usize])
                        .map(|rank| rank.to_string())
                        .collect();
                    return Err(Error::OtherRank(format!(
                        "rank 0: ranks {} of {ranks} did not come for the NCCL id within {} s{}",
                        missing.join(", "),
                        timeout.as_secs_f64(),
                        stranger
                            .map(|stranger| format!(" ({stranger})"))
                            .unwrap_or_default()
                    )));
                }
                std::thread::sleep(POLL);
            }
            Err(error) => return Err(failed("taking a connection", error)),
        }
    }
    Ok(())
}

/// Why rank 0 answered a connection without the id.
enum Answer {
    /// Not a rank: another program, closed and forgotten.
    Stranger(String),
    /// A rank of another search's shape: this search cannot run.
    Refused(String),
}

/// Reads a connection's hello and answers it; the rank that sent it, if
/// it is one of this search's.
fn answer(
    mut stream: TcpStream,
    id: &UniqueId,
    ranks: u32,
    deadline: Instant,
) -> std::result::Result<u32, Answer> {
    let wait = HELLO_WAIT.min(deadline.saturating_duration_since(Instant::now()));
    let mut hello = [0u8; HELLO_BYTES];
    let received = stream
        .set_nonblocking(false)
        .and_then(|()| stream.set_read_timeout(Some(wait.max(POLL))))
        .and_then(|()| stream.set_write_timeout(Some(wait.max(POLL))))
        .and_then(|()| stream.read_exact(&mut hello));
    if let Err(error) = received {
        return Err(Answer::Stranger(format!("sent no hello ({error})")));
    }
    if hello[..8] != MAGIC {
        return Err(Answer::Stranger(
            "is not a bfs rank (its hello is garbled)".into(),
        ));
    }
    let [version, their_ranks, rank] = words(&hello[8..]);
    let mut reply = message(&[VERSION, ranks]);
    let refusal = if version != VERSION {
        Some(format!(
            "speaks version {version} of the rendezvous, this bfs version {VERSION}"
        ))
    } else if their_ranks != ranks {
        Some(format!(
            "came as rank {rank} of {their_ranks}, but this search has {ranks} ranks"
        ))
    } else if rank == 0 || rank >= ranks {
        Some(format!(
            "came as rank {rank}, not one of 1 to {}",
            ranks - 1
        ))
    } else {
        None
    };
    if refusal.is_none() {
        reply.extend_from_slice(&id.0);
    }
    // A rank refused learns why from the header, and from the closed
    // connection where it expected the id.
    let sent = stream.write_all(&reply);
    match (refusal, sent) {
        (Some(why), _) => Err(Answer::Refused(why)),
        (None, Err(error)) => Err(Answer::Stranger(format!("took no id ({error})"))),
        (None, Ok(())) => Ok(rank),
    }
}

/// A hello, or an answer's header: [`MAGIC`], then `words` little-endian.
fn message(words: &[u32]) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    for word in words {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    bytes
}

/// The first `N` little-endian `u32`s of `bytes`.
fn words<const N: usize>(bytes: &[u8]) -> [u32; N] {
    std::array::from_fn(|i| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()))
}

/// Rank `rank` of `ranks`: the id from rank 0 at `addresses`, trying
/// until rank 0 listens, for up to `timeout`.
pub fn fetch(
    addresses: &[SocketAddr],
    (rank, ranks): (u32, u32),
    timeout: Duration,
) -> Result<UniqueId> {
    let deadline = Instant::now() + timeout;
    let within = format!("within {} s", timeout.as_secs_f64());
    let mut stream = connect(addresses, deadline).map_err(|error| {
        Error::OtherRank(format!(
            "rank {rank}: rank 0 did not listen at {} {within} ({error})",
            addresses[0]
        ))
    })?;
    let at = stream.peer_addr().unwrap_or(addresses[0]);
    let failed = |error: std::io::Error| match error.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => Error::OtherRank(format!(
            "rank {rank}: rank 0 at {at} sent no NCCL id {within}"
        )),
        ErrorKind::UnexpectedEof => Error::MultiGpu(format!(
            "rank {rank}: rank 0 at {at} refused this rank (its own error says why)"
        )),
        _ => Error::MultiGpu(format!(
            "rank {rank}: the NCCL id from rank 0 at {at}: {error}"
        )),
    };
    let left = deadline.saturating_duration_since(Instant::now()).max(POLL);
    stream
        .set_read_timeout(Some(left))
        .and_then(|()| stream.set_write_timeout(Some(left)))
        .map_err(failed)?;
    let hello = message(&[VERSION, ranks, rank]);
    stream.write_all(&hello).map_err(failed)?;
    let mut header = [0u8; ANSWER_BYTES];
    stream.read_exact(&mut header).map_err(failed)?;
    let [version, their_ranks] = words(&header[8..]);
    if header[..8] != MAGIC {
        return Err(Error::MultiGpu(format!(
            "rank {rank}: {at} is not a bfs rank 0 (its answer is garbled): is the port another program's?"
        )));
    }
    if version != VERSION {
        return Err(Error::MultiGpu(format!(
            "rank {rank}: rank 0 at {at} speaks version {version} of the rendezvous, this bfs version {VERSION}"
        )));
    }
    if their_ranks != ranks {
        return Err(Error::MultiGpu(format!(
            "rank {rank} of {ranks}: rank 0 at {at} runs a search over {their_ranks} ranks"
        )));
    }
    let mut id = UniqueId([0; UNIQUE_ID_BYTES]);
    stream.read_exact(&mut id.0).map_err(failed)?;
    Ok(id)
}

/// A connection to the first of `addresses` that takes one, tried again
/// until `deadline`; the last refusal after it.
fn connect(addresses: &[SocketAddr], deadline: Instant) -> std::io::Result<TcpStream> {
    loop {
        let mut refusal = None;
        for address in addresses {
            let wait = deadline
                .saturating_duration_since(Instant::now())
                .clamp(POLL, Duration::from_secs(1));
            match TcpStream::connect_timeout(address, wait) {
                Ok(stream) => return Ok(stream),
                Err(error) => refusal = Some(error),
            }
        }
        if Instant::now() >= deadline {
            return Err(refusal.expect("at least one address"));
        }
        std::thread::sleep(POLL);
    }
}

#[cfg(test)]
mod tests;
