//! The rules of `#[model]`, checked on the borrowed model of `ast.rs`.
//!
//! Every violation is recorded in a [`Ctxt`] and checking goes on, so that
//! one compile reports them all; what passes is returned as the validated
//! model that `expand.rs` turns into code. A port that breaks a rule is left
//! out of the generated code (its method stays, as a plain method), which
//! keeps the errors to the ones the user has to fix.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Attribute, GenericParam, Generics, Ident, Meta, Type};

use crate::ast::{self, ArgKind, FieldKind, ModelArgValue, ModelArgs, Receiver, Role};

/// Collects errors, as serde_derive's `Ctxt` does.
#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// An empty context.
    pub fn new() -> Self {
        Ctxt::default()
    }

    /// Records an error spanning `tokens`.
    pub fn error(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error at `span`.
    pub fn error_at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// Records an existing error.
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// All errors, combined into one (or `None`).
    pub fn finish(self) -> Option<syn::Error> {
        let mut errors = self.errors.into_iter();
        let mut first = errors.next()?;
        for error in errors {
            first.combine(error);
        }
        Some(first)
    }
}

/// What kind of port a validated port is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PortKind {
    Input,
    Replier,
    Output,
    Requestor,
}

impl PortKind {
    /// The variant of `causim::model::PortKind`.
    pub fn variant(self) -> Ident {
        format_ident!(
            "{}",
            match self {
                PortKind::Input => "Input",
                PortKind::Replier => "Replier",
                PortKind::Output => "Output",
                PortKind::Requestor => "Requestor",
            }
        )
    }
}

/// The settings of one `#[model]` attribute.
pub struct Settings {
    /// Path to the causim crate.
    pub krate: TokenStream,
    /// Name of the generated ports struct, if overridden.
    pub ports: Option<Ident>,
    /// Name of the generated message enum, if overridden.
    pub message: Option<Ident>,
}

/// Checks the arguments of `#[model(...)]`; `on_impl` tells which half.
pub fn check_args(cx: &mut Ctxt, args: &ModelArgs, on_impl: bool) -> Settings {
    let mut settings = Settings {
        krate: quote!(::causim),
        ports: None,
        message: None,
    };
    let mut seen: Vec<String> = Vec::new();
    for arg in &args.args {
        let key = arg.key.to_string();
        if seen.contains(&key) {
            cx.error(&arg.key, format_args!("duplicate argument `{key}`"));
            continue;
        }
        seen.push(key.clone());
        match (&arg.value, key.as_str()) {
            (ModelArgValue::Path(path), _) => settings.krate = path.to_token_stream(),
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
                        "`crate`, `ports` or `message`"
                    } else {
                        "`crate`"
                    }
                ),
            ),
        }
    }
    settings
}

/// Rejects any argument of a marker attribute such as `#[input]`.
fn check_marker_attr(cx: &mut Ctxt, attr: &Attribute, name: &str) {
    match &attr.meta {
        Meta::Path(_) => {}
        Meta::List(list) => {
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
        Meta::NameValue(nv) => cx.error(&nv.value, format_args!("`#[{name}]` takes no arguments")),
    }
}

/// Rejects lifetime parameters: a model is `'static`.
fn check_generics(cx: &mut Ctxt, generics: &Generics) {
    for param in &generics.params {
        if let GenericParam::Lifetime(lt) = param {
            cx.error(
                lt,
                "a model cannot have lifetime parameters: models are `'static` and own their state",
            );
        }
    }
}

/// A validated sending port (a field).
pub struct SendPort<'a> {
    pub ident: &'a Ident,
    pub kind: PortKind,
    pub payload: &'a Type,
    pub reply: Option<&'a Type>,
    pub required: bool,
}

/// A validated model struct.
pub struct ModelStruct<'a> {
    pub settings: Settings,
    pub item: &'a syn::ItemStruct,
    pub ports: Vec<SendPort<'a>>,
}

/// Checks the struct half.
pub fn check_struct<'a>(
    cx: &mut Ctxt,
    args: &ModelArgs,
    model: &ast::Struct<'a>,
) -> ModelStruct<'a> {
    let settings = check_args(cx, args, false);
    check_generics(cx, &model.item.generics);
    let mut ports = Vec::new();
    for field in &model.fields {
        for (i, attr) in field.required.iter().enumerate() {
            check_marker_attr(cx, attr, "required");
            if i > 0 {
                cx.error(attr, "duplicate `#[required]` attribute");
            }
        }
        let required = !field.required.is_empty();
        let (kind, payload, reply) = match field.kind {
            FieldKind::Output { payload } => (PortKind::Output, payload, None),
            FieldKind::Requestor { request, reply } => (PortKind::Requestor, request, Some(reply)),
            FieldKind::State => {
                if let Some(attr) = field.required.first() {
                    cx.error(
                        attr,
                        "`#[required]` applies only to `Output` and `Requestor` fields",
                    );
                }
                continue;
            }
        };
        let Some(ident) = &field.field.ident else {
            cx.error(
                &field.field.ty,
                "a port needs a name: declare the model with named fields",
            );
            continue;
        };
        ports.push(SendPort {
            ident,
            kind,
            payload,
            reply,
            required,
        });
    }
    ModelStruct {
        settings,
        item: model.item,
        ports,
    }
}

