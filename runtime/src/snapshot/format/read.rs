//! The models' and the pending events' records, read as postcard reads
//! them, without serde.
//!
//! Through serde, postcard decoded every pending event of a snapshot into
//! a list of records before the restore looked at one: memory written
//! once and read once, and most of the decoding of a large snapshot
//! (docs/benchmarks.md, "Measurements behind code decisions"). The events
//! now stay where they lie, and are read one by one, as the restore goes
//! through them (twice: once to check them and make their keys, once to
//! make their events): each record is a few varints and two strings,
//! shorter to read again than to keep. The first reading also finds where
//! they end, and so whether bytes are left after the body (see
//! [`EventRecords::iter`]). The models' records are read by hand too, into
//! a list (the restore looks them up by place; left where they lie and
//! read again by each of a restore's passes instead, they were no faster).
//! The encodings are those `records.rs` writes; the tests read back what
//! postcard writes, and check that what postcard refuses is refused.

use std::fmt;

use super::{Bytes, EventRecord, ModelRecord};

/// Why a record could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadError {
    /// The bytes end inside it.
    End,
    /// An integer is longer or larger than its type.
    Overflow,
    /// A string is not UTF-8.
    NotUtf8,
    /// An optional value's tag is neither 0 nor 1.
    OptionTag(u8),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::End => f.write_str("the snapshot ends inside it"),
            ReadError::Overflow => f.write_str("an integer too large for its field"),
            ReadError::NotUtf8 => f.write_str("a name that is not UTF-8"),
            ReadError::OptionTag(tag) => write!(f, "an optional value tagged {tag}"),
        }
    }
}

/// What is left to read of a snapshot's body.
pub(crate) struct Reader<'a> {
    /// The bytes not read yet.
    rest: &'a [u8],
    /// The last name read (the events of a snapshot name the same few
    /// inputs over and over: a name equal to it is not checked again).
    last_name: &'a str,
}

impl<'a> Reader<'a> {
    /// Reads `rest`.
    pub(crate) fn new(rest: &'a [u8]) -> Self {
        Reader {
            rest,
            last_name: "",
        }
    }

    /// How many bytes are left.
    pub(crate) fn left(&self) -> usize {
        self.rest.len()
    }

    /// The next byte.
    #[inline]
    fn byte(&mut self) -> Result<u8, ReadError> {
        let (&byte, rest) = self.rest.split_first().ok_or(ReadError::End)?;
        self.rest = rest;
        Ok(byte)
    }

    /// The next varint of an integer of `bits` bits: seven bits per
    /// byte, least significant first, in as many bytes as the integer
    /// needs at most (ten for 64 bits, five for 32), the last of which
    /// holds no bit past the integer's.
    #[inline]
    fn varint_of(&mut self, bits: u32) -> Result<u64, ReadError> {
        // Most fields are below 128: one byte, no loop.
        match self.rest.first() {
            Some(&byte) if byte < 0x80 => {
                self.rest = &self.rest[1..];
                return Ok(u64::from(byte));
            }
            _ => {}
        }
        let mut value = 0;
        for shift in (0..bits).step_by(7) {
            let byte = self.byte()?;
            if bits - shift < 7 && u32::from(byte) >> (bits - shift) != 0 {
                return Err(ReadError::Overflow);
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ReadError::Overflow)
    }

    /// The next `u64` varint.
    #[inline]
    fn varint(&mut self) -> Result<u64, ReadError> {
        self.varint_of(64)
    }

    /// The next `u32` varint.
    #[inline]
    fn varint_u32(&mut self) -> Result<u32, ReadError> {
        // Five bytes at most, the last below 16: it fits.
        Ok(self.varint_of(32)? as u32)
    }

    /// The next length.
    #[inline]
    pub(crate) fn length(&mut self) -> Result<usize, ReadError> {
        usize::try_from(self.varint()?).map_err(|_| ReadError::Overflow)
    }

    /// The next byte string: its length, then itself.
    #[inline]
    fn byte_string(&mut self) -> Result<&'a [u8], ReadError> {
        let len = self.length()?;
        if len > self.rest.len() {
            return Err(ReadError::End);
        }
        let (bytes, rest) = self.rest.split_at(len);
        self.rest = rest;
        Ok(bytes)
    }

