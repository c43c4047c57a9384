//! Serialising with postcard onto the end of a borrowed buffer.
//!
//! postcard's `to_extend` takes its writer by value and hands it back, so
//! appending one value to a `Vec<u8>` moved the vector out and back in,
//! and an error lost it. A save appends millions of small values (each
//! field of each model's state, each pending event's payload) to one
//! buffer; this flavor borrows the buffer instead and writes each run of
//! bytes with one `extend_from_slice`. It is the flavor postcard's own
//! `to_stdvec` uses, on a vector the caller keeps.

use postcard::ser_flavors::Flavor;
use serde::Serialize;

/// A postcard flavor appending to a borrowed vector.
struct Append<'a>(&'a mut Vec<u8>);

impl Flavor for Append<'_> {
    type Output = ();

    #[inline]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.0.extend_from_slice(data);
        Ok(())
    }

    #[inline]
    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        self.0.push(data);
        Ok(())
    }

    #[inline]
    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

/// Appends `value`, serialised by postcard, to `out`; on an error, `out`
/// is left as it was.
#[inline]
pub(crate) fn append<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> postcard::Result<()> {
    let before = out.len();
    let appended = postcard::serialize_with_flavor(value, Append(out));
    if appended.is_err() {
        out.truncate(before);
    }
    appended
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_what_postcard_writes_and_keeps_the_buffer_on_an_error() {
        let mut out = vec![7u8];
        append(&(300u64, "ab", [1u8, 2]), &mut out).unwrap();
        let mut expected = vec![7u8];
        expected.extend(postcard::to_stdvec(&(300u64, "ab", [1u8, 2])).unwrap());
        assert_eq!(out, expected);
        // A byte, then a sequence of unknown length, which postcard
        // refuses: the byte written before the error does not stay.
        struct Refused;
        impl Serialize for Refused {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeTuple;
                let mut tuple = s.serialize_tuple(2)?;
                tuple.serialize_element(&5u8)?;
                tuple.serialize_element(&UnknownLength)?;
                tuple.end()
            }
        }
        struct UnknownLength;
        impl Serialize for UnknownLength {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_seq(None)?;
                unreachable!("postcard refuses a sequence of unknown length")
            }
        }
        assert!(append(&Refused, &mut out).is_err());
        assert_eq!(out, expected, "unchanged");
    }
}