/// A validated receiving port (a method).
pub struct RecvPort<'a> {
    pub ident: &'a Ident,
    pub kind: PortKind,
    /// The message variant, e.g. `SetPoint` for `set_point`.
    pub variant: Ident,
    /// The payload or request type, with `Self` replaced; `None` for `()`.
    pub payload: Option<Type>,
    /// The reply type, for repliers, with `Self` replaced.
    pub reply: Option<Type>,
    pub is_async: bool,
    pub takes_context: bool,
}

/// A validated `#[init]` hook.
pub struct Hook<'a> {
    pub ident: &'a Ident,
    pub is_async: bool,
    pub takes_context: bool,
}

/// A validated model impl block.
pub struct ModelImpl<'a> {
    pub settings: Settings,
    pub item: &'a syn::ItemImpl,
    /// The model's type name, e.g. `Thermostat`.
    pub name: Ident,
    /// The generated message enum's name.
    pub message: Ident,
    /// The generated ports struct's name.
    pub ports_struct: Ident,
    pub ports: Vec<RecvPort<'a>>,
    pub init: Option<Hook<'a>>,
    /// False when the item cannot be a model's impl block at all (a trait
    /// impl): nothing is generated, to avoid a cascade of errors.
    pub generate: bool,
    /// False when the user has a method named `ports`.
    pub ports_fn: bool,
}

/// Checks the impl half.
pub fn check_impl<'a>(cx: &mut Ctxt, args: &ModelArgs, model: &ast::Impl<'a>) -> ModelImpl<'a> {
    let mut settings = check_args(cx, args, true);
    let item = model.item;
    let mut generate = true;
    let mut ports_fn = true;
    if let Some((_, trait_path, _)) = &item.trait_ {
        cx.error(
            trait_path,
            "`#[model]` applies to a model's inherent impl block, not to a trait impl",
        );
        generate = false;
    }
    check_generics(cx, &item.generics);
    let name = match model.self_ident {
        Some(ident) => ident.clone(),
        None => {
            cx.error(
                &item.self_ty,
                "`#[model]` expects the impl block of a named struct",
            );
            format_ident!("Model", span = item.self_ty.span())
        }
    };
    // The generated names take the span of the model's name, so that a
    // clash with a user item points at `impl Name`.
    let message = settings
        .message
        .clone()
        .unwrap_or_else(|| format_ident!("{}Message", name, span = name.span()));
    let ports_struct = settings
        .ports
        .clone()
        .unwrap_or_else(|| format_ident!("{}Ports", name, span = name.span()));
    let ports_struct = if message == ports_struct {
        cx.error(
            &ports_struct,
            format_args!("the message enum and the ports struct cannot both be named `{message}`"),
        );
        settings.ports = None;
        format_ident!("{}Ports", name, span = name.span())
    } else {
        ports_struct
    };

    for attr in &model.misplaced {
        let role = Role::of(attr).map_or("input", Role::attr);
        cx.error(attr, format_args!("`#[{role}]` applies to methods only"));
    }

    let mut ports = Vec::new();
    let mut init: Option<Hook<'a>> = None;
    let mut variants: HashMap<String, &Ident> = HashMap::new();
    for method in &model.methods {
        let ident = method.ident();
        if ident == "ports" {
            cx.error(
                ident,
                format_args!(
                    "a method named `ports` collides with the generated `{name}::ports()`, which returns the model's port descriptors; rename this method"
                ),
            );
            ports_fn = false;
            continue;
        }
        let Some(role) = check_roles(cx, method) else {
            continue;
        };
        let ok = check_signature(cx, method, role);
        let payload = check_payload(cx, method, role, &item.self_ty);
        let reply = match role {
            Role::Replier => check_reply(cx, method, &item.self_ty),
            _ => None,
        };
        if !ok || payload.is_err() || (role == Role::Replier && reply.is_none()) {
            continue;
        }
        let payload = payload.unwrap_or(None);
        match role {
            Role::Init => {
                if let Some(first) = &init {
                    cx.error(
                        ident,
                        format_args!(
                            "a model has at most one `#[init]` hook, and `{}` is already one",
                            first.ident
                        ),
                    );
                    continue;
                }
                init = Some(Hook {
                    ident,
                    is_async: method.is_async(),
                    takes_context: method.takes_context(),
                });
            }
            Role::Input | Role::Replier => {
                let variant = camel_case(ident);
                if let Some(other) = variants.get(&variant.to_string()) {
                    cx.error(
                        ident,
                        format_args!(
                            "ports `{other}` and `{ident}` would both be message variant `{variant}`; rename one of them"
                        ),
                    );
                    continue;
                }
                variants.insert(variant.to_string(), ident);
                ports.push(RecvPort {
                    ident,
                    kind: if role == Role::Input {
                        PortKind::Input
                    } else {
                        PortKind::Replier
                    },
                    variant,
                    payload,
                    reply,
                    is_async: method.is_async(),
                    takes_context: method.takes_context(),
                });
            }
        }
    }
    ModelImpl {
        settings,
        item,
        name,
        message,
        ports_struct,
        ports,
        init,
        generate,
        ports_fn,
    }
}

