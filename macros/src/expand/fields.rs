//! The struct half of `#[model]`: what the fields say about sending ports.
//!
//! Generates `impl ModelFields` (the outputs' and requestors' metadata and
//! the required-connection check) and, for a non-generic model, a check
//! that the impl half exists.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::option;
use crate::names::{port_name, type_name};
use crate::valid::{ModelStruct, SendPort};

/// `impl ModelFields for Thermostat { … }` and the check that the impl
/// half exists, in an anonymous `const _: () = { … };` block.
pub fn expand(model: &ModelStruct<'_>) -> TokenStream {
    let krate = &model.settings.krate;
    let ident = &model.item.ident;
    let (impl_generics, ty_generics, where_clause) = model.item.generics.split_for_impl();
    let metadata = model.ports.iter().map(port_metadata);
    let checks = required_checks(model);
    let require_model = require_model(model);

    quote! {
        const _: () = {
            use #krate::__private as causim;

            #[automatically_derived]
            impl #impl_generics causim::ModelFields for #ident #ty_generics #where_clause {
                const OUTPUTS: &'static [causim::PortMetadata] = &[#(#metadata),*];

                fn unconnected_required_ports(
                    &self,
                    missing: &mut Vec<&'static causim::PortMetadata>,
                ) {
                    #checks
                }
            }

            #require_model
        };
    }
}

/// `causim::PortMetadata { name: "heater", kind: …, … }` for one output or
/// requestor.
fn port_metadata(port: &SendPort<'_>) -> TokenStream {
    let name = port_name(port.ident);
    let kind = port.kind.variant();
    let payload = type_name(port.payload);
    let reply = option(port.reply.map(type_name));
    let required = port.required;
    quote! {
        causim::PortMetadata {
            name: #name,
            kind: causim::PortKind::#kind,
            payload: #payload,
            reply: #reply,
            required: #required,
        }
    }
}

/// The body of `unconnected_required_ports`: one `is_connected()` test per
/// `#[required]` field, pushing that port's metadata (`OUTPUTS[i]`).
fn required_checks(model: &ModelStruct<'_>) -> TokenStream {
    let checks: Vec<TokenStream> = model
        .ports
        .iter()
        .enumerate()
        .filter(|(_, port)| port.required)
        .map(|(i, port)| {
            let field = port.ident;
            let i = proc_macro2::Literal::usize_unsuffixed(i);
            quote! {
                if !self.#field.is_connected() {
                    missing.push(&Self::OUTPUTS[#i]);
                }
            }
        })
        .collect();
    if checks.is_empty() {
        quote!(let _ = missing;)
    } else {
        quote!(#(#checks)*)
    }
}

/// `const _: fn() = causim::require_model::<Thermostat>;`, for a
/// non-generic model.
///
/// Forgetting `#[model]` on the impl block is reported here, at the
/// struct's name. A generic model is checked where it is used instead: its
/// impl block may add bounds that the struct does not have.
fn require_model(model: &ModelStruct<'_>) -> Option<TokenStream> {
    let ident = &model.item.ident;
    model.item.generics.params.is_empty().then(|| {
        quote_spanned! {ident.span()=>
            const _: fn() = causim::require_model::<#ident>;
        }
    })
}
