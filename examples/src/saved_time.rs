//! A simulation time in a model's saved state.
//!
//! Models that advance continuous physics exactly between events keep the
//! time of their last update (`updated: SimTime`), and that time is state:
//! a restored room must know how long ago its temperature was brought up
//! to date. `causim::SimTime` has no serde implementation, so the examples
//! keep such a field as a [`SavedTime`], which writes the time as its
//! nanoseconds since the epoch; [`nanos`] does the same for a `SimTime`
//! inside a struct that derives serde (`#[serde(with = "nanos")]`).

use causim::SimTime;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A [`SimTime`] that serde writes as nanoseconds since the epoch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct SavedTime(pub SimTime);

impl Serialize for SavedTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        nanos::serialize(&self.0, serializer)
    }
}

impl<'de> Deserialize<'de> for SavedTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        nanos::deserialize(deserializer).map(SavedTime)
    }
}

/// `#[serde(with = "nanos")]` for a [`SimTime`] field of a serde struct.
pub mod nanos {
    use super::*;

    /// Writes `time` as its nanoseconds.
    pub fn serialize<S: Serializer>(time: &SimTime, serializer: S) -> Result<S::Ok, S::Error> {
        time.as_nanos().serialize(serializer)
    }

    /// Reads a time written by [`serialize`].
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SimTime, D::Error> {
        u64::deserialize(deserializer).map(SimTime::from_nanos)
    }
}
