//! The struct half of `#[model]`: what the fields say about sending ports.
//!
//! Generates `impl ModelFields` (the outputs' and requestors' metadata and
//! the required-connection check) and, for a non-generic model, a check
//! that the impl half exists.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::option;
use crate::names::{port_name, type_name};
use crate::valid::ModelStruct;

pub fn expand(model: &ModelStruct<'_>) -> TokenStream {
    let krate = &model.settings.krate;
    let ident = &model.item.ident;
    let (impl_generics, ty_generics, where_clause) = model.item.generics.split_for_impl();

    let metadata = model.ports.iter().map(|port| {
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
    });
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
    let checks = if checks.is_empty() {
        quote!(let _ = missing;)
    } else {
        quote!(#(#checks)*)
    };
    // Forgetting `#[model]` on the impl block is reported here, at the
    // struct's name. A generic model is checked where it is used instead:
    // its impl block may add bounds that the struct does not have.
    let require_model = model.item.generics.params.is_empty().then(|| {
        quote_spanned! {ident.span()=>
            const _: fn() = causim::require_model::<#ident>;
        }
    });

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
