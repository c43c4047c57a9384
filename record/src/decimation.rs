//! Which of the values sent a series keeps.

use std::time::Duration;

use crate::store::Raw;

/// Which of the sent values a recorder keeps.
///
/// Each connection of a recorder (its sink, each of its taps) thins the
/// values it is given on its own: `EveryNth(2)` on a recorder tapping two
/// outputs keeps every other value of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Decimation {
    /// Every value (the default).
    #[default]
    All,
    /// The first value, then every `n`-th one after it (`0` and `1`: all).
    EveryNth(u64),
    /// At most one value per interval: a value is kept if it was sent at
    /// least this long after the last kept one.
    MinInterval(Duration),
    /// Only a value that differs from the last kept one (a waveform's
    /// natural encoding).
    OnChange,
}

/// What a [`Decimation`] remembers of the values offered so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct Thinning {
    /// Values offered so far, kept or not.
    offered: u64,
    /// The last value kept.
    last: Option<Raw>,
}

impl Thinning {
    /// Whether `decimation` keeps `raw`, the next value offered; counts it.
    #[inline]
    pub(crate) fn keeps(&mut self, decimation: Decimation, raw: Raw) -> bool {
        let index = self.offered;
        self.offered += 1;
        // The common case first, as one predictable branch.
        let keep = decimation == Decimation::All || self.decides(decimation, index, raw);
        if keep {
            self.last = Some(raw);
        }
        keep
    }

    /// [`keeps`](Self::keeps) for a decimation other than `All`.
    fn decides(&self, decimation: Decimation, index: u64, raw: Raw) -> bool {
        match decimation {
            Decimation::All => true,
            Decimation::EveryNth(n) => n <= 1 || index.is_multiple_of(n),
            Decimation::MinInterval(interval) => self.last.is_none_or(|last| {
                let since = Duration::from_nanos(raw.nanos.saturating_sub(last.nanos));
                raw.nanos >= last.nanos && since >= interval
            }),
            Decimation::OnChange => self.last.is_none_or(|last| last.bits != raw.bits),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(decimation: Decimation, values: &[(u64, u64)]) -> Vec<(u64, u64)> {
        let mut thinning = Thinning::default();
        values
            .iter()
            .copied()
            .filter(|&(nanos, bits)| thinning.keeps(decimation, Raw { nanos, bits }))
            .collect()
    }

    const VALUES: [(u64, u64); 6] = [(0, 1), (1, 1), (2, 2), (5, 2), (6, 3), (9, 3)];

    #[test]
    fn decimations_keep_what_they_say() {
        assert_eq!(kept(Decimation::All, &VALUES), VALUES.to_vec());
        assert_eq!(
            kept(Decimation::EveryNth(2), &VALUES),
            vec![(0, 1), (2, 2), (6, 3)]
        );
        assert_eq!(kept(Decimation::EveryNth(0), &VALUES), VALUES.to_vec());
        assert_eq!(
            kept(Decimation::MinInterval(Duration::from_nanos(4)), &VALUES),
            vec![(0, 1), (5, 2), (9, 3)]
        );
        assert_eq!(
            kept(Decimation::OnChange, &VALUES),
            vec![(0, 1), (2, 2), (6, 3)]
        );
    }
}
