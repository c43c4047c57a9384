//! Code generation: parse → validate → expand, on `proc_macro2` types only,
//! so that tests can call these functions on `quote!` input and snapshot
//! the result.

mod fields;
mod methods;
mod save_hooks;
mod state;

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{Generics, ImplItem, Item, Type};

use crate::ast::{self, ModelArgs, Role};
use crate::valid::{self, Ctxt};

/// `#[model]`: dispatches to the struct half or the impl half.
pub fn model(attr: TokenStream, item: TokenStream) -> TokenStream {
    let parsed: Item = match syn::parse2(item.clone()) {
        Ok(parsed) => parsed,
        Err(error) => return with_errors(item, error),
    };
    let mut cx = Ctxt::new();
    let args = ModelArgs::parse(attr).unwrap_or_else(|error| {
        cx.push(error);
        ModelArgs { args: Vec::new() }
    });
    match &parsed {
        Item::Struct(item) => struct_half(cx, &args, item),
        Item::Impl(item) => impl_half(cx, &args, item),
        other => {
            cx.error_at(
                keyword_span(other),
                "`#[model]` applies to a struct and to its inherent impl block, nothing else",
            );
            finish(cx, item)
        }
    }
}

/// The struct, stripped of `#[required]`, and what its fields generate.
fn struct_half(mut cx: Ctxt, args: &ModelArgs, item: &syn::ItemStruct) -> TokenStream {
    let ast = ast::Struct::parse(item);
    let model = valid::check_struct(&mut cx, args, &ast);
    let generated = fields::expand(&model);
    let state = state::expand(&model);
    let item = strip_struct(item.clone());
    finish(cx, quote!(#item #generated #state))
}

/// The impl block, stripped of the port attributes, and what its methods
/// generate.
fn impl_half(mut cx: Ctxt, args: &ModelArgs, item: &syn::ItemImpl) -> TokenStream {
    let ast = ast::Impl::parse(item);
    let model = valid::check_impl(&mut cx, args, &ast);
    let generated = methods::expand(&model);
    let item = strip_impl(item.clone());
    finish(cx, quote!(#item #generated))
}

/// Where to report `#[model]` on an item that cannot be a model: its
/// keyword (`enum`, `fn`, …) when it has one.
fn keyword_span(item: &Item) -> Span {
    match item {
        Item::Enum(e) => e.enum_token.span(),
        Item::Fn(f) => f.sig.fn_token.span(),
        Item::Trait(t) => t.trait_token.span(),
        Item::Union(u) => u.union_token.span(),
        Item::Mod(m) => m.mod_token.span(),
        _ => item.span(),
    }
}

/// `#[input]`, `#[replier]` or `#[init]` outside a `#[model]` impl block:
/// an error at the attribute, and the item unchanged.
pub fn misplaced(role: &str, item: TokenStream) -> TokenStream {
    let error = syn::Error::new(
        Span::call_site(),
        format_args!(
            "`#[{role}]` only works on a method of an impl block marked `#[model]`; add `#[model]` to the impl block"
        ),
    );
    with_errors(item, error)
}

/// The generated tokens followed by the collected errors, if any.
fn finish(cx: Ctxt, tokens: TokenStream) -> TokenStream {
    match cx.finish() {
        Some(error) => with_errors(tokens, error),
        None => tokens,
    }
}

/// `tokens` followed by `error` as `compile_error!` invocations.
fn with_errors(tokens: TokenStream, error: syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    quote!(#tokens #errors)
}

/// The struct without the `#[required]` attributes (misspelled or not) that
/// `#[model]` consumed.
fn strip_struct(mut item: syn::ItemStruct) -> syn::ItemStruct {
    for field in &mut item.fields {
        field
            .attrs
            .retain(|a| !ast::is_required(a) && !ast::is_transient(a));
    }
    item
}

/// The impl block without the port attributes (misspelled or not) that
/// `#[model]` consumed.
fn strip_impl(mut item: syn::ItemImpl) -> syn::ItemImpl {
    for impl_item in &mut item.items {
        let attrs = match impl_item {
            ImplItem::Fn(f) => &mut f.attrs,
            ImplItem::Const(c) => &mut c.attrs,
            ImplItem::Type(t) => &mut t.attrs,
            ImplItem::Macro(m) => &mut m.attrs,
            _ => continue,
        };
        attrs.retain(|a| Role::of_or_typo(a).is_none());
    }
    item
}

/// `Some(x)` / `None` as tokens.
fn option(value: Option<impl ToTokens>) -> TokenStream {
    match value {
        Some(value) => quote!(Some(#value)),
        None => quote!(None),
    }
}

/// The names of the type and const parameters of `generics`.
fn type_params(generics: &Generics) -> Vec<String> {
    let types = generics.type_params().map(|param| &param.ident);
    let consts = generics.const_params().map(|param| &param.ident);
    types.chain(consts).map(ToString::to_string).collect()
}

/// Whether the tokens of `ty` include one of the identifiers `names`: a
/// type that names a type parameter is only known in full at run time.
fn names_any(ty: &Type, names: &[String]) -> bool {
    fn walk(tokens: TokenStream, names: &[String]) -> bool {
        tokens.into_iter().any(|token| match token {
            proc_macro2::TokenTree::Ident(ident) => names.contains(&ident.to_string()),
            proc_macro2::TokenTree::Group(group) => walk(group.stream(), names),
            _ => false,
        })
    }
    walk(quote!(#ty), names)
}

/// The metadata name of type `ty`: the string `"Vec<f64>"` as written, or,
/// if it names one of the type parameters `params`, the concrete type's
/// name at run time (`Vec<T>` is `Vec<f64>` in `Filter<f64>`).
fn type_name_expr(ty: &Type, params: &[String]) -> TokenStream {
    if names_any(ty, params) {
        quote!(causim::short_type_name::<#ty>())
    } else {
        let name = crate::names::type_name(ty);
        quote!(#name)
    }
}

/// A port list for metadata: a `'static` slice of `ports`, or, for a
/// generic model, one built once per concrete model at run time (the
/// names of its types are known only then); `which` tells the lists apart.
fn port_list(generic: bool, which: &str, ports: Vec<TokenStream>) -> TokenStream {
    if generic {
        quote!(causim::port_list::<Self>(#which, || causim::Vec::from([#(#ports),*])))
    } else {
        quote!(&[#(#ports),*])
    }
}
