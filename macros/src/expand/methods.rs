//! The impl half of `#[model]`: the message enum, the ports struct and its
//! accessor, and the `Model` impl (dispatch, init hook, metadata).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{GenericParam, Generics, Ident, Type};

use super::save_hooks::save_parts;
use super::{names_any, option, port_list, type_name_expr, type_params};
use crate::ast::is_unit;
use crate::names::{port_name, type_name};
use crate::valid::{Hook, ModelImpl, PortKind, RecvPort};

/// The message enum, the ports struct and `ports()`, then `impl Model`,
/// the `Debug` impls and the payload checks in an anonymous
/// `const _: () = { … };` block. Nothing for a trait impl.
pub fn expand(model: &ModelImpl<'_>) -> TokenStream {
    if !model.generate {
        return TokenStream::new();
    }
    let message = message_enum(model);
    let ports = ports_struct(model);
    let model_impl = model_impl(model);
    let debug = debug_impls(model);
    let checks = payload_checks(model);
    let saveable = save_parts(model).map(|parts| parts.marker_impl);
    let krate = &model.settings.krate;
    quote! {
        #message
        #ports
        const _: () = {
            use #krate::__private as causim;

            #model_impl
            #debug
            #checks
            #saveable
        };
    }
}

/// The marker variant of a generic model's message enum, which uses every
/// type parameter (a payload need not), and cannot be built.
fn marker(model: &ModelImpl<'_>) -> Option<(TokenStream, TokenStream)> {
    let params: Vec<TokenStream> = model
        .item
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Type(t) => {
                let ident = &t.ident;
                Some(quote!(#ident))
            }
            GenericParam::Const(c) => {
                let ident = &c.ident;
                Some(quote!([(); #ident]))
            }
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    if params.is_empty() {
        return None;
    }
    let krate = &model.settings.krate;
    let variant = quote! {
        #[doc(hidden)]
        __Marker(
            #krate::__private::Infallible,
            #krate::__private::PhantomData<fn() -> (#(#params,)*)>,
        )
    };
    let message = &model.message;
    let arm = quote!(#message::__Marker(never, _) => match never {});
    Some((variant, arm))
}

/// `pub enum ThermostatMessage { SetPoint(f64), … }`.
fn message_enum(model: &ModelImpl<'_>) -> TokenStream {
    let krate = &model.settings.krate;
    let name = &model.name;
    let message = &model.message;
    let generics = &model.item.generics;
    let where_clause = &generics.where_clause;
    let doc = format!(" The messages of the [`{name}`] model: one variant per input or replier.");
    let variants = model.ports.iter().map(|port| {
        let variant = &port.variant;
        let port_name = port_name(port.ident);
        let payload = payload(port);
        match port.kind {
            PortKind::Input => {
                let doc = format!(" A message for input `{port_name}`.");
                quote!(#[doc = #doc] #variant(#payload))
            }
            _ => {
                let doc = format!(" A request for replier `{port_name}`, with its reply slot.");
                let reply = &port.reply;
                quote!(#[doc = #doc] #variant(#payload, #krate::ports::ReplySender<#reply>))
            }
        }
    });
    let marker = marker(model).map(|(variant, _)| quote!(#variant,));
    // Spanned at the model's name, so that a clash with a user item is
    // reported at `impl Name`.
    quote_spanned! {name.span()=>
        #[doc = #doc]
        #[allow(private_interfaces)]
        pub enum #message #generics #where_clause {
            #(#variants,)*
            #marker
        }
    }
}

/// The payload type of a port, `()` when it has none.
pub(super) fn payload(port: &RecvPort<'_>) -> TokenStream {
    match &port.payload {
        Some(ty) => quote!(#ty),
        None => quote!(()),
    }
}

/// `pub struct ThermostatPorts { pub set_point: InputPort<Thermostat, f64>, … }`
/// and `Thermostat::ports()`.
fn ports_struct(model: &ModelImpl<'_>) -> TokenStream {
    let krate = &model.settings.krate;
    let name = &model.name;
    let ports_struct = &model.ports_struct;
    let self_ty = &model.item.self_ty;
    let generics = is_model_bound(model);
    let where_clause = &generics.where_clause;
    let ports_fn = ports_fn(model);
    let fields = model
        .ports
        .iter()
        .map(|port| port_field(krate, self_ty, port));
    // A generic model with no port would leave the struct's parameters
    // unused.
    let marker = (model.ports.is_empty() && has_type_or_const_params(&generics)).then(|| {
        quote! {
            #[doc(hidden)]
            pub __model: #krate::__private::PhantomData<fn() -> #self_ty>,
        }
    });
    let struct_doc = format!(
        " The typed descriptors of the inputs and repliers of [`{name}`], returned by `{name}::ports()`."
    );
    let ports_struct = quote_spanned! {name.span()=>
        #[doc = #struct_doc]
        #[allow(private_interfaces)]
        pub struct #ports_struct #generics #where_clause {
            #(#fields,)*
            #marker
        }
    };
    quote!(#ports_struct #ports_fn)
}

/// The ports struct's field for one port, e.g. `pub set_point:
/// InputPort<Thermostat, f64>`, with its doc.
fn port_field(krate: &TokenStream, self_ty: &Type, port: &RecvPort<'_>) -> TokenStream {
    let ident = port.ident;
    let port_name = port_name(ident);
    let payload = payload(port);
    let payload_name = type_name(&payload);
    match port.kind {
        PortKind::Input => {
            let doc = format!(" Input `{port_name}`, taking `{payload_name}`.");
            quote!(#[doc = #doc] pub #ident: #krate::InputPort<#self_ty, #payload>)
        }
        _ => {
            let reply = &port.reply;
            let doc = format!(
                " Replier `{port_name}`, taking `{payload_name}` and replying `{}`.",
                type_name(reply)
            );
            quote!(#[doc = #doc] pub #ident: #krate::ReplierPort<#self_ty, #payload, #reply>)
        }
    }
}

/// `impl Thermostat { pub fn ports() -> ThermostatPorts { … } }`, unless
/// the user has a method of that name (an error reported elsewhere).
fn ports_fn(model: &ModelImpl<'_>) -> TokenStream {
    if !model.ports_fn {
        return TokenStream::new();
    }
    let krate = &model.settings.krate;
    let message = &model.message;
    let ports_struct = &model.ports_struct;
    let self_ty = &model.item.self_ty;
    let generics = is_model_bound(model);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let values = model.ports.iter().map(|port| {
        let ident = port.ident;
        let port_name = port_name(ident);
        let variant = &port.variant;
        let constructor = match port.kind {
            PortKind::Input => quote!(#krate::InputPort::new),
            _ => quote!(#krate::ReplierPort::new),
        };
        quote!(#ident: #constructor(#port_name, #message::#variant))
    });
    let marker_value = (model.ports.is_empty() && has_type_or_const_params(&generics))
        .then(|| quote!(__model: #krate::__private::PhantomData,));
    let fn_doc = " The typed descriptors of this model's inputs and repliers, to connect outputs, requestors and sources to, and to schedule events on.";
    quote! {
        impl #impl_generics #self_ty #where_clause {
            #[doc = #fn_doc]
            pub fn ports() -> #ports_struct #ty_generics {
                #ports_struct {
                    #(#values,)*
                    #marker_value
                }
            }
        }
    }
}

/// The impl block's generics, bounded by `Self: Model` for a generic
/// model: the port descriptors need it, and stating it keeps a missing
/// bound on a parameter from being reported once per generated item (it
/// is reported once, by [`payload_checks`]).
fn is_model_bound(model: &ModelImpl<'_>) -> Generics {
    let self_ty = &model.item.self_ty;
    let krate = &model.settings.krate;
    let message = &model.message;
    let (_, ty_generics, _) = model.item.generics.split_for_impl();
    // With the message type stated, `Self::Message` still normalises to
    // the generated enum under this bound.
    let bound = quote!(#self_ty: #krate::Model<Message = #message #ty_generics>);
    with_predicates(model, std::iter::once(bound))
}

/// The impl block's generics, bounded for `impl Model` of a generic model:
/// the model, its payloads and its replies are `Send + 'static`, so that a
/// parameter missing these bounds is reported once, by [`payload_checks`],
/// and not in every generated item.
fn send_static_bound(model: &ModelImpl<'_>) -> Generics {
    let self_ty = &model.item.self_ty;
    let types = std::iter::once(quote!(#self_ty)).chain(message_types(model));
    with_predicates(
        model,
        types.map(|ty| quote!(#ty: ::core::marker::Send + 'static)),
    )
}

/// The payload, request and reply types of the model's ports that name a
/// type parameter (the others need no bound).
fn message_types<'m>(model: &'m ModelImpl<'_>) -> impl Iterator<Item = TokenStream> + 'm {
    let params = type_params(&model.item.generics);
    model
        .ports
        .iter()
        .flat_map(|port| port.payload.iter().chain(&port.reply))
        .filter(move |ty| names_any(ty, &params))
        .map(|ty| quote!(#ty))
}

/// The impl block's generics, plus `predicates` in the where clause if the
/// model has type or const parameters (none are needed otherwise).
fn with_predicates(
    model: &ModelImpl<'_>,
    predicates: impl Iterator<Item = TokenStream>,
) -> Generics {
    let mut generics = model.item.generics.clone();
    if !has_type_or_const_params(&generics) {
        return generics;
    }
    let clause = generics.make_where_clause();
    for predicate in predicates {
        clause.predicates.push(syn::parse_quote!(#predicate));
    }
    generics
}

/// Whether `generics` has a type or const parameter (lifetimes aside).
fn has_type_or_const_params(generics: &Generics) -> bool {
    generics
        .params
        .iter()
        .any(|p| !matches!(p, GenericParam::Lifetime(_)))
}

/// `impl Model for Thermostat { … }`: the message type, `dispatch`, the
/// `init` hook, the metadata and the required-port check.
fn model_impl(model: &ModelImpl<'_>) -> TokenStream {
    let self_ty = &model.item.self_ty;
    let message = &model.message;
    let generics = send_static_bound(model);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let dispatch = dispatch_fn(model);
    let port_name = port_name_fn(model);
    let init = model.init.as_ref().map(init_fn);
    let metadata = metadata_fns(model);
    let save_hooks = save_parts(model).map(|parts| parts.hooks_fn);
    quote! {
        #[automatically_derived]
        impl #impl_generics causim::Model for #self_ty #where_clause {
            type Message = #message #ty_generics;

            #dispatch

            #port_name

            #init

            #metadata

            #save_hooks
        }
    }
}

/// `fn dispatch(…)`: one `match` over the message, calling the port's
/// method.
fn dispatch_fn(model: &ModelImpl<'_>) -> TokenStream {
    let message = &model.message;
    let uses_context = model.ports.iter().any(|p| p.takes_context);
    let cx = if uses_context {
        quote!(cx)
    } else {
        quote!(_cx)
    };
    let arms = model.ports.iter().map(|port| dispatch_arm(message, port));
    let marker_arm = marker(model).map(|(_, arm)| arm);
    quote! {
        fn dispatch<'a>(
            &'a mut self,
            message: Self::Message,
            #cx: &'a mut causim::Context<Self>,
        ) -> impl causim::Future<Output = ()> + Send + 'a {
            async move {
                match message {
                    #(#arms,)*
                    #marker_arm
                }
            }
        }
    }
}

/// `fn port_name(…)`: the name of the port a message is for (tracing
/// spans name it).
fn port_name_fn(model: &ModelImpl<'_>) -> TokenStream {
    let message = &model.message;
    let arms = model.ports.iter().map(|port| {
        let variant = &port.variant;
        let name = port_name(port.ident);
        quote!(#message::#variant(..) => #name)
    });
    let marker_arm = marker(model).map(|(_, arm)| arm);
    quote! {
        fn port_name(message: &Self::Message) -> &'static str {
            match *message {
                #(#arms,)*
                #marker_arm
            }
        }
    }
}

/// The `dispatch` arm of one port: `ThermostatMessage::SetPoint(payload) =>
/// self.set_point(payload)`, with `.await` for an `async` method, `cx` for
/// one that takes the context, and `reply.send(…)` around a replier's call.
fn dispatch_arm(message: &Ident, port: &RecvPort<'_>) -> TokenStream {
    let method = port.ident;
    let variant = &port.variant;
    let (pattern, args) = match (port.kind, &port.payload) {
        (PortKind::Input, Some(_)) => (quote!(payload), quote!(payload)),
        (PortKind::Input, None) => (quote!(()), quote!()),
        (_, Some(_)) => (quote!(request), quote!(request)),
        (_, None) => (quote!(()), quote!()),
    };
    let args = match (port.takes_context, args.is_empty()) {
        (false, _) => args,
        (true, true) => quote!(cx),
        (true, false) => quote!(#args, cx),
    };
    let call = if port.is_async {
        quote!(self.#method(#args).await)
    } else {
        quote!(self.#method(#args))
    };
    match port.kind {
        PortKind::Input => quote!(#message::#variant(#pattern) => #call),
        _ => quote!(#message::#variant(#pattern, reply) => reply.send(#call)),
    }
}

/// `fn init(…)`, calling the `#[init]` hook.
fn init_fn(hook: &Hook<'_>) -> TokenStream {
    let method = hook.ident;
    let (param, args) = if hook.takes_context {
        (quote!(cx), quote!(cx))
    } else {
        (quote!(_cx), quote!())
    };
    let call = if hook.is_async {
        quote!(self.#method(#args).await)
    } else {
        quote!(self.#method(#args))
    };
    quote! {
        fn init<'a>(
            &'a mut self,
            #param: &'a mut causim::Context<Self>,
        ) -> impl causim::Future<Output = ()> + Send + 'a {
            async move { #call }
        }
    }
}

/// `fn metadata()`, listing the inputs and repliers here and the outputs
/// and requestors of the struct half, and `fn unconnected_required_ports`
/// and `fn list_connections`, delegating to the struct half.
fn metadata_fns(model: &ModelImpl<'_>) -> TokenStream {
    let self_ty = &model.item.self_ty;
    let generic = has_type_or_const_params(&model.item.generics);
    let model_name = if generic {
        quote!(causim::short_type_name::<Self>())
    } else {
        let name = model.name.to_string();
        quote!(#name)
    };
    let params = type_params(&model.item.generics);
    let inputs = model
        .ports
        .iter()
        .map(|port| port_metadata(port, &params))
        .collect();
    let inputs = port_list(generic, "inputs", inputs);
    // Spanned at the model's type, so that a missing `#[model]` on the
    // struct is reported at `impl Name`.
    let outputs = quote_spanned!(self_ty.span()=> <Self as causim::ModelFields>::outputs());
    let unconnected = quote_spanned! {self_ty.span()=>
        <Self as causim::ModelFields>::unconnected_required_ports(self, missing)
    };
    let listing = quote_spanned! {self_ty.span()=>
        <Self as causim::ModelFields>::list_connections(self, list)
    };
    quote! {
        fn metadata() -> causim::ModelMetadata {
            causim::ModelMetadata {
                type_name: #model_name,
                inputs: #inputs,
                outputs: #outputs,
            }
        }

        fn unconnected_required_ports(
            &self,
            missing: &mut Vec<&'static causim::PortMetadata>,
        ) {
            #unconnected
        }

        fn list_connections(&self, list: &mut causim::ConnectionList) {
            #listing
        }
    }
}

/// `causim::PortMetadata { name: "set_point", kind: …, … }` for one input
/// or replier of a model with type parameters `params`.
fn port_metadata(port: &RecvPort<'_>, params: &[String]) -> TokenStream {
    let name = port_name(port.ident);
    let kind = port.kind.variant();
    let payload = match &port.payload {
        Some(ty) => type_name_expr(ty, params),
        None => quote!("()"),
    };
    let reply = option(port.reply.as_ref().map(|ty| type_name_expr(ty, params)));
    quote! {
        causim::PortMetadata {
            name: #name,
            kind: causim::PortKind::#kind,
            payload: #payload,
            reply: #reply,
            required: false,
        }
    }
}

/// `Debug` for the message enum (variant names only: payloads need not be
/// `Debug`) and for the ports struct.
fn debug_impls(model: &ModelImpl<'_>) -> TokenStream {
    let message = &model.message;
    let ports_struct = &model.ports_struct;
    let (impl_generics, ty_generics, where_clause) = model.item.generics.split_for_impl();
    let bounded = is_model_bound(model);
    let (ports_impl_generics, _, ports_where_clause) = bounded.split_for_impl();
    let message_name = message.to_string();
    let arms = model.ports.iter().map(|port| {
        let variant = &port.variant;
        let text = format!("{message_name}::{variant}(..)");
        quote!(#message::#variant(..) => f.write_str(#text))
    });
    let marker_arm = marker(model).map(|(_, arm)| arm);
    let ports_name = ports_struct.to_string();
    let fields = model.ports.iter().map(|port| {
        let ident = port.ident;
        let name = port_name(ident);
        quote!(.field(#name, &self.#ident))
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics causim::fmt::Debug for #message #ty_generics #where_clause {
            fn fmt(&self, f: &mut causim::fmt::Formatter<'_>) -> causim::fmt::Result {
                match *self {
                    #(#arms,)*
                    #marker_arm
                }
            }
        }

        #[automatically_derived]
        impl #ports_impl_generics causim::fmt::Debug for #ports_struct #ty_generics #ports_where_clause {
            fn fmt(&self, f: &mut causim::fmt::Formatter<'_>) -> causim::fmt::Result {
                f.debug_struct(#ports_name)#(#fields)*.finish()
            }
        }
    }
}

/// Compile-time checks that payloads, requests and replies are
/// `Send + 'static`, spanned at the user's types; for a generic model, also
/// the model itself, spanned at `impl<…> Name<…>`. These are where a
/// missing bound on a type parameter is reported: the generated items are
/// bounded instead (see [`send_static_bound`]), so that it is reported once.
fn payload_checks(model: &ModelImpl<'_>) -> TokenStream {
    let checks: Vec<TokenStream> = model.ports.iter().flat_map(port_checks).collect();
    let generics = &model.item.generics;
    if !has_type_or_const_params(generics) {
        return quote!(#(const _: fn() = #checks;)*);
    }
    let self_ty = &model.item.self_ty;
    let model_check =
        quote_spanned!(self_ty.span()=> causim::model_must_be_send_and_static::<#self_ty>);
    let where_clause = &generics.where_clause;
    quote! {
        #[allow(dead_code)]
        fn check_bounds #generics () #where_clause {
            #model_check();
            #(#checks();)*
        }
    }
}

/// The checks of one port's payload (unless `()`) and reply.
fn port_checks(port: &RecvPort<'_>) -> impl Iterator<Item = TokenStream> {
    let payload = port
        .payload
        .as_ref()
        .filter(|ty| !is_unit(ty))
        .map(|ty| quote_spanned!(ty.span()=> causim::payload_must_be_send_and_static::<#ty>));
    let reply = port
        .reply
        .as_ref()
        .map(|ty| quote_spanned!(ty.span()=> causim::reply_must_be_send_and_static::<#ty>));
    payload.into_iter().chain(reply)
}
