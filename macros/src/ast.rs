//! A borrowed model of what `#[model]` was applied to.
//!
//! Parsing only classifies: which fields are ports, which methods carry
//! which port attribute, what each argument looks like. Nothing is rejected
//! here unless it cannot be represented; the rules live in `valid/rules/`, so
//! that every violation is reported in one compile.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::Parser;

use crate::spelling;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, ImplItem, ImplItemFn, ItemImpl, ItemStruct, Pat,
    Path, PathArguments, ReturnType, Token, Type,
};

/// The arguments of `#[model(...)]`, in the order written.
pub struct ModelArgs {
    /// `key = value` pairs.
    pub args: Vec<ModelArg>,
}

/// One `key = value` argument of `#[model(...)]`.
pub struct ModelArg {
    /// The key, e.g. `crate`.
    pub key: Ident,
    /// The value.
    pub value: ModelArgValue,
}

/// The value of a `#[model(...)]` argument.
pub enum ModelArgValue {
    /// `crate = path`.
    Path(Path),
    /// `ports = Name`, `message = Name`.
    Ident(Ident),
    /// `save`, or `save(version = N)`.
    Save {
        /// The state's format version, if given.
        version: Option<syn::LitInt>,
        /// Arguments of `save(...)` that are not `version = N`, reported
        /// by `valid/rules/arguments.rs` (the rest of `#[model]` is still
        /// applied, so that nothing else is reported).
        unknown: Vec<syn::Error>,
    },
    /// An argument not known to the macro (reported by `valid/rules/arguments.rs`).
    Unknown,
}

impl ModelArgs {
    /// Parses the tokens between the parentheses of `#[model(...)]`.
    pub fn parse(tokens: TokenStream) -> syn::Result<Self> {
        let mut args = Vec::new();
        let parser = syn::meta::parser(|meta| {
            let key = meta.path.get_ident().cloned().ok_or_else(|| {
                meta.error("expected `crate = path`, `ports = Name`, `message = Name` or `save`")
            })?;
            let value = match key.to_string().as_str() {
                "crate" => ModelArgValue::Path(meta.value()?.call(Path::parse_mod_style)?),
                "ports" | "message" => ModelArgValue::Ident(meta.value()?.parse()?),
                "save" => parse_save(&meta)?,
                _ => {
                    // Skip the value, if any, so that later arguments are
                    // still checked.
                    if meta.input.peek(Token![=]) {
                        let _: syn::Expr = meta.value()?.parse()?;
                    } else if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                        let _: TokenStream = meta.input.parse()?;
                    }
                    ModelArgValue::Unknown
                }
            };
            args.push(ModelArg { key, value });
            Ok(())
        });
        parser.parse2(tokens)?;
        Ok(ModelArgs { args })
    }
}

/// `save` or `save(version = N)`.
fn parse_save(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<ModelArgValue> {
    let (mut version, mut unknown) = (None, Vec::new());
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            if inner.path.is_ident("version") {
                version = Some(inner.value()?.parse()?);
                return Ok(());
            }
            unknown.push(
                inner.error("expected `version = N`, the version of the saved state's format"),
            );
            // Skip the value, if any, so that later arguments are read.
            if inner.input.peek(Token![=]) {
                let _: syn::Expr = inner.value()?.parse()?;
            }
            Ok(())
        })?;
    }
    Ok(ModelArgValue::Save { version, unknown })
}

/// A model struct.
pub struct Struct<'a> {
    /// The struct as written.
    pub item: &'a ItemStruct,
    /// Every field, in order.
    pub fields: Vec<Field<'a>>,
}

/// One field of a model struct.
pub struct Field<'a> {
    /// The field as written.
    pub field: &'a syn::Field,
    /// What kind of port it is, if any.
    pub kind: FieldKind<'a>,
    /// Its `#[required]` attributes (zero, one, or too many), misspelled
    /// ones included.
    pub required: Vec<&'a Attribute>,
    /// Its attributes that misspell `#[required]`.
    pub typos: Vec<Typo<'a>>,
    /// Its `#[transient]` attributes: a state field left out of a
    /// snapshot.
    pub transient: Vec<&'a Attribute>,
}

/// An attribute that misspells a causim attribute, e.g. `#[requried]`:
/// reported with the fix, then handled as the attribute meant, so that no
/// error follows from it.
pub struct Typo<'a> {
    /// The attribute as written.
    pub attr: &'a Attribute,
    /// The attribute meant, e.g. `required`.
    pub intended: &'static str,
}

impl<'a> Typo<'a> {
    /// The causim attribute among `candidates` that `attr` misspells.
    fn of(attr: &'a Attribute, candidates: &[&'static str]) -> Option<Self> {
        let ident = attr.path().get_ident()?.to_string();
        let intended = spelling::near_miss(&ident, candidates)?;
        Some(Typo { attr, intended })
    }
}

