//! The impl half of `#[model(save)]`: how the snapshot code saves and
//! restores the model's pending events.
//!
//! `Model::save_hooks` gathers the state half's functions (from `impl
//! ModelState`, written by `#[model(save)]` on the struct) and, per input,
//! the codec of its payload and the constructor of its events. The
//! runtime reaches the model's state itself (a saveable model runs from a
//! cell the snapshot code shares); the message enum is the same as
//! without `save`. A model without `save` gets none of this.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::methods::payload;
use crate::names::port_name;
use crate::valid::{ModelImpl, PortKind};

/// What `save` adds to the generated items.
pub struct SaveParts {
    /// `fn save_hooks()` of the `Model` impl.
    pub hooks_fn: TokenStream,
    /// `impl SaveableImpl`, which the struct half checks for.
    pub marker_impl: TokenStream,
}

/// The parts `save` adds, for a model marked `save`.
pub fn save_parts(model: &ModelImpl<'_>) -> Option<SaveParts> {
    if !model.settings.save {
        return None;
    }
    Some(SaveParts {
        hooks_fn: hooks_fn(model),
        marker_impl: marker_impl(model),
    })
}

/// `fn save_hooks() -> Option<SaveHooks<Self>> { … }`.
fn hooks_fn(model: &ModelImpl<'_>) -> TokenStream {
    let message = &model.message;
    let self_ty = &model.item.self_ty;
    // Spanned at the model's type, so that a missing `save` on the struct
    // is reported at `impl Name`.
    let state = quote_spanned!(self_ty.span()=> <Self as causim::ModelState>);
    let inputs: Vec<_> = model
        .ports
        .iter()
        .filter(|port| port.kind == PortKind::Input)
        .collect();
    let encode_arms = inputs.iter().map(|port| {
        let name = port_name(port.ident);
        let payload = payload(port);
        quote!(#name => (&causim::Codec::<#payload>::new()).encode(payload, out))
    });
    let decode_arms = inputs.iter().map(|port| {
        let name = port_name(port.ident);
        let payload = payload(port);
        let variant = &port.variant;
        quote! {
            #name => {
                let codec = causim::Codec::<#payload>::new();
                let payload = (&codec).decode(bytes)?;
                let port = causim::InputPort::new(#name, #message::#variant);
                (&codec).make(port, payload, address, period)
            }
        }
    });
    quote! {
        fn save_hooks() -> causim::Option<causim::SaveHooks<Self>> {
            use causim::{CloneEvent as _, NoSerdeCodec as _, OnceEvent as _, SerdeCodec as _};
            causim::Some(causim::SaveHooks {
                version: #state::VERSION,
                fields: #state::FIELDS,
                save: #state::save_state,
                restore: #state::restore_state,
                encode_input: |port, payload, out| match port {
                    #(#encode_arms,)*
                    _ => causim::Err(causim::PayloadError::UnknownPort),
                },
                decode_input: |port, bytes, address, period| match port {
                    #(#decode_arms)*
                    _ => causim::Err(causim::PayloadError::UnknownPort),
                },
            })
        }
    }
}

/// `impl SaveableImpl for Battery {}`: tells the struct half that the impl
/// half says `save` too.
fn marker_impl(model: &ModelImpl<'_>) -> TokenStream {
    let self_ty = &model.item.self_ty;
    let (impl_generics, _, where_clause) = model.item.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics causim::SaveableImpl for #self_ty #where_clause {}
    }
}
