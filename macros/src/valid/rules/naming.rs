//! Rules on the generated names: the message enum and the ports struct
//! differ, no user method hides `ports()`, and no two ports share a message
//! variant.

use std::collections::HashMap;

use syn::Ident;

use crate::names;
use crate::valid::{Ctxt, Settings};

/// The names of the message enum and of the ports struct: the user's, or
/// the defaults. If both would be the same name, that is reported and the
/// ports struct takes its default name.
pub fn generated_names(cx: &mut Ctxt, settings: &Settings, name: &Ident) -> (Ident, Ident) {
    let message = settings
        .message
        .clone()
        .unwrap_or_else(|| names::message_enum(name));
    let ports_struct = settings
        .ports
        .clone()
        .unwrap_or_else(|| names::ports_struct(name));
    if message != ports_struct {
        return (message, ports_struct);
    }
    cx.error(
        &ports_struct,
        format_args!("the message enum and the ports struct cannot both be named `{message}`"),
    );
    (message, names::ports_struct(name))
}

/// Whether `method` leaves the name `ports` free for the generated
/// `{model}::ports()`; a method of that name is reported.
pub fn check_not_named_ports(cx: &mut Ctxt, method: &Ident, model: &Ident) -> bool {
    if method != "ports" {
        return true;
    }
    cx.error(
        method,
        format_args!(
            "a method named `ports` collides with the generated `{model}::ports()`, which returns the model's port descriptors; rename this method"
        ),
    );
    false
}

/// The message variants taken so far, each with the port that took it.
#[derive(Default)]
pub struct VariantNames<'a> {
    /// Variant name → the method it was derived from.
    taken: HashMap<String, &'a Ident>,
}

impl<'a> VariantNames<'a> {
    /// The message variant of port `ident`, now taken; `None`, reported, if
    /// another port already took it.
    pub fn claim(&mut self, cx: &mut Ctxt, ident: &'a Ident) -> Option<Ident> {
        let variant = names::camel_case(ident);
        if let Some(other) = self.taken.get(&variant.to_string()) {
            cx.error(
                ident,
                format_args!(
                    "ports `{other}` and `{ident}` would both be message variant `{variant}`; rename one of them"
                ),
            );
            return None;
        }
        self.taken.insert(variant.to_string(), ident);
        Some(variant)
    }
}
