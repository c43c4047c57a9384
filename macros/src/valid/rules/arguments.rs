//! Rules on attribute arguments: those of `#[model(...)]`, none at all for
//! the markers `#[input]`, `#[replier]`, `#[init]` and `#[required]`, and
//! the markers' spelling.

use quote::{quote, ToTokens};
use syn::{Attribute, Meta, MetaList};

use crate::ast::{ModelArg, ModelArgValue, ModelArgs, Typo};
use crate::valid::{Ctxt, Settings};

/// Checks the arguments of `#[model(...)]`; `on_impl` tells which half.
pub fn check_args(cx: &mut Ctxt, args: &ModelArgs, on_impl: bool) -> Settings {
    let mut settings = Settings {
        krate: quote!(::causim),
        ports: None,
        message: None,
        save: false,
        version: 1,
    };
    let mut seen: Vec<String> = Vec::new();
    for arg in &args.args {
        let key = arg.key.to_string();
        if seen.contains(&key) {
            cx.error(&arg.key, format_args!("duplicate argument `{key}`"));
            continue;
        }
        seen.push(key.clone());
        apply_arg(cx, &mut settings, arg, &key, on_impl);
    }
    settings
}

/// Records one argument, whose key is `key`, in `settings`, or reports it.
fn apply_arg(cx: &mut Ctxt, settings: &mut Settings, arg: &ModelArg, key: &str, on_impl: bool) {
    match (&arg.value, key) {
        (ModelArgValue::Path(path), _) => settings.krate = path.to_token_stream(),
        (ModelArgValue::Save { version, unknown }, _) => {
            settings.save = true;
            for error in unknown {
                cx.push(error.clone());
            }
            if let Some(version) = version {
                apply_version(cx, settings, version, on_impl);
            }
        }
        (ModelArgValue::Ident(name), "ports") if on_impl => settings.ports = Some(name.clone()),
        (ModelArgValue::Ident(name), _) if on_impl => settings.message = Some(name.clone()),
        (ModelArgValue::Ident(_), _) => cx.error(
            &arg.key,
            format_args!(
                "`{key}` names a type generated from the impl block: write it on `#[model]` of the impl block, not of the struct"
            ),
        ),
        (ModelArgValue::Unknown, _) => cx.error(
            &arg.key,
            format_args!(
                "unknown argument `{key}`, expected {}",
                if on_impl {
                    "`crate`, `ports`, `message` or `save`"
                } else {
                    "`crate` or `save`"
                }
            ),
        ),
    }
}

/// Records `save(version = N)`: on the struct, whose fields the version
/// describes, as a `u32` from 1.
fn apply_version(cx: &mut Ctxt, settings: &mut Settings, version: &syn::LitInt, on_impl: bool) {
    if on_impl {
        cx.error(
            version,
            "the version of the saved state belongs with its fields: write `save(version = N)` on `#[model]` of the struct, and `save` here",
        );
        return;
    }
    match version.base10_parse::<u32>() {
        Ok(v) if v >= 1 => settings.version = v,
        _ => cx.error(
            version,
            "the version of the saved state is a whole number from 1 to 4294967295",
        ),
    }
}

/// Rejects any argument of a marker attribute such as `#[input]`.
pub fn check_marker_attr(cx: &mut Ctxt, attr: &Attribute, name: &str) {
    match &attr.meta {
        Meta::Path(_) => {}
        Meta::List(list) => check_marker_list(cx, list, name),
        Meta::NameValue(nv) => cx.error(&nv.value, format_args!("`#[{name}]` takes no arguments")),
    }
}

/// `#[name(...)]`: an error at each argument, or at the list if it holds
/// none that parses.
fn check_marker_list(cx: &mut Ctxt, list: &MetaList, name: &str) {
    let mut reported = false;
    let _ = list.parse_nested_meta(|meta| {
        let key = meta.path.to_token_stream().to_string().replace(' ', "");
        cx.error(
            &meta.path,
            format_args!("unknown argument `{key}`: `#[{name}]` takes no arguments"),
        );
        reported = true;
        // Skip the value, if any.
        if meta.input.peek(syn::Token![=]) {
            let _: syn::Expr = meta.value()?.parse()?;
        }
        Ok(())
    });
    if !reported {
        cx.error(list, format_args!("`#[{name}]` takes no arguments"));
    }
}

/// Reports each misspelled causim attribute, with the attribute meant; the
/// caller handles it as that attribute, so nothing else is reported.
pub fn check_typos(cx: &mut Ctxt, typos: &[Typo<'_>]) {
    for typo in typos {
        let path = typo.attr.path();
        let written = path.to_token_stream().to_string();
        cx.error(
            path,
            format_args!(
                "cannot find attribute `{written}`: did you mean `#[{}]`?",
                typo.intended
            ),
        );
    }
}
