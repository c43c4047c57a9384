//! A model instance's name, stored inline when short.
//!
//! Every mailbox added to a bench keeps its model's name for error and
//! deadlock reports. Most names are short (`"c12345"`, `"sensor_7"`): kept
//! inline in the mailbox's channel, they cost no allocation, which is 32
//! bytes of heap per model on a bench of millions of idle models. Longer
//! names are shared behind an `Arc`. A short name's bytes are read as a
//! string without checking their UTF-8 again (`unsafe`, argued where it
//! is): a save reads every model's name, and the check, a call and a scan
//! of up to 22 bytes, was about a tenth of a save of idle models (see
//! `docs/benchmarks.md`, "Save and restore").
//!
//! It sits on the crate's ground floor, importing nothing of the crate:
//! the mailbox stores it, the ports and the executors report it (see
//! [`poll_report`](crate::poll_report)), the simulation names models with it, and
//! none of those layers should reach into another for it.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// The longest name, in bytes, kept inline: with the one-byte length and
/// the enum's tag, a [`Name`] takes 24 bytes, the size of its `Arc` form
/// and tag.
const INLINE: usize = 22;

/// A name of at most [`INLINE`] bytes, in place.
#[derive(Clone, Copy)]
pub(crate) struct Inline {
    /// The UTF-8 bytes, then zeros.
    bytes: [u8; INLINE],
    /// Number of bytes used.
    len: u8,
}

/// A model instance's name: inline up to 22 bytes, shared above.
#[derive(Clone)]
pub(crate) enum Name {
    /// A short name, in place.
    Inline(Inline),
    /// A long name.
    Shared(Arc<str>),
}

impl Name {
    /// `name`, inline if it fits (whole: a name is never split).
    fn inline(name: &str) -> Option<Self> {
        let len = u8::try_from(name.len())
            .ok()
            .filter(|&l| usize::from(l) <= INLINE)?;
        let mut bytes = [0; INLINE];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Some(Name::Inline(Inline { bytes, len }))
    }

    /// The name as a string slice.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Name::Inline(inline) => {
                let bytes = &inline.bytes[..usize::from(inline.len)];
                // SAFETY: `Name::inline` is the only maker of an `Inline`
                // (its fields are private to this module, which never
                // writes them afterwards): it copies a whole `str` into
                // `bytes` and sets `len` to that str's length, so these
                // bytes are exactly that str's, valid UTF-8.
                unsafe { std::str::from_utf8_unchecked(bytes) }
            }
            Name::Shared(name) => name,
        }
    }
}

impl From<&str> for Name {
    fn from(name: &str) -> Self {
        Name::inline(name).unwrap_or_else(|| Name::Shared(Arc::from(name)))
    }
}

// Only the tests hand over names already shared; the runtime builds every
// name from the `String` given to `add_model`.
#[cfg(test)]
impl From<Arc<str>> for Name {
    /// Inline if short (the `Arc` is then dropped), else the same `Arc`.
    fn from(name: Arc<str>) -> Self {
        Name::inline(&name).unwrap_or(Name::Shared(name))
    }
}

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Name {
    /// Equal names are equal strings, however stored.
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Name {}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_inline(name: &Name) -> bool {
        matches!(name, Name::Inline(_))
    }

    #[test]
    fn a_name_is_as_small_as_its_shared_form() {
        assert_eq!(std::mem::size_of::<Name>(), 24);
    }

    #[test]
    fn short_names_are_inline() {
        for text in ["", "c12345", "sensor_7"] {
            let name = Name::from(text);
            assert!(is_inline(&name), "{text:?}");
            assert_eq!(&*name, text);
            assert_eq!(name.to_string(), text);
            assert_eq!(format!("{name:?}"), format!("{text:?}"));
        }
    }

    #[test]
    fn boundary_length_is_inline_one_more_is_shared() {
        let longest = "a".repeat(INLINE);
        let name = Name::from(longest.as_str());
        assert!(is_inline(&name));
        assert_eq!(&*name, longest);

        let longer = "a".repeat(INLINE + 1);
        let name = Name::from(longer.as_str());
        assert!(!is_inline(&name));
        assert_eq!(&*name, longer);
    }

    #[test]
    fn names_compare_as_strings() {
        let long = "a".repeat(INLINE + 1);
        assert_eq!(Name::from("c1"), Name::from(Arc::<str>::from("c1")));
        assert_ne!(Name::from("c1"), Name::from("c2"));
        assert_eq!(Name::from(long.as_str()), Name::from(long.as_str()));
        let set: std::collections::HashSet<Name> = ["c1", "c2", "c1", &long, &long]
            .into_iter()
            .map(Name::from)
            .collect();
        assert_eq!(set.len(), 3);
    }

    #[test]
    fn long_names_keep_their_arc() {
        let long: Arc<str> = Arc::from("a rather long model instance name");
        let name = Name::from(long.clone());
        match &name {
            Name::Shared(shared) => assert!(Arc::ptr_eq(shared, &long)),
            Name::Inline(_) => panic!("inline"),
        }
        assert_eq!(&*Name::from(Arc::<str>::from("short")), "short");
    }

    #[test]
    fn multibyte_names_at_the_boundary_are_never_split() {
        // 21 ASCII bytes and a 2-byte `é`: 23 bytes, one too many.
        let over = format!("{}é", "a".repeat(INLINE - 1));
        assert_eq!(over.len(), INLINE + 1);
        let name = Name::from(over.as_str());
        assert!(!is_inline(&name));
        assert_eq!(&*name, over);

        // 20 ASCII bytes and `é`: exactly 22 bytes, inline and whole.
        let fits = format!("{}é", "a".repeat(INLINE - 2));
        let name = Name::from(fits.as_str());
        assert!(is_inline(&name));
        assert_eq!(&*name, fits);

        // A 4-byte character straddling the boundary.
        let emoji = format!("{}🦀", "a".repeat(INLINE - 2));
        let name = Name::from(emoji.as_str());
        assert!(!is_inline(&name));
        assert_eq!(&*name, emoji);
    }
}