/// Whether `attr` is `#[required]`, or a misspelling of it.
pub fn is_required(attr: &Attribute) -> bool {
    attr.path().is_ident("required") || Typo::of(attr, &["required"]).is_some()
}

/// Whether `attr` is `#[transient]`.
pub fn is_transient(attr: &Attribute) -> bool {
    attr.path().is_ident("transient")
}

/// What a field is, judged by its type's last path segment.
pub enum FieldKind<'a> {
    /// `Output<T>`.
    Output { payload: &'a Type },
    /// `Requestor<T, R>`.
    Requestor { request: &'a Type, reply: &'a Type },
    /// `UniRequestor<T, R>`: a requestor built with its one connection.
    UniRequestor { request: &'a Type, reply: &'a Type },
    /// Anything else: model state.
    State,
}

impl<'a> Struct<'a> {
    /// Classifies the fields of `item`.
    pub fn parse(item: &'a ItemStruct) -> Self {
        let fields = item
            .fields
            .iter()
            .map(|field| Field {
                field,
                kind: field_kind(&field.ty),
                required: field.attrs.iter().filter(|a| is_required(a)).collect(),
                typos: field
                    .attrs
                    .iter()
                    .filter_map(|a| Typo::of(a, &["required"]))
                    .collect(),
                transient: field.attrs.iter().filter(|a| is_transient(a)).collect(),
            })
            .collect();
        Struct { item, fields }
    }
}

/// Recognises `Output<T>`, `Requestor<T, R>` and `UniRequestor<T, R>`
/// (with any path prefix).
fn field_kind(ty: &Type) -> FieldKind<'_> {
    let Type::Path(path) = ty else {
        return FieldKind::State;
    };
    let Some(last) = path.path.segments.last() else {
        return FieldKind::State;
    };
    let PathArguments::AngleBracketed(generics) = &last.arguments else {
        return FieldKind::State;
    };
    let types: Vec<&Type> = generics
        .args
        .iter()
        .filter_map(|arg| match arg {
            GenericArgument::Type(ty) => Some(ty),
            _ => None,
        })
        .collect();
    match (last.ident.to_string().as_str(), types.as_slice()) {
        ("Output", [payload]) => FieldKind::Output { payload },
        ("Requestor", [request, reply]) => FieldKind::Requestor { request, reply },
        ("UniRequestor", [request, reply]) => FieldKind::UniRequestor { request, reply },
        _ => FieldKind::State,
    }
}

/// A model's inherent impl block.
pub struct Impl<'a> {
    /// The impl block as written.
    pub item: &'a ItemImpl,
    /// The model's type name (last segment of the self type), if it has one.
    pub self_ident: Option<&'a Ident>,
    /// The methods, with their port attributes.
    pub methods: Vec<Method<'a>>,
    /// Port attributes on items that are not methods.
    pub misplaced: Vec<&'a Attribute>,
}

/// The role a port attribute gives a method.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    /// `#[input]`.
    Input,
    /// `#[replier]`.
    Replier,
    /// `#[init]`.
    Init,
}

impl Role {
    /// The attribute's name.
    pub fn attr(self) -> &'static str {
        match self {
            Role::Input => "input",
            Role::Replier => "replier",
            Role::Init => "init",
        }
    }

    /// The role of an attribute, if it is a port attribute.
    pub fn of(attr: &Attribute) -> Option<Role> {
        let path = attr.path();
        [Role::Input, Role::Replier, Role::Init]
            .into_iter()
            .find(|role| path.is_ident(role.attr()))
    }

    /// The role of an attribute that is a port attribute or a misspelling
    /// of one, e.g. `#[repiler]`.
    pub fn of_or_typo(attr: &Attribute) -> Option<Role> {
        Role::of(attr).or_else(|| {
            let typo = Typo::of(attr, &ROLE_ATTRS)?;
            Role::of_name(typo.intended)
        })
    }

    /// The role whose attribute is `name`.
    fn of_name(name: &str) -> Option<Role> {
        [Role::Input, Role::Replier, Role::Init]
            .into_iter()
            .find(|role| role.attr() == name)
    }
}

/// The names of the port attributes.
const ROLE_ATTRS: [&str; 3] = ["input", "replier", "init"];

/// A method of a model's impl block.
pub struct Method<'a> {
    /// The method as written.
    pub func: &'a ImplItemFn,
    /// Its port attributes (zero for a plain method), misspelled ones
    /// included.
    pub roles: Vec<(Role, &'a Attribute)>,
    /// Its attributes that misspell a port attribute.
    pub typos: Vec<Typo<'a>>,
    /// How it takes `self`.
    pub receiver: Receiver,
    /// Its other arguments.
    pub args: Vec<Arg<'a>>,
    /// Its return type, if it has one other than `()`.
    pub output: Option<&'a Type>,
}

