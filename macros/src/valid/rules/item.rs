//! Rules on the item `#[model]` is applied to: an inherent impl block of a
//! named type, with no lifetime parameter, and port attributes on methods
//! only.

use quote::format_ident;
use syn::spanned::Spanned;
use syn::{Attribute, GenericParam, Generics, Ident, ItemImpl};

use crate::ast::{self, Role};
use crate::valid::Ctxt;

/// Rejects lifetime parameters: a model is `'static`.
pub fn check_generics(cx: &mut Ctxt, generics: &Generics) {
    for param in &generics.params {
        if let GenericParam::Lifetime(lt) = param {
            cx.error(
                lt,
                "a model cannot have lifetime parameters: models are `'static` and own their state",
            );
        }
    }
}

/// Whether `item` is an inherent impl block; a trait impl is reported, and
/// nothing will be generated for it.
pub fn check_inherent(cx: &mut Ctxt, item: &ItemImpl) -> bool {
    let Some((_, trait_path, _)) = &item.trait_ else {
        return true;
    };
    cx.error(
        trait_path,
        "`#[model]` applies to a model's inherent impl block, not to a trait impl",
    );
    false
}

/// The model's type name, e.g. `Thermostat`; a stand-in, after reporting
/// it, if the impl block is not for a named type.
pub fn model_name(cx: &mut Ctxt, model: &ast::Impl<'_>) -> Ident {
    if let Some(ident) = model.self_ident {
        return ident.clone();
    }
    let self_ty = &model.item.self_ty;
    cx.error(
        self_ty,
        "`#[model]` expects the impl block of a named struct",
    );
    format_ident!("Model", span = self_ty.span())
}

/// Reports port attributes on impl items that are not methods.
pub fn check_misplaced(cx: &mut Ctxt, misplaced: &[&Attribute]) {
    for attr in misplaced {
        let role = Role::of(attr).map_or("input", Role::attr);
        cx.error(attr, format_args!("`#[{role}]` applies to methods only"));
    }
}
