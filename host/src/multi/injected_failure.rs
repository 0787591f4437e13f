//! A failure injected into one rank, for the tests that show how the
//! others leave when a rank fails mid-search, as one whose GPU fails does:
//! `BFS_FAIL_RANK=RANK:SEARCH:LEVEL` makes rank RANK fail as it starts
//! level LEVEL of its search SEARCH (both counted from 0).

use crate::{Error, Result};

/// The variable that injects the failure.
pub const VARIABLE: &str = "BFS_FAIL_RANK";

/// Where rank `rank` fails: at `level` of search `search`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InjectedFailure {
    rank: u32,
    search: u32,
    level: u32,
}

impl InjectedFailure {
    /// The failure [`VARIABLE`] injects into rank `rank`, if it names it;
    /// an error where its value is not `RANK:SEARCH:LEVEL`.
    pub fn for_rank(rank: u32) -> Result<Option<InjectedFailure>> {
        let Ok(text) = std::env::var(VARIABLE) else {
            return Ok(None);
        };
        let failure = InjectedFailure::parse(&text)?;
        Ok((failure.rank == rank).then_some(failure))
    }

    fn parse(text: &str) -> Result<InjectedFailure> {
        let malformed =
            || Error::MultiGpu(format!("{VARIABLE}={text}: expected RANK:SEARCH:LEVEL"));
        let numbers: Vec<u32> = text
            .split(':')
            .map(|field| field.trim().parse::<u32>())
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| malformed())?;
        let [rank, search, level] = numbers[..] else {
            return Err(malformed());
        };
        Ok(InjectedFailure {
            rank,
            search,
            level,
        })
    }

    /// The injected error where `search` and `level` are where it comes.
    pub fn check(&self, search: u32, level: u32) -> Result<()> {
        if (search, level) == (self.search, self.level) {
            return Err(Error::MultiGpu(format!(
                "rank {}: failed at level {level} of search {search}, as {VARIABLE} asked",
                self.rank
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_failure_comes_where_it_is_asked_for_and_a_bad_value_is_refused() {
        let failure = InjectedFailure::parse("1:3:2").expect("well formed");
        assert!(failure.check(3, 1).is_ok());
        assert!(failure.check(2, 2).is_ok());
        let error = failure.check(3, 2).expect_err("its place");
        assert!(
            error
                .to_string()
                .contains("rank 1: failed at level 2 of search 3"),
            "{error}"
        );
        for bad in ["", "1:2", "1:2:3:4", "a:1:2", "-1:0:0"] {
            assert!(InjectedFailure::parse(bad).is_err(), "{bad}");
        }
    }
}
