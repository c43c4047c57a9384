//! The rules of `#[model]`, checked on the borrowed model of `ast.rs`.
//!
//! Every violation is recorded in a [`Ctxt`] and checking goes on, so that
//! one compile reports them all; what passes is returned as the validated
//! model defined here, which `expand.rs` turns into code. A port that breaks
//! a rule is left out of the generated code (its method stays, as a plain
//! method), which keeps the errors to the ones the user has to fix.
//!
//! Layout: `context.rs` collects the errors; `fields.rs` and `methods.rs`
//! check the struct half and the impl half, as `expand/` generates them;
//! `rules/` holds the rules themselves, one module per kind.

mod context;
mod fields;
mod methods;
mod rules;

use proc_macro2::TokenStream;
use quote::format_ident;
use syn::{Ident, Type};

pub use context::Ctxt;
pub use fields::check_struct;
pub use methods::check_impl;

/// What kind of port a validated port is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PortKind {
    /// A method marked `#[input]`.
    Input,
    /// A method marked `#[replier]`.
    Replier,
    /// An `Output<T>` field.
    Output,
    /// A `Requestor<T, R>` or `UniRequestor<T, R>` field.
    Requestor,
}

impl PortKind {
    /// The variant of `causim::model::PortKind`.
    pub fn variant(self) -> Ident {
        format_ident!(
            "{}",
            match self {
                PortKind::Input => "Input",
                PortKind::Replier => "Replier",
                PortKind::Output => "Output",
                PortKind::Requestor => "Requestor",
            }
        )
    }
}

/// The settings of one `#[model]` attribute.
pub struct Settings {
    /// Path to the causim crate.
    pub krate: TokenStream,
    /// Name of the generated ports struct, if overridden.
    pub ports: Option<Ident>,
    /// Name of the generated message enum, if overridden.
    pub message: Option<Ident>,
    /// Whether the model can be saved (`save`).
    pub save: bool,
    /// The saved state's format version (`save(version = N)`), 1 unless
    /// given.
    pub version: u32,
}

/// A validated sending port (a field).
pub struct SendPort<'a> {
    /// The field's name.
    pub ident: &'a Ident,
    /// `Output` or `Requestor` (a `UniRequestor` is a requestor).
    pub kind: PortKind,
    /// The field's type, as written.
    pub ty: &'a Type,
    /// The payload or request type, as written.
    pub payload: &'a Type,
    /// The reply type, for requestors.
    pub reply: Option<&'a Type>,
    /// Whether the field is marked `#[required]`.
    pub required: bool,
}

/// A validated model struct.
pub struct ModelStruct<'a> {
    /// The arguments of `#[model]` on the struct.
    pub settings: Settings,
    /// The struct as written.
    pub item: &'a syn::ItemStruct,
    /// Its sending ports, in declaration order.
    pub ports: Vec<SendPort<'a>>,
    /// The fields a snapshot holds (state fields not marked
    /// `#[transient]`), in declaration order; empty unless `save`.
    pub saved: Vec<SavedField<'a>>,
}

/// A state field that a snapshot holds.
pub struct SavedField<'a> {
    /// The field's name.
    pub ident: &'a Ident,
    /// The field's type.
    pub ty: &'a Type,
}

/// A validated receiving port (a method).
pub struct RecvPort<'a> {
    /// The method's name.
    pub ident: &'a Ident,
    /// `Input` or `Replier`.
    pub kind: PortKind,
    /// The message variant, e.g. `SetPoint` for `set_point`.
    pub variant: Ident,
    /// The payload or request type, with `Self` replaced; `None` for `()`.
    pub payload: Option<Type>,
    /// The reply type, for repliers, with `Self` replaced.
    pub reply: Option<Type>,
    /// Whether the method is `async`.
    pub is_async: bool,
    /// Whether the method takes `&mut Context<Self>`.
    pub takes_context: bool,
}

/// A validated `#[init]` hook.
pub struct Hook<'a> {
    /// The method's name.
    pub ident: &'a Ident,
    /// Whether the method is `async`.
    pub is_async: bool,
    /// Whether the method takes `&mut Context<Self>`.
    pub takes_context: bool,
}

/// A validated model impl block.
pub struct ModelImpl<'a> {
    /// The arguments of `#[model]` on the impl block.
    pub settings: Settings,
    /// The impl block as written.
    pub item: &'a syn::ItemImpl,
    /// The model's type name, e.g. `Thermostat`.
    pub name: Ident,
    /// The generated message enum's name.
    pub message: Ident,
    /// The generated ports struct's name.
    pub ports_struct: Ident,
    /// Its receiving ports, in declaration order.
    pub ports: Vec<RecvPort<'a>>,
    /// Its `#[init]` hook, if any.
    pub init: Option<Hook<'a>>,
    /// False when the item cannot be a model's impl block at all (a trait
    /// impl): nothing is generated, to avoid a cascade of errors.
    pub generate: bool,
    /// False when the user has a method named `ports`.
    pub ports_fn: bool,
}
