//! Rules on port roles: a method is one kind of port, marked once, and a
//! model has at most one `#[init]` hook.

use syn::Ident;

use super::arguments::check_marker_attr;
use crate::ast::{self, Role};
use crate::valid::Ctxt;

/// The method's single port role, checking its attributes; `None` for a
/// plain method or a conflict (reported).
pub fn check_roles(cx: &mut Ctxt, method: &ast::Method<'_>) -> Option<Role> {
    let (first, _) = *method.roles.first()?;
    let mut conflict = false;
    for (i, (role, attr)) in method.roles.iter().enumerate() {
        check_marker_attr(cx, attr, role.attr());
        if i == 0 {
            continue;
        }
        if *role == first {
            cx.error(
                attr,
                format_args!("duplicate `#[{}]` attribute", role.attr()),
            );
        } else {
            cx.error(
                attr,
                format_args!(
                    "a method is one kind of port: it cannot be both `#[{}]` and `#[{}]`",
                    first.attr(),
                    role.attr()
                ),
            );
            conflict = true;
        }
    }
    (!conflict).then_some(first)
}

/// Whether `hook` may be the `#[init]` hook, given the `first` one found, if
/// any; a second hook is reported.
pub fn check_one_init(cx: &mut Ctxt, first: Option<&Ident>, hook: &Ident) -> bool {
    let Some(first) = first else {
        return true;
    };
    cx.error(
        hook,
        format_args!("a model has at most one `#[init]` hook, and `{first}` is already one"),
    );
    false
}

/// The noun for a role, with its article, for error messages.
pub fn noun(role: Role) -> &'static str {
    match role {
        Role::Input => "an input",
        Role::Replier => "a replier",
        Role::Init => "the init hook",
    }
}
