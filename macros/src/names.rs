//! The names `#[model]` derives from the user's identifiers and types.
//!
//! Both stages need them: `valid` derives the message variants and the
//! generated types' names to detect clashes before anything is generated,
//! and `expand` writes port and type names into the metadata and the docs.
//! Keeping them here lets `expand` use them without reaching into the rules.

use proc_macro2::Ident;
use quote::{format_ident, ToTokens};

/// The default name of a model's message enum: `Thermostat` →
/// `ThermostatMessage`.
///
/// It takes the span of the model's name, so that a clash with a user item
/// points at `impl Name`.
pub fn message_enum(model: &Ident) -> Ident {
    format_ident!("{}Message", model, span = model.span())
}

/// The default name of a model's ports struct: `Thermostat` →
/// `ThermostatPorts`, spanned like [`message_enum`].
pub fn ports_struct(model: &Ident) -> Ident {
    format_ident!("{}Ports", model, span = model.span())
}

/// A port's message variant: `set_point` → `SetPoint`; `r#type` → `Type`.
pub fn camel_case(ident: &Ident) -> Ident {
    let raw = ident.to_string();
    let name = raw.strip_prefix("r#").unwrap_or(&raw);
    let mut out = String::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(c) = chars.next() {
            out.extend(c.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if out.is_empty() {
        out.push_str("Port");
    }
    Ident::new(&out, ident.span())
}

/// A port's name as a string: the identifier without `r#`.
pub fn port_name(ident: &Ident) -> String {
    let raw = ident.to_string();
    raw.strip_prefix("r#").unwrap_or(&raw).to_owned()
}

/// A type as a person would write it, e.g. `Vec<(u8, String)>`: the token
/// dump with only the spaces that a person would keep.
pub fn type_name(tokens: impl ToTokens) -> String {
    let text = tokens.to_token_stream().to_string();
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c != ' ' {
            out.push(c);
            continue;
        }
        let (Some(previous), Some(&next)) = (out.chars().last(), chars.get(i + 1)) else {
            continue;
        };
        if keeps_space(&out, previous, next) {
            out.push(' ');
        }
    }
    out
}

/// Whether a space between `previous` (the end of `out`) and `next` stays:
/// between two words, after a separator, and around `+`, `=` and `->`.
fn keeps_space(out: &str, previous: char, next: char) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
    (word(previous) && word(next))
        || matches!(previous, ',' | ';' | '+' | '=')
        || matches!(next, '+' | '=' | '-')
        || out.ends_with("->")
}