/// How a method takes `self`.
pub enum Receiver {
    /// `&mut self` (or `self: &mut Self`).
    MutRef,
    /// `&self`.
    SharedRef(TokenStream),
    /// `self`, `mut self`, `self: Box<Self>`, ….
    Other(TokenStream),
    /// No receiver: an associated function.
    None,
}

/// One argument of a method, after the receiver.
pub struct Arg<'a> {
    /// The argument as written.
    pub arg: &'a syn::PatType,
    /// What it is.
    pub kind: ArgKind,
}

/// What an argument is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// `&mut Context<..>`.
    Context,
    /// `&Context<..>` or `Context<..>`: a context taken the wrong way.
    BadContext,
    /// Anything else: a payload.
    Payload,
}

impl<'a> Impl<'a> {
    /// Classifies the items of `item`.
    pub fn parse(item: &'a ItemImpl) -> Self {
        let self_ident = match &*item.self_ty {
            Type::Path(path) if path.qself.is_none() => {
                path.path.segments.last().map(|seg| &seg.ident)
            }
            _ => None,
        };
        let mut methods = Vec::new();
        let mut misplaced = Vec::new();
        for impl_item in &item.items {
            match impl_item {
                ImplItem::Fn(func) => methods.push(Method::parse(func)),
                ImplItem::Const(c) => misplaced.extend(port_attrs(&c.attrs)),
                ImplItem::Type(t) => misplaced.extend(port_attrs(&t.attrs)),
                ImplItem::Macro(m) => misplaced.extend(port_attrs(&m.attrs)),
                _ => {}
            }
        }
        Impl {
            item,
            self_ident,
            methods,
            misplaced,
        }
    }
}

/// The port attributes among `attrs`.
fn port_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|a| Role::of(a).is_some())
}

impl<'a> Method<'a> {
    fn parse(func: &'a ImplItemFn) -> Self {
        let roles = func
            .attrs
            .iter()
            .filter_map(|a| Role::of_or_typo(a).map(|role| (role, a)))
            .collect();
        let typos = func
            .attrs
            .iter()
            .filter(|a| Role::of(a).is_none())
            .filter_map(|a| Typo::of(a, &ROLE_ATTRS))
            .collect();
        let mut receiver = Receiver::None;
        let mut args = Vec::new();
        for input in &func.sig.inputs {
            match input {
                FnArg::Receiver(r) => receiver = receiver_kind(r),
                FnArg::Typed(arg) => {
                    // `self: &mut Self` parses as a receiver in syn 2; a
                    // typed `self` pattern here is something stranger.
                    if matches!(&*arg.pat, Pat::Ident(p) if p.ident == "self") {
                        receiver = Receiver::Other(arg.to_token_stream());
                    } else {
                        args.push(Arg {
                            arg,
                            kind: arg_kind(&arg.ty),
                        });
                    }
                }
            }
        }
        let output = match &func.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) if is_unit(ty) => None,
            ReturnType::Type(_, ty) => Some(&**ty),
        };
        Method {
            func,
            roles,
            typos,
            receiver,
            args,
            output,
        }
    }

    /// The method's name.
    pub fn ident(&self) -> &'a Ident {
        &self.func.sig.ident
    }

    /// Whether the method is `async`.
    pub fn is_async(&self) -> bool {
        self.func.sig.asyncness.is_some()
    }

    /// The payload arguments.
    pub fn payloads(&self) -> impl Iterator<Item = &Arg<'a>> {
        self.args.iter().filter(|a| a.kind == ArgKind::Payload)
    }

    /// Whether the method takes the context.
    pub fn takes_context(&self) -> bool {
        self.args.iter().any(|a| a.kind == ArgKind::Context)
    }
}

fn receiver_kind(r: &syn::Receiver) -> Receiver {
    match &*r.ty {
        Type::Reference(reference) if is_self(&reference.elem) => {
            if reference.mutability.is_some() {
                Receiver::MutRef
            } else {
                Receiver::SharedRef(r.to_token_stream())
            }
        }
        _ => Receiver::Other(r.to_token_stream()),
    }
}

fn is_self(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"))
}

/// Whether `ty` is `()`.
pub fn is_unit(ty: &Type) -> bool {
    matches!(ty, Type::Tuple(t) if t.elems.is_empty())
}

/// Whether `ty` names `Context<..>` (by its last path segment).
fn is_context(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Context"))
}

fn arg_kind(ty: &Type) -> ArgKind {
    match ty {
        Type::Reference(r) if is_context(&r.elem) => {
            if r.mutability.is_some() {
                ArgKind::Context
            } else {
                ArgKind::BadContext
            }
        }
        ty if is_context(ty) => ArgKind::BadContext,
        _ => ArgKind::Payload,
    }
}