    /// The next string.
    #[inline]
    fn string(&mut self) -> Result<&'a str, ReadError> {
        let bytes = self.byte_string()?;
        // The same bytes as the last name: the same name (a check of UTF-8
        // cost more than the rest of an event's record).
        if bytes == self.last_name.as_bytes() {
            return Ok(self.last_name);
        }
        let name = std::str::from_utf8(bytes).map_err(|_| ReadError::NotUtf8)?;
        self.last_name = name;
        Ok(name)
    }

    /// The next `Option<u64>`.
    #[inline]
    fn option(&mut self) -> Result<Option<u64>, ReadError> {
        match self.byte()? {
            0 => Ok(None),
            1 => Ok(Some(self.varint()?)),
            tag => Err(ReadError::OptionTag(tag)),
        }
    }

    /// The next model record.
    pub(crate) fn model(&mut self) -> Result<ModelRecord<'a>, ReadError> {
        Ok(ModelRecord {
            path: self.byte_string()?,
            type_index: self.varint_u32()?,
            seq: self.varint()?,
            connections: self.varint_u32()?,
            state: Bytes(self.byte_string()?),
        })
    }

    /// The next event record.
    // Always inlined, as the iterator's `next` that calls it: each of a
    // restore's two readings of the events is a loop around them (a call,
    // as the compiler chose once the loops moved to a module of their own,
    // made the first reading of 10⁶ events half as long again).
    #[inline(always)]
    pub(crate) fn event(&mut self) -> Result<EventRecord<'a>, ReadError> {
        Ok(EventRecord {
            time: self.varint()?,
            origin: self.varint_u32()?,
            seq: self.varint()?,
            model: self.varint_u32()?,
            port: self.string()?,
            period: self.option()?,
            key: self.varint_u32()?,
            payload: Bytes(self.byte_string()?),
        })
    }
}

/// A snapshot's models, read into a list: their number, then their
/// records. A number of models that the bytes left cannot hold is refused
/// before anything is sized by it.
pub(crate) fn read_models<'a>(reader: &mut Reader<'a>) -> Result<Vec<ModelRecord<'a>>, String> {
    let count = reader
        .length()
        .map_err(|error| format!("the number of models: {error}"))?;
    if count > reader.left() / MODEL_FIELDS {
        return Err(format!("{count} models in {} bytes", reader.left()));
    }
    let mut models = Vec::with_capacity(count);
    for index in 0..count {
        let model = reader
            .model()
            .map_err(|error| format!("model {index}: {error}"))?;
        models.push(model);
    }
    Ok(models)
}

/// The fields of a model record, each a byte at least.
const MODEL_FIELDS: usize = 5;

/// A snapshot's pending events, left where they lie: the rest of its
/// body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EventRecords<'a> {
    /// Their records, one after the other, up to the body's end.
    bytes: &'a [u8],
    /// How many there are.
    len: usize,
}

impl<'a> EventRecords<'a> {
    /// The sequence of event records that `reader` is at, the last part of
    /// the body: its number of records, then the records, read as they
    /// are iterated.
    pub(crate) fn read(reader: &mut Reader<'a>) -> Result<Self, String> {
        let len = reader
            .length()
            .map_err(|error| format!("the number of pending events: {error}"))?;
        let bytes = std::mem::take(&mut reader.rest);
        // A record takes a byte per field at least: a number the bytes
        // cannot hold is refused before anything is sized by it.
        if len > bytes.len() / EVENT_FIELDS {
            return Err(format!("{len} pending events in {} bytes", bytes.len()));
        }
        Ok(EventRecords { bytes, len })
    }

    /// How many events there are.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The events, read one by one, in order, then, if bytes are left
    /// after the last one, an error saying so: whoever reads them all has
    /// read the body to its end. Nothing follows an error.
    pub(crate) fn iter(&self) -> Events<'a> {
        self.iter_from(EventsMark { next: 0, offset: 0 })
    }

    /// The events from `mark`, which an iterator of these records made
    /// (read to the end, the bytes were checked up to it).
    pub(crate) fn iter_from(&self, mark: EventsMark) -> Events<'a> {
        Events {
            reader: Reader::new(self.bytes.get(mark.offset..).unwrap_or_default()),
            size: self.bytes.len(),
            next: mark.next,
            len: self.len,
            done: false,
        }
    }
}

/// A place among a snapshot's events, to read them from there again: the
/// index of the next event, and where its record starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EventsMark {
    /// The index of the next event.
    pub(crate) next: usize,
    /// Where its record starts in the events' bytes.
    offset: usize,
}

/// The fields of an event record, each a byte at least.
const EVENT_FIELDS: usize = 8;

/// The events of [`EventRecords::iter`] and [`EventRecords::iter_from`].
pub(crate) struct Events<'a> {
    /// What is left to read.
    reader: Reader<'a>,
    /// The size of all the events' records.
    size: usize,
    /// The index of the next event.
    next: usize,
    /// How many events there are.
    len: usize,
    /// Whether the end was checked, or an error returned.
    done: bool,
}

impl Events<'_> {
    /// Where the next event is.
    pub(crate) fn mark(&self) -> EventsMark {
        EventsMark {
            next: self.next,
            offset: self.size - self.reader.left(),
        }
    }
}

impl<'a> Iterator for Events<'a> {
    type Item = Result<EventRecord<'a>, String>;

    // Always inlined: see `Reader::event`.
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.next < self.len {
            let index = self.next;
            self.next += 1;
            let event = self.reader.event();
            if event.is_err() {
                (self.next, self.done) = (self.len, true);
            }
            return Some(event.map_err(|error| event_error(index, error)));
        }
        if std::mem::replace(&mut self.done, true) {
            return None;
        }
        let left = self.reader.left();
        (left > 0).then(|| Err(format!("{left} bytes left after the body")))
    }
}

