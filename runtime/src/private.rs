//! Support for the code that `#[model]` generates. Not a public API.
//!
//! Generated code names everything through `::causim::__private`, so that it
//! compiles whatever the user has imported, and so that the names in its
//! error messages are stable.

pub use crate::context::Context;
pub use crate::mailbox::Address;
pub use crate::model::{Model, ModelMetadata, PortKind, PortMetadata};
pub use crate::model::{PayloadError, SaveHooks, StateError, StateReader, StateWriter};
pub use crate::ports::event::Event;
pub use crate::ports::{
    ConnectionList, InputPort, Output, ReplierPort, ReplySender, Requestor, SendingPort,
};
pub use crate::snapshot::codec::{CloneEvent, Codec, NoSerdeCodec, OnceEvent, SerdeCodec};
pub use core::any::Any;
pub use core::convert::Infallible;
pub use core::fmt;
pub use core::future::Future;
pub use core::marker::PhantomData;
pub use core::option::Option::{self, None, Some};
pub use core::result::Result::{self, Err, Ok};
pub use core::time::Duration;
pub use std::vec::Vec;

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// The half of a model that `#[model]` on the struct generates: what the
/// struct's fields say about its sending ports.
///
/// The `Model` impl that `#[model]` on the impl block generates reads it, so
/// forgetting `#[model]` on the struct fails here, with this message.
#[diagnostic::on_unimplemented(
    message = "the struct `{Self}` is not marked `#[model]`",
    label = "`#[model]` on this impl block needs `#[model]` on the struct too",
    note = "add `#[model]` to the struct definition of `{Self}`"
)]
pub trait ModelFields {
    /// Outputs and requestors, in declaration order.
    fn outputs() -> &'static [PortMetadata];

    /// Appends the required outputs and requestors that are not connected.
    fn unconnected_required_ports(&self, missing: &mut Vec<&'static PortMetadata>);

    /// Lists the connections of every output and requestor.
    fn list_connections(&self, list: &mut ConnectionList);
}

/// The state half of a saveable model, which `#[model(save)]` on the
/// struct generates: the saved fields, and how they are written and read.
///
/// `#[model(save)]` on the impl block reads it, so forgetting `save` on
/// the struct fails here, with this message.
#[diagnostic::on_unimplemented(
    message = "the struct `{Self}` is not marked `#[model(save)]`",
    label = "`#[model(save)]` on this impl block needs `#[model(save)]` on the struct too",
    note = "write `#[model(save)]` on the struct definition of `{Self}`: it says which fields are saved"
)]
pub trait ModelState {
    /// The version of the saved state's format.
    const VERSION: u32;
    /// The saved fields, in order.
    const FIELDS: &'static [&'static str];
    /// Writes the saved fields.
    fn save_state(&self, state: &mut StateWriter) -> Result<(), StateError>;
    /// Reads the saved fields back, assigning them once all were read.
    fn restore_state(&mut self, state: &mut StateReader<'_>) -> Result<(), StateError>;
}

/// Implemented by `#[model(save)]` on the impl block, for the struct half
/// to check that both halves say `save`.
#[diagnostic::on_unimplemented(
    message = "the impl block of `{Self}` is not marked `#[model(save)]`",
    label = "`#[model(save)]` on this struct needs `#[model(save)]` on its impl block too",
    note = "write `#[model(save)]` on the impl block of `{Self}`: it lets the snapshot code reach the model and its pending events"
)]
pub trait SaveableImpl {}

/// Compiles only if `M`'s impl block is marked `#[model(save)]`.
pub fn require_saveable_impl<M: SaveableImpl>() {}

/// Implemented when causim's feature `save` is on.
#[diagnostic::on_unimplemented(
    message = "`#[model(save)]` needs causim's feature `save`",
    label = "the feature `save` of causim is off",
    note = "enable it in Cargo.toml: `causim = {{ version = \"0.1\", features = [\"save\"] }}`"
)]
pub trait SaveFeature {}

#[cfg(feature = "save")]
impl SaveFeature for () {}

/// Compiles only with causim's feature `save`.
pub fn require_save_feature<T: SaveFeature>() {}

#[cfg(feature = "save")]
pub use serde::{de::DeserializeOwned, Serialize};

