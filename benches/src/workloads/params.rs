//! Workload parameters: named integers, written `name=value,name=value`.
//!
//! One flat, textual form serves the command line of a child process, the
//! JSON report and the table, and every workload reads what it needs by
//! name.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Named integer parameters, in name order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Params(BTreeMap<String, u64>);

impl Params {
    /// Parameters from `(name, value)` pairs.
    pub fn of(pairs: &[(&str, u64)]) -> Self {
        Params(pairs.iter().map(|&(k, v)| (k.to_owned(), v)).collect())
    }

    /// The value of `name`; panics if missing (a bug in the caller).
    pub fn get(&self, name: &str) -> u64 {
        *self
            .0
            .get(name)
            .unwrap_or_else(|| panic!("parameter {name:?} missing from {self}"))
    }

    /// The value of `name`, or `default` if it is not given.
    pub fn get_or(&self, name: &str, default: u64) -> u64 {
        self.0.get(name).copied().unwrap_or(default)
    }

    /// The value of `name` as a count.
    pub fn count(&self, name: &str) -> usize {
        usize::try_from(self.get(name)).expect("count fits in usize")
    }

    /// The pairs, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.0.iter().map(|(k, &v)| (k.as_str(), v))
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (k, v)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}

impl FromStr for Params {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let mut map = BTreeMap::new();
        for pair in s.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| format!("expected name=value, got {pair:?}"))?;
            let v = v.parse().map_err(|e| format!("{pair:?}: {e}"))?;
            map.insert(k.to_owned(), v);
        }
        Ok(Params(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_text() {
        let p = Params::of(&[("models", 13), ("balls", 7)]);
        assert_eq!(p.to_string(), "balls=7,models=13");
        assert_eq!(p.to_string().parse::<Params>().unwrap(), p);
    }
}
