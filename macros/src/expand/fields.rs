//! The struct half of `#[model]`: what the fields say about sending ports.
//!
//! Generates `impl ModelFields` (the outputs' and requestors' metadata, the
//! required-connection check and the listing of their connections for the
//! topology export) and, for a non-generic model, a check
//! that the impl half exists.

use proc_macro2::{Delimiter, Group, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use super::{option, port_list, type_name_expr, type_params};
use crate::names::port_name;
use crate::valid::{ModelStruct, SendPort};

/// `impl ModelFields for Thermostat { … }` and the check that the impl
/// half exists, in an anonymous `const _: () = { … };` block.
pub fn expand(model: &ModelStruct<'_>) -> TokenStream {
    let krate = &model.settings.krate;
    let ident = &model.item.ident;
    let generics = static_bound(model);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let params = type_params(&model.item.generics);
    let metadata = model
        .ports
        .iter()
        .map(|port| port_metadata(port, &params))
        .collect();
    let outputs = port_list(!params.is_empty(), "outputs", metadata);
    let checks = required_checks(model);
    let listing = connection_listing(model);
    let require_model = require_model(model);

    quote! {
        const _: () = {
            use #krate::__private as causim;

            #[automatically_derived]
            impl #impl_generics causim::ModelFields for #ident #ty_generics #where_clause {
                fn outputs() -> &'static [causim::PortMetadata] {
                    #outputs
                }

                fn unconnected_required_ports(
                    &self,
                    missing: &mut Vec<&'static causim::PortMetadata>,
                ) {
                    #checks
                }

                fn list_connections(&self, list: &mut causim::ConnectionList) {
                    #listing
                }
            }

            #require_model
        };
    }
}

/// The struct's generics; for a generic model, bounded by `Self: 'static`
/// and each port type naming a parameter `'static`, which the run-time
/// names of these types need (and every model and payload is anyway).
fn static_bound(model: &ModelStruct<'_>) -> syn::Generics {
    let mut generics = model.item.generics.clone();
    let params = type_params(&generics);
    if params.is_empty() {
        return generics;
    }
    let types = model
        .ports
        .iter()
        .flat_map(|port| std::iter::once(port.payload).chain(port.reply))
        .filter(|ty| super::names_any(ty, &params));
    let clause = generics.make_where_clause();
    clause.predicates.push(syn::parse_quote!(Self: 'static));
    for ty in types {
        clause.predicates.push(syn::parse_quote!(#ty: 'static));
    }
    generics
}

/// `causim::PortMetadata { name: "heater", kind: …, … }` for one output or
/// requestor of a model with type parameters `params`.
fn port_metadata(port: &SendPort<'_>, params: &[String]) -> TokenStream {
    let name = port_name(port.ident);
    let kind = port.kind.variant();
    let payload = type_name_expr(port.payload, params);
    let reply = option(port.reply.map(|ty| type_name_expr(ty, params)));
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
/// `#[required]` field, pushing that port's metadata (`outputs()[i]`).
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
                    missing.push(&<Self as causim::ModelFields>::outputs()[#i]);
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

/// The body of `list_connections`: one `(&self.name).list_port("name",
/// list)` per output or requestor, in declaration order.
///
/// Through `ListPort`, which falls back to `ListNoPort` for a field whose
/// type is not a sending port (see the runtime's `__private::ListPort`),
/// and spanned at the field's type: a port type that is not well-formed
/// (an `Output<T>` whose `T` is not `Clone`) makes the field access fail
/// with the error the field's declaration gets, at the same place, which
/// the compiler then reports once.
fn connection_listing(model: &ModelStruct<'_>) -> TokenStream {
    if model.ports.is_empty() {
        return quote!(let _ = list;);
    }
    let calls = model.ports.iter().map(|port| {
        let field = port.ident;
        let name = port_name(field);
        let (first, last) = first_and_last_spans(port.ty);
        let mut args = Group::new(Delimiter::Parenthesis, quote_spanned!(last=> #name, list));
        args.set_span(last);
        quote_spanned!(first=> (&self.#field).list_port #args;)
    });
    quote! {
        use causim::{ListNoPort as _, ListPort as _};
        #(#calls)*
    }
}

/// The spans of the first and the last token of `ty`: a call spanned from
/// one to the other is reported where `ty` is written, as a whole.
fn first_and_last_spans(ty: &syn::Type) -> (Span, Span) {
    let tokens: Vec<_> = ty.to_token_stream().into_iter().collect();
    let first = tokens.first().map_or_else(|| ty.span(), |t| t.span());
    let last = tokens.last().map_or(first, |t| t.span());
    (first, last)
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
