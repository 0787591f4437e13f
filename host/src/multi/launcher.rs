//! A process's place among the ranks of a search over processes, where the
//! options do not give it: from the launcher that started the process.
//! Slurm's `srun` sets `SLURM_PROCID`, `SLURM_NTASKS` and `SLURM_LOCALID`
//! in each process it starts, Open MPI's `mpirun` `OMPI_COMM_WORLD_RANK`,
//! `OMPI_COMM_WORLD_SIZE` and `OMPI_COMM_WORLD_LOCAL_RANK`, and PMI's
//! launchers (MPICH's and Intel MPI's `mpiexec`) `PMI_RANK` and `PMI_SIZE`;
//! the local rank, where there is one, picks the process's GPU of its host.
//!
//! An MPI launcher started inside a Slurm allocation runs its daemons
//! through Slurm, so its processes also carry Slurm's variables, those of
//! the daemon (one a host): where an MPI launcher's variables are there,
//! they are taken, and Slurm's are not. Variables that cannot be a place
//! (a missing half, a word, a rank past the count), two MPI launchers that
//! disagree, or options that disagree with the launcher are errors: a rank
//! placed wrongly would wait for ranks that never come.

use crate::{Error, Result};

/// A launcher whose variables place a process among the ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launcher {
    /// Slurm's `srun`.
    Slurm,
    /// Open MPI's `mpirun`.
    OpenMpi,
    /// A PMI launcher: MPICH's or Intel MPI's `mpiexec` (Hydra).
    Pmi,
}

impl Launcher {
    /// Every launcher, in the order their variables are taken.
    pub const ALL: [Launcher; 3] = [Launcher::OpenMpi, Launcher::Pmi, Launcher::Slurm];

    /// The launcher's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Launcher::Slurm => "Slurm",
            Launcher::OpenMpi => "Open MPI",
            Launcher::Pmi => "PMI",
        }
    }

    /// The variables holding the rank, the rank count and, where the
    /// launcher sets one, the rank among those on this host.
    pub fn variables(self) -> [Option<&'static str>; 3] {
        match self {
            Launcher::Slurm => [
                Some("SLURM_PROCID"),
                Some("SLURM_NTASKS"),
                Some("SLURM_LOCALID"),
            ],
            Launcher::OpenMpi => [
                Some("OMPI_COMM_WORLD_RANK"),
                Some("OMPI_COMM_WORLD_SIZE"),
                Some("OMPI_COMM_WORLD_LOCAL_RANK"),
            ],
            Launcher::Pmi => [Some("PMI_RANK"), Some("PMI_SIZE"), None],
        }
    }
}

/// Where a process runs among the ranks of a search over processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// This process's rank.
    pub rank: u32,
    /// Ranks in all.
    pub ranks: u32,
    /// Its rank among the ranks on this host, where the launcher says:
    /// it picks the GPU there.
    pub local_rank: Option<u32>,
    /// The launcher it came from; `None` where the options gave it.
    pub launcher: Option<Launcher>,
}

impl Placement {
    /// Where the placement came from, for messages: the launcher's
    /// variables and their values, or the options.
    pub fn origin(&self) -> String {
        match self.launcher {
            Some(launcher) => {
                let [rank, ranks, _] = launcher.variables();
                format!(
                    "{}'s {}={} and {}={}",
                    launcher.name(),
                    rank.unwrap_or_default(),
                    self.rank,
                    ranks.unwrap_or_default(),
                    self.ranks
                )
            }
            None => format!("--rank {} --ranks {}", self.rank, self.ranks),
        }
    }
}

/// The placement the launchers' variables give (`lookup` reads one),
/// `None` where no launcher set its rank or count.
pub fn from_variables(lookup: impl Fn(&str) -> Option<String>) -> Result<Option<Placement>> {
    let mut found = Vec::new();
    for launcher in Launcher::ALL {
        if let Some(placement) = launcher_placement(launcher, &lookup)? {
            found.push(placement);
        }
    }
    let mpi: Vec<&Placement> = found
        .iter()
        .filter(|placement| placement.launcher != Some(Launcher::Slurm))
        .collect();
    if let [first, second] = mpi[..]
        && (first.rank, first.ranks) != (second.rank, second.ranks)
    {
        return Err(Error::MultiGpu(format!(
            "{} disagree with {}: which launcher started this process?",
            first.origin(),
            second.origin()
        )));
    }
    Ok(found.first().copied())
}

