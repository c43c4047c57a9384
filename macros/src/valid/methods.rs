//! The impl half: the model's name, the names of the generated types, and
//! which methods are receiving ports or the init hook.

use syn::{Ident, Type};

use super::rules::{
    check_args, check_generics, check_inherent, check_misplaced, check_not_named_ports,
    check_one_init, check_payload, check_reply, check_roles, check_signature, check_typos,
    generated_names, model_name, VariantNames,
};
use super::{Ctxt, Hook, ModelImpl, PortKind, RecvPort};
use crate::ast::{self, Role};

/// Checks the impl half.
pub fn check_impl<'a>(
    cx: &mut Ctxt,
    args: &ast::ModelArgs,
    model: &ast::Impl<'a>,
) -> ModelImpl<'a> {
    let settings = check_args(cx, args, true);
    let item = model.item;
    let generate = check_inherent(cx, item);
    check_generics(cx, &item.generics);
    let name = model_name(cx, model);
    let (message, ports_struct) = generated_names(cx, &settings, &name);
    check_misplaced(cx, &model.misplaced);
    let mut receivers = Receivers::new();
    for method in &model.methods {
        receivers.add(cx, method, &name, &item.self_ty);
    }
    ModelImpl {
        settings,
        item,
        name,
        message,
        ports_struct,
        ports: receivers.ports,
        init: receivers.init,
        generate,
        ports_fn: receivers.ports_fn,
    }
}

/// A method that passed every rule of its role.
struct Checked {
    /// `#[input]`, `#[replier]` or `#[init]`.
    role: Role,
    /// The payload or request type, with `Self` replaced; `None` for `()`.
    payload: Option<Type>,
    /// The reply type, for repliers, with `Self` replaced.
    reply: Option<Type>,
}

/// The port role of `method` and its message types, or `None` for a plain
/// method or one that breaks a rule (all of its errors are recorded).
fn check_method(cx: &mut Ctxt, method: &ast::Method<'_>, self_ty: &Type) -> Option<Checked> {
    check_typos(cx, &method.typos);
    let role = check_roles(cx, method)?;
    let signature_ok = check_signature(cx, method, role);
    let payload = check_payload(cx, method, role, self_ty);
    let reply = match role {
        Role::Replier => check_reply(cx, method, self_ty),
        _ => None,
    };
    let (true, Ok(payload)) = (signature_ok, payload) else {
        return None;
    };
    if role == Role::Replier && reply.is_none() {
        return None;
    }
    Some(Checked {
        role,
        payload,
        reply,
    })
}

/// The receiving side of the model, gathered method by method.
struct Receivers<'a> {
    /// The inputs and repliers so far.
    ports: Vec<RecvPort<'a>>,
    /// The `#[init]` hook, once found.
    init: Option<Hook<'a>>,
    /// The message variants taken so far.
    variants: VariantNames<'a>,
    /// False once a user method named `ports` is found.
    ports_fn: bool,
}

impl<'a> Receivers<'a> {
    /// No port, no hook, and the `ports()` accessor to generate.
    fn new() -> Self {
        Receivers {
            ports: Vec::new(),
            init: None,
            variants: VariantNames::default(),
            ports_fn: true,
        }
    }

    /// Checks one method of the model `name`, keeping it if it is a port or
    /// the hook.
    fn add(&mut self, cx: &mut Ctxt, method: &ast::Method<'a>, name: &Ident, self_ty: &Type) {
        if !check_not_named_ports(cx, method.ident(), name) {
            self.ports_fn = false;
            return;
        }
        let Some(checked) = check_method(cx, method, self_ty) else {
            return;
        };
        match checked.role {
            Role::Init => self.add_hook(cx, method),
            Role::Input | Role::Replier => self.add_port(cx, method, checked),
        }
    }

    /// Keeps `method` as the `#[init]` hook, unless there is one already.
    fn add_hook(&mut self, cx: &mut Ctxt, method: &ast::Method<'a>) {
        let first = self.init.as_ref().map(|hook| hook.ident);
        if !check_one_init(cx, first, method.ident()) {
            return;
        }
        self.init = Some(Hook {
            ident: method.ident(),
            is_async: method.is_async(),
            takes_context: method.takes_context(),
        });
    }

    /// Keeps `method` as an input or replier, unless its message variant is
    /// taken.
    fn add_port(&mut self, cx: &mut Ctxt, method: &ast::Method<'a>, checked: Checked) {
        let Some(variant) = self.variants.claim(cx, method.ident()) else {
            return;
        };
        self.ports.push(RecvPort {
            ident: method.ident(),
            kind: if checked.role == Role::Input {
                PortKind::Input
            } else {
                PortKind::Replier
            },
            variant,
            payload: checked.payload,
            reply: checked.reply,
            is_async: method.is_async(),
            takes_context: method.takes_context(),
        });
    }
}
