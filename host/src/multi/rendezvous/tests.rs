//! The rendezvous between threads standing for ranks: over TCP on this
//! host's loopback address, and through a file.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, SystemTime};

use super::{Rendezvous, fetch, serve};
use crate::Result;
use crate::multi::nccl::{UNIQUE_ID_BYTES, UniqueId};

/// An id no two tests share.
fn id(seed: u8) -> UniqueId {
    UniqueId(std::array::from_fn(|i| (i as u8).wrapping_mul(7) ^ seed))
}

/// The id's bytes, or the error (an id prints nothing).
fn bytes(id: Result<UniqueId>) -> Result<[u8; UNIQUE_ID_BYTES]> {
    id.map(|id| id.0)
}

/// A listener on a free loopback port, and its address.
fn loopback() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let address = listener.local_addr().expect("its address");
    (listener, address)
}

const LONG: Duration = Duration::from_secs(20);

#[test]
fn every_rank_receives_rank_0s_id_over_tcp() {
    // A port free now; the ranks start before rank 0 listens there.
    let port = loopback().1.port();
    let tcp = Rendezvous::Tcp {
        host: "127.0.0.1".into(),
        port,
    };
    let (tcp, ranks) = (&tcp, 4);
    let received = std::thread::scope(|scope| {
        let others: Vec<_> = (1..ranks)
            .map(|rank| scope.spawn(move || tcp.pass((rank, ranks), LONG, || panic!("not rank 0"))))
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        let own = tcp.pass((0, ranks), LONG, || Ok(id(1))).expect("rank 0");
        let mut all = vec![own];
        for other in others {
            all.push(other.join().unwrap().expect("a rank"));
        }
        all
    });
    assert!(received.iter().all(|received| received.0 == id(1).0));
}

#[test]
fn a_connection_that_is_no_rank_is_closed_and_the_ranks_still_come() {
    let (listener, address) = loopback();
    std::thread::scope(|scope| {
        let rank_0 = scope.spawn(|| serve(&listener, &id(2), 2, LONG));
        let mut stranger = TcpStream::connect(address).unwrap();
        stranger
            .write_all(b"GET / HTTP/1.0\r\nHost: bfs\r\n\r\n")
            .unwrap();
        // Closed, or reset where its hello's tail went unread: either way
        // with nothing in it.
        let mut answer = Vec::new();
        let _ = stranger.read_to_end(&mut answer);
        assert!(answer.is_empty(), "a stranger learns nothing");
        let fetched = fetch(&[address], (1, 2), LONG).expect("rank 1");
        assert_eq!(fetched.0, id(2).0);
        rank_0.join().unwrap().expect("rank 0 served rank 1");
    });
}

#[test]
fn a_rank_answered_by_another_program_says_so() {
    let (listener, address) = loopback();
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut hello = [0u8; 20];
        stream.read_exact(&mut hello).unwrap();
        stream.write_all(&[b'x'; 16 + UNIQUE_ID_BYTES]).unwrap();
    });
    let error = bytes(fetch(&[address], (1, 2), LONG)).expect_err("garbled");
    assert!(error.to_string().contains("is not a bfs rank 0"), "{error}");
    server.join().unwrap();
}

#[test]
fn ranks_of_another_count_are_refused_on_both_sides() {
    let (listener, address) = loopback();
    std::thread::scope(|scope| {
        let rank_0 = scope.spawn(|| serve(&listener, &id(3), 2, LONG));
        let error = bytes(fetch(&[address], (1, 3), LONG)).expect_err("another count");
        assert!(
            error.to_string().contains("rank 1 of 3: rank 0 at")
                && error.to_string().contains("runs a search over 2 ranks"),
            "{error}"
        );
        let error = rank_0.join().unwrap().expect_err("refused");
        assert!(
            error
                .to_string()
                .contains("came as rank 1 of 3, but this search has 2 ranks"),
            "{error}"
        );
    });
}

#[test]
fn a_rank_taken_twice_or_out_of_range_stops_rank_0() {
    let (listener, address) = loopback();
    std::thread::scope(|scope| {
        let rank_0 = scope.spawn(|| serve(&listener, &id(4), 3, LONG));
        fetch(&[address], (1, 3), LONG).expect("the first rank 1");
        let _ = fetch(&[address], (1, 3), LONG);
        let error = rank_0.join().unwrap().expect_err("twice");
        assert!(
            error.to_string().contains("two processes came as rank 1"),
            "{error}"
        );
    });
    let (listener, address) = loopback();
    std::thread::scope(|scope| {
        let rank_0 = scope.spawn(|| serve(&listener, &id(5), 3, LONG));
        let error = bytes(fetch(&[address], (0, 3), LONG)).expect_err("rank 0 twice");
        assert!(error.to_string().contains("refused this rank"), "{error}");
        let error = rank_0.join().unwrap().expect_err("out of range");
        assert!(
            error
                .to_string()
                .contains("came as rank 0, not one of 1 to 2"),
            "{error}"
        );
    });
}

#[test]
fn waits_end_after_the_timeout_with_one_line() {
    let short = Duration::from_millis(300);
    // Nothing listens at a port just freed: rank 0 never came.
    let address = loopback().1;
    let error = bytes(fetch(&[address], (1, 2), short)).expect_err("no rank 0");
    let message = error.to_string();
    assert!(
        message.contains("rank 1: rank 0 did not listen at 127.0.0.1:")
            && message.contains("within 0.3 s")
            && !message.contains('\n'),
        "{message}"
    );
    let (listener, _) = loopback();
    let error = serve(&listener, &id(6), 3, short).expect_err("no rank came");
    assert!(
        error
            .to_string()
            .contains("ranks 1, 2 of 3 did not come for the NCCL id within 0.3 s"),
        "{error}"
    );
    // A rank 0 that takes the connection but never answers.
    let (listener, address) = loopback();
    let error = bytes(fetch(&[address], (1, 2), short)).expect_err("no answer");
    assert!(
        error.to_string().contains("sent no NCCL id within"),
        "{error}"
    );
    drop(listener);
}

#[test]
fn the_id_passes_through_a_file_written_after_the_rank_started() {
    let folder = std::env::temp_dir().join(format!("bfs-rendezvous-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("nccl-id");
    let file = |started| Rendezvous::File {
        path: path.clone(),
        started,
    };
    let now = SystemTime::now();
    let written = file(now).pass((0, 2), LONG, || Ok(id(7))).expect("rank 0");
    let read = file(now).pass((1, 2), LONG, || panic!("not rank 0"));
    assert_eq!(read.expect("rank 1").0, written.0);
    // A file from before a rank started (less the slack) is an earlier
    // run's: never taken.
    let later = now + Duration::from_secs(60);
    let stale = file(later).pass((1, 2), Duration::from_millis(200), || panic!("not rank 0"));
    let error = bytes(stale).expect_err("stale");
    assert!(error.to_string().contains("wrote no NCCL id"), "{error}");
    file(now).finish(0);
    assert!(!path.exists(), "rank 0 removes the file");
    let _ = std::fs::remove_dir_all(&folder);
}