/// The method's single port role, checking its attributes.
fn check_roles(cx: &mut Ctxt, method: &ast::Method<'_>) -> Option<Role> {
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

/// The noun for a role, with its article.
fn noun(role: Role) -> &'static str {
    match role {
        Role::Input => "an input",
        Role::Replier => "a replier",
        Role::Init => "the init hook",
    }
}

/// Checks the receiver, qualifiers, generics and argument layout.
fn check_signature(cx: &mut Ctxt, method: &ast::Method<'_>, role: Role) -> bool {
    let sig = &method.func.sig;
    let before = cx.errors.len();
    let what = noun(role);
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
            &sig.ident,
            format_args!("{what} must be a method taking `&mut self` as its first argument"),
        ),
    }
    if let Some(token) = &sig.constness {
        cx.error(token, format_args!("{what} cannot be a `const fn`"));
    }
    if let Some(token) = &sig.unsafety {
        cx.error(token, format_args!("{what} cannot be `unsafe`"));
    }
    if let Some(abi) = &sig.abi {
        cx.error(abi, format_args!("{what} cannot have an explicit ABI"));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
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
    match role {
        Role::Input => {
            if let Some(ty) = method.output {
                cx.error(
                    ty,
                    "an input cannot return a value: to answer requests, make this method a `#[replier]`",
                );
            }
        }
        Role::Init => {
            if let Some(ty) = method.output {
                cx.error(ty, "the init hook cannot return a value");
            }
        }
        Role::Replier => {}
    }
    cx.errors.len() == before
}

/// Checks the payload arguments; `Ok(None)` means no payload (`()`).
fn check_payload(
    cx: &mut Ctxt,
    method: &ast::Method<'_>,
    role: Role,
    self_ty: &Type,
) -> Result<Option<Type>, ()> {
    let mut payloads = method.payloads();
    let first = payloads.next();
    let mut ok = true;
    if role == Role::Init {
        if let Some(arg) = first {
            cx.error(
                arg.arg,
                "the init hook takes no payload, only `&mut self` and optionally `&mut Context<Self>`",
            );
            return Err(());
        }
        return Ok(None);
    }
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
    match replace_self(&arg.arg.ty, self_ty) {
        Ok(ty) => Ok(Some(ty)),
        Err(error) => {
            cx.push(error);
            Err(())
        }
    }
}

/// Checks a replier's return type.
fn check_reply(cx: &mut Ctxt, method: &ast::Method<'_>, self_ty: &Type) -> Option<Type> {
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
    match replace_self(ty, self_ty) {
        Ok(ty) => Some(ty),
        Err(error) => {
            cx.push(error);
            None
        }
    }
}

/// Checks what can be checked syntactically of a type that travels in a
/// message: no `impl Trait`, no reference, no borrowed lifetime, no `_`.
/// `Send + 'static` is also checked by the generated code.
fn check_message_type(cx: &mut Ctxt, ty: &Type, what: &str) -> bool {
    if let Type::Reference(reference) = ty {
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
            return false;
        }
    }
    struct Checker<'c> {
        cx: &'c mut Ctxt,
        what: &'c str,
        ok: bool,
    }
    impl<'ast> Visit<'ast> for Checker<'_> {
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
                    format_args!("a {what} cannot borrow: it is moved into a message, so it must be `'static`"),
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
    let mut checker = Checker { cx, what, ok: true };
    checker.visit_type(ty);
    checker.ok
}

/// `ty` with `Self` replaced by the model's type, since the generated enum
/// and ports struct live outside the impl block.
fn replace_self(ty: &Type, self_ty: &Type) -> syn::Result<Type> {
    struct Replacer<'r> {
        self_ty: &'r Type,
        error: Option<syn::Error>,
    }
    impl VisitMut for Replacer<'_> {
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
    let mut replacer = Replacer {
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

/// `set_point` → `SetPoint`; `r#type` → `Type`.
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

/// A type as a person would write it, e.g. `Vec<(u8, String)>`.
pub fn type_name(tokens: impl ToTokens) -> String {
    let text = tokens.to_token_stream().to_string();
    let chars: Vec<char> = text.chars().collect();
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c != ' ' {
            out.push(c);
            continue;
        }
        let (Some(p), Some(&n)) = (out.chars().last(), chars.get(i + 1)) else {
            continue;
        };
        let keep = (word(p) && word(n))
            || matches!(p, ',' | ';' | '+' | '=')
            || matches!(n, '+' | '=' | '-')
            || out.ends_with("->");
        if keep {
            out.push(' ');
        }
    }
    out
}