/// How `#[model]` lists a sending port's connections:
/// `(&self.field).list_port("field", list)` with this trait and
/// [`ListNoPort`] in scope.
///
/// Method resolution tries this trait first (its method's receiver is the
/// field itself), and [`ListNoPort`]'s only when the field's type is not a
/// [`SendingPort`] (its receiver is one reference more). A field whose type
/// is not well-formed (an `Output<T>` with a `T` that is not `Clone`) is
/// reported where it is declared; without the fallback, the listing would
/// report it a second time, in the macro's expansion.
pub trait ListPort {
    /// Lists this port's connections under `name`.
    fn list_port(&self, name: &'static str, list: &mut ConnectionList);
}

impl<P: SendingPort> ListPort for P {
    fn list_port(&self, name: &'static str, list: &mut ConnectionList) {
        list.port(name, self);
    }
}

/// The fallback of [`ListPort`]: lists nothing.
pub trait ListNoPort {
    /// Lists nothing.
    fn list_port(&self, name: &'static str, list: &mut ConnectionList) {
        let _ = (name, list);
    }
}

impl<P: ?Sized> ListNoPort for &P {}

/// Checks, at compile time, that `M` implements `Model`: generated by
/// `#[model]` on a struct, so that forgetting `#[model]` on the impl block
/// is reported at the struct.
pub const fn require_model<M: Model>() {}

/// Checks, at compile time, that a generic model is `Send + 'static`, as
/// every model must be: where a type parameter missing these bounds is
/// reported, once, at the user's impl block.
pub const fn model_must_be_send_and_static<M: Send + 'static>() {}

/// Checks, at compile time, that an input's payload or a replier's request
/// can travel in a message.
pub const fn payload_must_be_send_and_static<T: Send + 'static>() {}

/// Checks, at compile time, that a replier's reply can travel back.
pub const fn reply_must_be_send_and_static<T: Send + 'static>() {}

/// The name of type `T` as a person writes it, without module paths:
/// `MovingAverage<f64>` for `my_bench::filters::MovingAverage<f64>`.
///
/// Generic models report their metadata with it, since only the concrete
/// instance knows its parameters. The name is built once per type and kept
/// for the rest of the program (a few bytes per model or payload type).
pub fn short_type_name<T: ?Sized + 'static>() -> &'static str {
    /// Names built so far, by type.
    static NAMES: OnceLock<Mutex<HashMap<TypeId, &'static str>>> = OnceLock::new();
    let names = NAMES.get_or_init(Default::default);
    let mut names = crate::sync::lock(names);
    names
        .entry(TypeId::of::<T>())
        .or_insert_with(|| Box::leak(trim_paths(std::any::type_name::<T>()).into_boxed_str()))
}

/// The port list `make` builds for model `M` (`which` tells the inputs from
/// the outputs), built once per model type and kept, like
/// [`short_type_name`]: how a generic model's metadata names its payloads
/// with their parameters.
pub fn port_list<M: 'static>(
    which: &'static str,
    make: impl FnOnce() -> Vec<PortMetadata>,
) -> &'static [PortMetadata] {
    /// Lists built so far, by model type and list.
    type Lists = HashMap<(TypeId, &'static str), &'static [PortMetadata]>;
    static LISTS: OnceLock<Mutex<Lists>> = OnceLock::new();
    let lists = LISTS.get_or_init(Default::default);
    let mut lists = crate::sync::lock(lists);
    lists
        .entry((TypeId::of::<M>(), which))
        .or_insert_with(|| Box::leak(make().into_boxed_slice()))
}

/// `name` without the module path of each type in it:
/// `alloc::vec::Vec<my::Item>` → `Vec<Item>`.
fn trim_paths(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        out.push(c);
        if !out.ends_with("::") {
            continue;
        }
        // Drop the `::` and the path segment before it, if it is a name
        // (not the `>` of `<T as Trait>::Assoc`).
        let stem = out.len() - 2;
        let start = out[..stem]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        if start < stem {
            out.truncate(start);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    /// `#[model]` also works inside this crate, through
    /// `extern crate self as causim`.
    #[model]
    struct Echo {
        #[required]
        out: Output<u8>,
    }

    #[model]
    impl Echo {
        #[input]
        async fn echo(&mut self, x: u8) {
            self.out.send(x).await;
        }
    }

    #[test]
    fn short_type_names_have_no_module_paths() {
        use super::{short_type_name, trim_paths};
        assert_eq!(short_type_name::<Vec<String>>(), "Vec<String>");
        assert_eq!(short_type_name::<Echo>(), "Echo");
        assert_eq!(
            short_type_name::<Option<(u8, std::time::Duration)>>(),
            "Option<(u8, Duration)>"
        );
        assert_eq!(trim_paths("<a::T as b::Tr>::Assoc"), "<T as Tr>::Assoc");
        assert_eq!(trim_paths("[a::B; 3]"), "[B; 3]");
    }

    #[test]
    fn generated_model_metadata() {
        let meta = Echo::metadata();
        assert_eq!(meta.type_name, "Echo");
        assert_eq!(
            meta.port("echo").unwrap().to_string(),
            "echo: InputPort<u8>"
        );
        assert_eq!(meta.port("out").unwrap().to_string(), "out: Output<u8>");
        assert!(meta.port("out").unwrap().required);
        let mut missing = Vec::new();
        Echo { out: Output::new() }.unconnected_required_ports(&mut missing);
        assert_eq!(missing, [meta.port("out").unwrap()]);
        assert_eq!(Echo::ports().echo.name(), "echo");
    }
}
