//! What a recorder keeps of a payload: one [`Value`] per sample.
//!
//! A recorder does not keep the payload itself: a bench's outputs carry
//! anything from an `f64` to a struct, and the writers (CSV, VCD, plots)
//! need a few plain kinds. [`Recordable`] is the small trait that says how
//! a payload becomes a value; it is implemented for the numbers and
//! `bool`, and a user implements it for an enum (as a [`Value::Label`]) or
//! a struct (picking the field worth watching), or records a projection
//! with [`Recording::record_map`](crate::Recording::record_map).

use std::fmt;

/// One recorded value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A real number (VCD `real`).
    Real(f64),
    /// A signed integer (VCD `integer`, 64 bits).
    Int(i64),
    /// A boolean (VCD 1-bit `wire`).
    Bool(bool),
    /// One of a fixed set of names, such as an enum's variant (VCD
    /// `string`; whitespace is written as `_`).
    Label(&'static str),
}

/// The kind of the values of one series, known before any is recorded
/// (the VCD header declares each variable's type up front).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// [`Value::Real`].
    Real,
    /// [`Value::Int`].
    Int,
    /// [`Value::Bool`].
    Bool,
    /// [`Value::Label`].
    Label,
}

impl Value {
    /// The value as a number, for plots: a label has none.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Real(v) => Some(v),
            Value::Int(v) => Some(v as f64),
            Value::Bool(v) => Some(if v { 1.0 } else { 0.0 }),
            Value::Label(_) => None,
        }
    }

    /// The value's kind.
    pub fn kind(&self) -> Kind {
        match self {
            Value::Real(_) => Kind::Real,
            Value::Int(_) => Kind::Int,
            Value::Bool(_) => Kind::Bool,
            Value::Label(_) => Kind::Label,
        }
    }
}

impl fmt::Display for Value {
    /// As written in a CSV cell: reals in Rust's shortest round-trip
    /// form, booleans as `0`/`1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Real(v) => write!(f, "{v}"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Bool(v) => f.write_str(if *v { "1" } else { "0" }),
            Value::Label(v) => f.write_str(v),
        }
    }
}

/// A payload a recorder can keep: how it becomes a [`Value`].
///
/// ```
/// use causim_record::{Kind, Recordable, Value};
///
/// #[derive(Clone, Copy)]
/// enum Mode { Off, Heating }
///
/// impl Recordable for Mode {
///     const KIND: Kind = Kind::Label;
///     fn value(&self) -> Value {
///         Value::Label(match self {
///             Mode::Off => "off",
///             Mode::Heating => "heating",
///         })
///     }
/// }
/// assert_eq!(Mode::Heating.value(), Value::Label("heating"));
/// ```
pub trait Recordable {
    /// The kind of every value this type gives.
    const KIND: Kind;
    /// The value to record.
    fn value(&self) -> Value;
}

/// Implements [`Recordable`] for numbers converted losslessly (or, for
/// `u64`/`usize`, as close as the kind allows).
macro_rules! recordable {
    ($kind:ident, $variant:ident, $as:ty: $($t:ty),*) => {$(
        impl Recordable for $t {
            const KIND: Kind = Kind::$kind;
            #[inline]
            fn value(&self) -> Value {
                Value::$variant(*self as $as)
            }
        }
    )*};
}

recordable!(Real, Real, f64: f64, f32);
recordable!(Int, Int, i64: i8, i16, i32, i64, u8, u16, u32, isize);
// Above `i64::MAX` these saturate (`as` from an unsigned type to a signed
// one wraps, so go through u64 -> i64 with a clamp).
impl Recordable for u64 {
    const KIND: Kind = Kind::Int;
    #[inline]
    fn value(&self) -> Value {
        Value::Int(i64::try_from(*self).unwrap_or(i64::MAX))
    }
}

impl Recordable for usize {
    const KIND: Kind = Kind::Int;
    #[inline]
    fn value(&self) -> Value {
        Value::Int(i64::try_from(*self).unwrap_or(i64::MAX))
    }
}

impl Recordable for bool {
    const KIND: Kind = Kind::Bool;
    #[inline]
    fn value(&self) -> Value {
        Value::Bool(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_their_kind_and_value() {
        assert_eq!(2.5f32.value(), Value::Real(2.5));
        assert_eq!((-3i8).value(), Value::Int(-3));
        assert_eq!(u64::MAX.value(), Value::Int(i64::MAX));
        assert_eq!(true.value(), Value::Bool(true));
        assert_eq!(Value::Bool(true).as_f64(), Some(1.0));
        assert_eq!(Value::Label("x").as_f64(), None);
        assert_eq!(Value::Real(0.1).to_string(), "0.1");
    }
}
