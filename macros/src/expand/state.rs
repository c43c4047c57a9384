//! The state half of `#[model(save)]` on the struct: how its saved
//! fields are written to and read from a snapshot.
//!
//! Generates `impl ModelState` (the version, the saved fields' names, and
//! the functions that write and read them, one serde call per field,
//! spanned at the field's type so that a type that is not serialisable is
//! reported there), and for a non-generic model a check that the impl
//! block says `save` too.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{names_any, type_params};
use crate::names::port_name;
use crate::valid::ModelStruct;

/// `impl ModelState for Battery { … }` and the check of the impl half,
/// for a struct marked `save`; nothing otherwise.
pub fn expand(model: &ModelStruct<'_>) -> TokenStream {
    if !model.settings.save {
        return TokenStream::new();
    }
    let krate = &model.settings.krate;
    let ident = &model.item.ident;
    let generics = serde_bounds(model);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let version = proc_macro2::Literal::u32_unsuffixed(model.settings.version);
    let names = model.saved.iter().map(|field| port_name(field.ident));
    let writes = model.saved.iter().map(|field| {
        let (name, member) = (port_name(field.ident), field.ident);
        quote_spanned!(field.ty.span()=> writer.field(#name, &self.#member)?;)
    });
    // Read into a tuple, then assigned: a field that fails to read leaves
    // the model unchanged, and no local is named after a user's field.
    let reads = model.saved.iter().map(|field| {
        let name = port_name(field.ident);
        quote_spanned!(field.ty.span()=> reader.field(#name)?)
    });
    let assigns = model.saved.iter().enumerate().map(|(i, field)| {
        let (member, index) = (field.ident, syn::Index::from(i));
        quote!(self.#member = fields.#index;)
    });
    let require_impl = model.item.generics.params.is_empty().then(|| {
        quote_spanned! {ident.span()=>
            const _: fn() = causim::require_saveable_impl::<#ident>;
        }
    });

    quote! {
        const _: () = {
            use #krate::__private as causim;

            const _: fn() = causim::require_save_feature::<()>;

            #[automatically_derived]
            impl #impl_generics causim::ModelState for #ident #ty_generics #where_clause {
                const VERSION: u32 = #version;
                const FIELDS: &'static [&'static str] = &[#(#names),*];

                fn save_state(
                    &self,
                    writer: &mut causim::StateWriter,
                ) -> causim::Result<(), causim::StateError> {
                    #(#writes)*
                    causim::Ok(())
                }

                fn restore_state(
                    &mut self,
                    reader: &mut causim::StateReader<'_>,
                ) -> causim::Result<(), causim::StateError> {
                    let fields = (#(#reads,)*);
                    #(#assigns)*
                    causim::Ok(())
                }
            }

            #require_impl
        };
    }
}

/// The struct's generics, with each saved field's type that names a type
/// parameter bounded `Serialize + DeserializeOwned`.
fn serde_bounds(model: &ModelStruct<'_>) -> syn::Generics {
    let mut generics = model.item.generics.clone();
    let params = type_params(&generics);
    if params.is_empty() {
        return generics;
    }
    let clause = generics.make_where_clause();
    for field in &model.saved {
        if names_any(field.ty, &params) {
            let ty = field.ty;
            clause
                .predicates
                .push(syn::parse_quote!(#ty: causim::Serialize + causim::DeserializeOwned));
        }
    }
    generics
}
