//! How a connection turns what is sent into what the port takes.
//!
//! A plain connection passes the value on; `map_connect` converts it;
//! `filter_map_connect` converts it or drops it. Each is a type of its own
//! (a zero-sized [`Direct`], or the user's closure wrapped in [`Mapped`] or
//! [`FilterMapped`]) rather than a bare closure, so that the connection's
//! type says which it is: the topology export reads that from a constant
//! of the type ([`Adapt::MAPPING`]), and nothing is stored for it. The send
//! path compiles to what a bare closure gives: the wrappers are inlined
//! away.

use super::link::Mapping;

/// Turns a sent value into the payload of an input, or filters it out.
pub(crate) trait Adapt<U, T>: Send + Sync + 'static {
    /// What the topology export calls this adaptation.
    const MAPPING: Mapping;

    /// The payload to deliver for `value`, if any.
    fn adapt(&self, value: U) -> Option<T>;
}

/// Turns a request or a reply into another type (requestor connections
/// convert both ways and filter nothing).
pub(crate) trait Convert<U, T>: Send + Sync + 'static {
    /// What the topology export calls this conversion.
    const MAPPING: Mapping;

    /// The converted value.
    fn convert(&self, value: U) -> T;
}

/// No adaptation: the value is passed on as sent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Direct;

/// A conversion given to `map_connect`.
pub(crate) struct Mapped<F>(pub(crate) F);

/// A conversion that may drop the value, given to `filter_map_connect`.
pub(crate) struct FilterMapped<F>(pub(crate) F);

impl<T> Adapt<T, T> for Direct {
    const MAPPING: Mapping = Mapping::Direct;

    #[inline(always)]
    fn adapt(&self, value: T) -> Option<T> {
        Some(value)
    }
}

impl<U, T, F> Adapt<U, T> for Mapped<F>
where
    F: Fn(U) -> T + Send + Sync + 'static,
{
    const MAPPING: Mapping = Mapping::Map;

    #[inline(always)]
    fn adapt(&self, value: U) -> Option<T> {
        Some((self.0)(value))
    }
}

impl<U, T, F> Adapt<U, T> for FilterMapped<F>
where
    F: Fn(U) -> Option<T> + Send + Sync + 'static,
{
    const MAPPING: Mapping = Mapping::FilterMap;

    #[inline(always)]
    fn adapt(&self, value: U) -> Option<T> {
        (self.0)(value)
    }
}

impl<T> Convert<T, T> for Direct {
    const MAPPING: Mapping = Mapping::Direct;

    #[inline(always)]
    fn convert(&self, value: T) -> T {
        value
    }
}

impl<U, T, F> Convert<U, T> for Mapped<F>
where
    F: Fn(U) -> T + Send + Sync + 'static,
{
    const MAPPING: Mapping = Mapping::Map;

    #[inline(always)]
    fn convert(&self, value: U) -> T {
        (self.0)(value)
    }
}
