//! What a level's exchange between ranks cost: CUDA events around each
//! collective and each meeting on the GPU, the host's clock around each
//! meeting of the ranks' threads, and the bytes they brought.

use std::time::Duration;

use cust::event::{Event, EventFlags};
use cust::stream::Stream;

use crate::Result;
use crate::error::CudaContext;
use crate::gpu::Exchange;

/// A start and a stop event a collective, reused level after level.
#[derive(Default)]
pub struct ExchangeClock {
    events: Vec<(Event, Event)>,
    /// Pairs recorded this level.
    recorded: usize,
    bytes: u64,
    /// Rounds of the level past its first (claims that overran).
    extra_rounds: u32,
    /// The level's meetings on the host.
    on_host: Duration,
}

impl ExchangeClock {
    /// Runs `collective`, which queues work on `stream`, between a pair
    /// of events; counts `bytes` as received.
    pub fn time(
        &mut self,
        stream: &Stream,
        bytes: u64,
        collective: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let context = || "timing an exchange".to_string();
        if self.recorded == self.events.len() {
            let event = || Event::new(EventFlags::DEFAULT).context(context);
            self.events.push((event()?, event()?));
        }
        let (start, stop) = &self.events[self.recorded];
        start.record(stream).context(context)?;
        collective()?;
        stop.record(stream).context(context)?;
        self.recorded += 1;
        self.bytes += bytes;
        Ok(())
    }

    /// Counts `bytes` as received by the level, read where another rank
    /// wrote them rather than brought by a collective.
    pub fn received(&mut self, bytes: u64) {
        self.bytes += bytes;
    }

    /// Counts a meeting of the ranks' threads that took `elapsed`, from
    /// this rank's arrival (its stream done) to the last rank's.
    pub fn met_on_host(&mut self, elapsed: Duration) {
        self.on_host += elapsed;
    }

    /// Counts a round of the level past its first: its frontier expanded
    /// again because claims overran a region.
    pub fn another_round(&mut self) {
        self.extra_rounds += 1;
    }

    /// The level's exchange, once the stream has passed its last
    /// collective; starts the next level's.
    pub fn take(&mut self) -> Result<Exchange> {
        let context = || "reading an exchange's time".to_string();
        let mut elapsed = self.on_host;
        for (start, stop) in &self.events[..self.recorded] {
            stop.synchronize().context(context)?;
            elapsed += stop.elapsed(start).context(context)?;
        }
        let exchange = Exchange {
            elapsed,
            bytes: self.bytes,
            rounds: 1 + self.extra_rounds,
        };
        (self.recorded, self.bytes, self.extra_rounds) = (0, 0, 0);
        self.on_host = Duration::ZERO;
        Ok(exchange)
    }
}