/// `launcher`'s placement, where it set its rank or its count.
fn launcher_placement(
    launcher: Launcher,
    lookup: &impl Fn(&str) -> Option<String>,
) -> Result<Option<Placement>> {
    let [rank_name, ranks_name, local_name] = launcher.variables();
    let read = |name: Option<&'static str>| name.and_then(|name| Some((name, lookup(name)?)));
    let (rank, ranks) = match (read(rank_name), read(ranks_name)) {
        (None, None) => return Ok(None),
        (Some(rank), Some(ranks)) => (rank, ranks),
        (Some((set, _)), None) | (None, Some((set, _))) => {
            let unset = [rank_name, ranks_name]
                .into_iter()
                .flatten()
                .find(|&name| name != set)
                .unwrap_or_default();
            return Err(Error::MultiGpu(format!(
                "{set} is set but {unset} is not: {} variables place a rank only together",
                launcher.name()
            )));
        }
    };
    let number = |(name, value): (&str, String)| {
        value
            .trim()
            .parse::<u32>()
            .map_err(|_| Error::MultiGpu(format!("{name}={value:?} is not a rank or a rank count")))
    };
    let (rank_name, ranks_name) = (rank.0, ranks.0);
    let (rank, ranks) = (number(rank)?, number(ranks)?);
    if ranks == 0 {
        return Err(Error::MultiGpu(format!("{ranks_name}=0: no ranks")));
    }
    if rank >= ranks {
        return Err(Error::MultiGpu(format!(
            "{rank_name}={rank} but {ranks_name}={ranks}: ranks are numbered 0 to {}",
            ranks - 1
        )));
    }
    let local_rank = read(local_name).map(number).transpose()?;
    if let (Some(local), Some(local_name)) = (local_rank, local_name)
        && local >= ranks
    {
        return Err(Error::MultiGpu(format!(
            "{local_name}={local} but {ranks_name}={ranks}: a local rank is below the rank count"
        )));
    }
    Ok(Some(Placement {
        rank,
        ranks,
        local_rank,
        launcher: Some(launcher),
    }))
}

