//! Rules on what a port carries: at most one payload (none for the init
//! hook), and a return value for a replier, each a type that can travel in
//! a message.

use syn::Type;

use super::message_type::{check_message_type, replace_self};
use super::roles::noun;
use crate::ast::{self, Role};
use crate::valid::Ctxt;

/// Checks the payload arguments; `Ok(None)` means no payload (`()`).
pub fn check_payload(
    cx: &mut Ctxt,
    method: &ast::Method<'_>,
    role: Role,
    self_ty: &Type,
) -> Result<Option<Type>, ()> {
    let mut payloads = method.payloads();
    let first = payloads.next();
    if role == Role::Init {
        return check_no_payload(cx, first);
    }
    let mut ok = true;
    for extra in payloads {
        cx.error(
            extra.arg,
            format_args!(
                "{} takes at most one payload argument; to pass several values, take a tuple or a struct",
                noun(role)
            ),
        );
        ok = false;
    }
    let Some(arg) = first else {
        return if ok { Ok(None) } else { Err(()) };
    };
    let what = if role == Role::Replier {
        "request"
    } else {
        "payload"
    };
    ok &= check_message_type(cx, &arg.arg.ty, what);
    if !ok {
        return Err(());
    }
    resolve_self(cx, &arg.arg.ty, self_ty).map(Some).ok_or(())
}

/// The init hook's payload, which must be absent.
fn check_no_payload(cx: &mut Ctxt, first: Option<&ast::Arg<'_>>) -> Result<Option<Type>, ()> {
    let Some(arg) = first else {
        return Ok(None);
    };
    cx.error(
        arg.arg,
        "the init hook takes no payload, only `&mut self` and optionally `&mut Context<Self>`",
    );
    Err(())
}

/// Checks a replier's return type.
pub fn check_reply(cx: &mut Ctxt, method: &ast::Method<'_>, self_ty: &Type) -> Option<Type> {
    let Some(ty) = method.output else {
        let sig = &method.func.sig;
        cx.error(
            &sig.ident,
            format_args!(
                "a replier must return its reply: add a return type, e.g. `fn {}(&mut self, request: T) -> R`",
                sig.ident
            ),
        );
        return None;
    };
    if !check_message_type(cx, ty, "reply") {
        return None;
    }
    resolve_self(cx, ty, self_ty)
}

/// `ty` with `Self` replaced by `self_ty`, or `None` once the error is
/// recorded.
fn resolve_self(cx: &mut Ctxt, ty: &Type, self_ty: &Type) -> Option<Type> {
    match replace_self(ty, self_ty) {
        Ok(ty) => Some(ty),
        Err(error) => {
            cx.push(error);
            None
        }
    }
}
