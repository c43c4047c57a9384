//! Rules on a port method's signature: `&mut self`, no qualifier that the
//! dispatch cannot call, no generics, the context last, and a return value
//! for repliers only.

use quote::ToTokens;
use syn::Signature;

use super::roles::noun;
use crate::ast::{self, ArgKind, Receiver, Role};
use crate::valid::Ctxt;

/// Checks the receiver, qualifiers, generics, argument layout and return
/// type of a method of role `role`; true if all pass.
pub fn check_signature(cx: &mut Ctxt, method: &ast::Method<'_>, role: Role) -> bool {
    let sig = &method.func.sig;
    let before = cx.error_count();
    let what = noun(role);
    check_receiver(cx, method, what);
    check_qualifiers(cx, sig, what);
    check_not_generic(cx, sig, what);
    check_context_last(cx, method);
    check_no_return(cx, method, role);
    cx.error_count() == before
}

/// The method takes `&mut self`.
fn check_receiver(cx: &mut Ctxt, method: &ast::Method<'_>, what: &str) {
    match &method.receiver {
        Receiver::MutRef => {}
        Receiver::SharedRef(tokens) => cx.error(
            tokens,
            format_args!("{what} must take `&mut self`, not `&self`: messages are handled one at a time, with exclusive access to the model"),
        ),
        Receiver::Other(tokens) => cx.error(
            tokens,
            format_args!("{what} must take `&mut self`: the model stays in the bench and receives further messages"),
        ),
        Receiver::None => cx.error(
            &method.func.sig.ident,
            format_args!("{what} must be a method taking `&mut self` as its first argument"),
        ),
    }
}

/// The method is neither `const`, nor `unsafe`, nor `extern "ABI"`.
fn check_qualifiers(cx: &mut Ctxt, sig: &Signature, what: &str) {
    if let Some(token) = &sig.constness {
        cx.error(token, format_args!("{what} cannot be a `const fn`"));
    }
    if let Some(token) = &sig.unsafety {
        cx.error(token, format_args!("{what} cannot be `unsafe`"));
    }
    if let Some(abi) = &sig.abi {
        cx.error(abi, format_args!("{what} cannot have an explicit ABI"));
    }
}

/// The method has no generic parameter and no where clause.
fn check_not_generic(cx: &mut Ctxt, sig: &Signature, what: &str) {
    if sig.generics.params.is_empty() && sig.generics.where_clause.is_none() {
        return;
    }
    let tokens = match &sig.generics.where_clause {
        Some(clause) if sig.generics.params.is_empty() => clause.to_token_stream(),
        _ => sig.generics.to_token_stream(),
    };
    cx.error(
        tokens,
        format_args!(
            "{what} cannot be generic: its payload type must be known to build the model's message enum"
        ),
    );
}

/// The context, if taken, is taken once, as `&mut Context<Self>`, after
/// the payload.
fn check_context_last(cx: &mut Ctxt, method: &ast::Method<'_>) {
    let mut seen_context = false;
    for arg in &method.args {
        match arg.kind {
            ArgKind::BadContext => cx.error(
                &arg.arg.ty,
                "the context must be taken as `&mut Context<Self>`",
            ),
            ArgKind::Context if seen_context => {
                cx.error(arg.arg, "the context can be taken only once")
            }
            ArgKind::Context => seen_context = true,
            ArgKind::Payload if seen_context => {
                cx.error(arg.arg, "the context must come last, after the payload")
            }
            ArgKind::Payload => {}
        }
    }
}

/// An input or the init hook returns nothing (a replier's return type is
/// checked with its payload).
fn check_no_return(cx: &mut Ctxt, method: &ast::Method<'_>, role: Role) {
    let Some(ty) = method.output else {
        return;
    };
    match role {
        Role::Input => cx.error(
            ty,
            "an input cannot return a value: to answer requests, make this method a `#[replier]`",
        ),
        Role::Init => cx.error(ty, "the init hook cannot return a value"),
        Role::Replier => {}
    }
}