/// This process's placement: the options' rank and count (`given`), and
/// the launcher's (`launched`), which must agree where both are there.
/// A launcher that started one process leaves an ordinary run: `None`
/// where nothing else places it.
pub fn resolve(
    given: Option<(u32, u32)>,
    launched: Option<Placement>,
) -> Result<Option<Placement>> {
    let launched = launched.filter(|placement| placement.ranks > 1);
    match (given, launched) {
        (None, launched) => Ok(launched),
        (Some((rank, ranks)), None) => Ok(Some(Placement {
            rank,
            ranks,
            local_rank: None,
            launcher: None,
        })),
        (Some(given), Some(launched)) if given == (launched.rank, launched.ranks) => {
            Ok(Some(launched))
        }
        (Some((rank, ranks)), Some(launched)) => Err(Error::MultiGpu(format!(
            "--rank {rank} --ranks {ranks} disagree with {}: give neither, or the same",
            launched.origin()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The placement `variables` give.
    fn placed(variables: &[(&str, &str)]) -> Result<Option<Placement>> {
        from_variables(|name| {
            variables
                .iter()
                .find(|(variable, _)| *variable == name)
                .map(|(_, value)| value.to_string())
        })
    }

    /// The one-line error `variables` give.
    fn refused(variables: &[(&str, &str)]) -> String {
        let error = placed(variables).expect_err("refused").to_string();
        assert!(!error.contains('\n'), "{error}");
        error
    }

    #[test]
    fn each_launchers_variables_place_the_process() {
        let slurm = placed(&[
            ("SLURM_PROCID", "3"),
            ("SLURM_NTASKS", "4"),
            ("SLURM_LOCALID", "1"),
        ]);
        let expected = |rank, ranks, local_rank, launcher| Placement {
            rank,
            ranks,
            local_rank,
            launcher: Some(launcher),
        };
        assert_eq!(
            slurm.unwrap(),
            Some(expected(3, 4, Some(1), Launcher::Slurm))
        );
        let open_mpi = placed(&[
            ("OMPI_COMM_WORLD_RANK", "0"),
            ("OMPI_COMM_WORLD_SIZE", "2"),
            ("OMPI_COMM_WORLD_LOCAL_RANK", "0"),
        ]);
        assert_eq!(
            open_mpi.unwrap(),
            Some(expected(0, 2, Some(0), Launcher::OpenMpi))
        );
        let pmi = placed(&[("PMI_RANK", "5"), ("PMI_SIZE", "8")]);
        assert_eq!(pmi.unwrap(), Some(expected(5, 8, None, Launcher::Pmi)));
        // A local rank alone places nothing; no variable, no placement.
        assert_eq!(placed(&[("SLURM_LOCALID", "0")]).unwrap(), None);
        assert_eq!(placed(&[]).unwrap(), None);
    }

    #[test]
    fn an_mpi_launchers_variables_are_taken_over_slurms() {
        // mpirun inside an allocation: its daemon's Slurm variables, one a host.
        let nested = placed(&[
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "1"),
            ("SLURM_LOCALID", "0"),
            ("OMPI_COMM_WORLD_RANK", "1"),
            ("OMPI_COMM_WORLD_SIZE", "2"),
            ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
        ]);
        let placement = nested.unwrap().expect("placed");
        assert_eq!(
            (placement.rank, placement.ranks, placement.local_rank),
            (1, 2, Some(1))
        );
        assert_eq!(placement.launcher, Some(Launcher::OpenMpi));
        // Two MPI launchers that agree place the process as both do.
        let both = placed(&[
            ("OMPI_COMM_WORLD_RANK", "1"),
            ("OMPI_COMM_WORLD_SIZE", "2"),
            ("PMI_RANK", "1"),
            ("PMI_SIZE", "2"),
        ]);
        assert_eq!(both.unwrap().map(|placement| placement.rank), Some(1));
    }

    #[test]
    fn variables_that_cannot_place_a_rank_are_one_line_errors() {
        let cases: &[(&[(&str, &str)], &str)] = &[
            (
                &[("SLURM_PROCID", "1")],
                "SLURM_PROCID is set but SLURM_NTASKS is not",
            ),
            (&[("PMI_SIZE", "2")], "PMI_SIZE is set but PMI_RANK is not"),
            (
                &[("SLURM_PROCID", "one"), ("SLURM_NTASKS", "2")],
                "SLURM_PROCID=\"one\" is not a rank",
            ),
            (
                &[
                    ("OMPI_COMM_WORLD_RANK", "-1"),
                    ("OMPI_COMM_WORLD_SIZE", "2"),
                ],
                "OMPI_COMM_WORLD_RANK=\"-1\"",
            ),
            (
                &[("SLURM_PROCID", "2"), ("SLURM_NTASKS", "2")],
                "SLURM_PROCID=2 but SLURM_NTASKS=2: ranks are numbered 0 to 1",
            ),
            (&[("PMI_RANK", "0"), ("PMI_SIZE", "0")], "PMI_SIZE=0"),
            (
                &[
                    ("SLURM_PROCID", "0"),
                    ("SLURM_NTASKS", "2"),
                    ("SLURM_LOCALID", "x"),
                ],
                "SLURM_LOCALID=\"x\"",
            ),
            (
                &[
                    ("OMPI_COMM_WORLD_RANK", "0"),
                    ("OMPI_COMM_WORLD_SIZE", "2"),
                    ("OMPI_COMM_WORLD_LOCAL_RANK", "2"),
                ],
                "OMPI_COMM_WORLD_LOCAL_RANK=2 but OMPI_COMM_WORLD_SIZE=2",
            ),
            (
                &[
                    ("OMPI_COMM_WORLD_RANK", "1"),
                    ("OMPI_COMM_WORLD_SIZE", "2"),
                    ("PMI_RANK", "0"),
                    ("PMI_SIZE", "2"),
                ],
                "Open MPI's OMPI_COMM_WORLD_RANK=1 and OMPI_COMM_WORLD_SIZE=2 disagree with PMI's PMI_RANK=0 and PMI_SIZE=2",
            ),
            (
                // Slurm's variables are checked even where an MPI
                // launcher's are taken.
                &[
                    ("SLURM_PROCID", "0"),
                    ("OMPI_COMM_WORLD_RANK", "1"),
                    ("OMPI_COMM_WORLD_SIZE", "2"),
                ],
                "SLURM_PROCID is set but SLURM_NTASKS is not",
            ),
        ];
        for (variables, expected) in cases {
            let error = refused(variables);
            assert!(error.contains(expected), "{variables:?}: {error}");
        }
    }

    #[test]
    fn options_and_a_launcher_must_agree() {
        let slurm = Some(Placement {
            rank: 1,
            ranks: 2,
            local_rank: Some(0),
            launcher: Some(Launcher::Slurm),
        });
        assert_eq!(resolve(None, None).unwrap(), None);
        assert_eq!(resolve(None, slurm).unwrap(), slurm);
        // The same rank given both ways keeps the launcher's local rank.
        assert_eq!(resolve(Some((1, 2)), slurm).unwrap(), slurm);
        let given = resolve(Some((0, 3)), None).unwrap().expect("placed");
        assert_eq!((given.rank, given.ranks, given.launcher), (0, 3, None));
        let error = resolve(Some((0, 2)), slurm).expect_err("disagrees");
        assert!(
            error.to_string().contains(
                "--rank 0 --ranks 2 disagree with Slurm's SLURM_PROCID=1 and SLURM_NTASKS=2"
            ),
            "{error}"
        );
        // A launcher of one process (`srun -n 1`) makes no search over
        // processes, and says nothing against the options.
        let alone = Some(Placement {
            rank: 0,
            ranks: 1,
            local_rank: Some(0),
            launcher: Some(Launcher::Slurm),
        });
        assert_eq!(resolve(None, alone).unwrap(), None);
        assert_eq!(
            resolve(Some((1, 2)), alone)
                .unwrap()
                .map(|placement| placement.rank),
            Some(1)
        );
    }
}
