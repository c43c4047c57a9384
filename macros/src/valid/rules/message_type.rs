//! Rules on a type that travels in a message (a payload, request or
//! reply): what can be checked syntactically of `Send + 'static`, and `Self`
//! made explicit, since the generated enum lives outside the impl block.

use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::Type;

use crate::valid::Ctxt;

/// Checks what can be checked syntactically of a type that travels in a
/// message: no `impl Trait`, no reference, no borrowed lifetime, no `_`.
/// `Send + 'static` is also checked by the generated code.
pub fn check_message_type(cx: &mut Ctxt, ty: &Type, what: &str) -> bool {
    if !check_not_reference(cx, ty, what) {
        return false;
    }
    let mut checker = MessageTypeChecker { cx, what, ok: true };
    checker.visit_type(ty);
    checker.ok
}

/// The type itself is not a reference, unless `&'static`.
fn check_not_reference(cx: &mut Ctxt, ty: &Type, what: &str) -> bool {
    let Type::Reference(reference) = ty else {
        return true;
    };
    let is_static = reference
        .lifetime
        .as_ref()
        .is_some_and(|lt| lt.ident == "static");
    if !is_static {
        cx.error(
            ty,
            format_args!(
                "a {what} cannot be a reference: it is moved into a message, so it must own its data (e.g. `String` rather than `&str`)"
            ),
        );
    }
    is_static
}

/// Walks a message type, reporting what cannot travel in a message.
struct MessageTypeChecker<'c> {
    /// Where errors go.
    cx: &'c mut Ctxt,
    /// What the type is, for messages: `payload`, `request` or `reply`.
    what: &'c str,
    /// False once an error is found.
    ok: bool,
}

impl<'ast> Visit<'ast> for MessageTypeChecker<'_> {
    fn visit_type_impl_trait(&mut self, node: &'ast syn::TypeImplTrait) {
        let what = self.what;
        self.cx.error(
            node,
            format_args!("a {what} cannot be `impl Trait`: name a concrete type, or a type parameter of the model"),
        );
        self.ok = false;
    }

    fn visit_type_infer(&mut self, node: &'ast syn::TypeInfer) {
        let what = self.what;
        self.cx.error(
            node,
            format_args!("a {what} type must be written out in full"),
        );
        self.ok = false;
    }

    fn visit_type_reference(&mut self, node: &'ast syn::TypeReference) {
        if node.lifetime.is_none() {
            let what = self.what;
            self.cx.error(
                node,
                format_args!(
                    "a {what} cannot borrow: it is moved into a message, so it must be `'static`"
                ),
            );
            self.ok = false;
        }
        syn::visit::visit_type_reference(self, node);
    }

    fn visit_type_bare_fn(&mut self, _: &'ast syn::TypeBareFn) {
        // Function pointers may use higher-ranked lifetimes: leave them
        // to the compiler.
    }

    fn visit_lifetime(&mut self, node: &'ast syn::Lifetime) {
        if node.ident != "static" {
            let what = self.what;
            self.cx.error(
                node,
                format_args!("a {what} cannot borrow: it is moved into a message, so it must be `'static`, not `{node}`"),
            );
            self.ok = false;
        }
    }
}

/// `ty` with `Self` replaced by the model's type, since the generated enum
/// and ports struct live outside the impl block.
pub fn replace_self(ty: &Type, self_ty: &Type) -> syn::Result<Type> {
    let mut replacer = SelfReplacer {
        self_ty,
        error: None,
    };
    let mut ty = ty.clone();
    replacer.visit_type_mut(&mut ty);
    match replacer.error {
        Some(error) => Err(error),
        None => Ok(ty),
    }
}

/// Replaces `Self` in a type, and reports a path such as `Self::Item`,
/// which means nothing outside the impl block.
struct SelfReplacer<'r> {
    /// The model's type.
    self_ty: &'r Type,
    /// The first `Self::…` path found.
    error: Option<syn::Error>,
}

impl VisitMut for SelfReplacer<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(path) = ty {
            if path.qself.is_none() {
                if path.path.is_ident("Self") {
                    *ty = self.self_ty.clone();
                    return;
                }
                if path
                    .path
                    .segments
                    .first()
                    .is_some_and(|s| s.ident == "Self")
                {
                    self.error.get_or_insert_with(|| {
                        syn::Error::new_spanned(
                            &*path,
                            "write this type out in full: the message enum is generated outside the impl block, where `Self` means nothing",
                        )
                    });
                    return;
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}