/// The error for pending event `index`.
#[cold]
fn event_error(index: usize, error: ReadError) -> String {
    format!("pending event {index}: {error}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(time: u64, port: &'static str, period: Option<u64>) -> EventRecord<'static> {
        EventRecord {
            time,
            origin: 3,
            seq: time.rotate_left(17),
            model: u32::MAX,
            port,
            period,
            key: 7,
            payload: Bytes(b"\x01\x02\x03"),
        }
    }

    fn events() -> Vec<EventRecord<'static>> {
        vec![
            event(0, "", None),
            event(u64::MAX, "set", Some(u64::MAX)),
            event(3, "set", None),
            event(1 << 35, "a longer input name", Some(1)),
            event(127, "set", Some(128)),
        ]
    }

    #[test]
    fn events_postcard_wrote_are_read_back_and_again() {
        let events = events();
        let mut bytes = postcard::to_allocvec(&events).unwrap();
        let read = EventRecords::read(&mut Reader::new(&bytes)).unwrap();
        assert_eq!(read.len(), 5);
        for _ in 0..2 {
            let again: Vec<EventRecord<'_>> = read.iter().map(Result::unwrap).collect();
            assert_eq!(format!("{again:?}"), format!("{events:?}"));
        }
        // A byte after the last event: an error after the events.
        bytes.push(0xaa);
        let read = EventRecords::read(&mut Reader::new(&bytes)).unwrap();
        let all: Vec<_> = read.iter().collect();
        assert_eq!(all.len(), 6);
        assert_eq!(all[5].as_ref().unwrap_err(), "1 bytes left after the body");
    }

    #[test]
    fn models_postcard_wrote_are_read_back_and_every_cut_is_an_error() {
        let model = ModelRecord {
            path: b"bus/battery",
            type_index: 2,
            seq: u64::MAX - 1,
            connections: 0xC0FF_EE00,
            state: Bytes(&[9; 200]),
        };
        let bytes = postcard::to_allocvec(&model).unwrap();
        let mut reader = Reader::new(&bytes);
        let read = reader.model().unwrap();
        assert_eq!(format!("{read:?}"), format!("{model:?}"));
        assert_eq!(reader.left(), 0);
        for end in 0..bytes.len() {
            assert!(Reader::new(&bytes[..end]).model().is_err(), "cut at {end}");
        }
    }

    #[test]
    fn every_cut_and_every_bad_field_is_an_error() {
        let bytes = postcard::to_allocvec(&events()).unwrap();
        for end in 0..bytes.len() {
            let failed = EventRecords::read(&mut Reader::new(&bytes[..end]))
                .and_then(|events| events.iter().collect::<Result<Vec<_>, _>>());
            assert!(failed.is_err(), "cut at {end}");
        }
        let bad = |bytes: &[u8]| Reader::new(bytes).event().unwrap_err();
        // An eleven-byte varint; a tenth byte past 64 bits.
        assert_eq!(bad(&[0xff; 11]), ReadError::Overflow);
        let past_64_bits = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(bad(&past_64_bits), ReadError::Overflow);
        // An origin past 32 bits.
        assert_eq!(bad(&[0, 0x80, 0x80, 0x80, 0x80, 0x10]), ReadError::Overflow);
        // A port that is not UTF-8, alone or after a name of as many bytes.
        assert_eq!(bad(&[0, 0, 0, 0, 1, 0xff]), ReadError::NotUtf8);
        let mut reader = Reader::new(&[0, 0, 0, 0, 1, b'a', 0, 0, 0, 0, 0, 0, 0, 1, 0xff]);
        assert_eq!(reader.event().map(|e| e.port), Ok("a"));
        assert_eq!(reader.event().unwrap_err(), ReadError::NotUtf8);
        // A period tagged 2.
        assert_eq!(bad(&[0, 0, 0, 0, 1, b'a', 2]), ReadError::OptionTag(2));
        // A payload longer than what is left.
        assert_eq!(bad(&[0, 0, 0, 0, 0, 0, 0, 5, 1]), ReadError::End);
        // An error ends the events: the first of two has an origin past
        // 32 bits.
        let mut two = vec![2, 0, 0x80, 0x80, 0x80, 0x80, 0x10];
        two.resize(17, 0);
        let events = EventRecords::read(&mut Reader::new(&two)).unwrap();
        let read: Vec<_> = events.iter().collect();
        assert_eq!(read.len(), 1);
        let error = "pending event 0: an integer too large for its field";
        assert_eq!(read[0].as_ref().unwrap_err(), error);
        // More events than the bytes can hold.
        let refused = EventRecords::read(&mut Reader::new(&[0xff, 0xff, 0x03, 0])).unwrap_err();
        assert_eq!(refused, "65535 pending events in 1 bytes");
    }
}
