//! The struct half: which fields are sending ports, and their `#[required]`
//! marks.

use super::rules::{check_args, check_generics, check_marker_attr, check_typos};
use super::{Ctxt, ModelStruct, PortKind, SavedField, SendPort};
use crate::ast::{self, FieldKind};

/// Checks the struct half.
pub fn check_struct<'a>(
    cx: &mut Ctxt,
    args: &ast::ModelArgs,
    model: &ast::Struct<'a>,
) -> ModelStruct<'a> {
    let settings = check_args(cx, args, false);
    check_generics(cx, &model.item.generics);
    let ports = model
        .fields
        .iter()
        .filter_map(|field| check_field(cx, field))
        .collect();
    let saved = saved_fields(cx, model, settings.save);
    ModelStruct {
        settings,
        item: model.item,
        ports,
        saved,
    }
}

/// The fields a snapshot holds: with `save`, the named state fields not
/// marked `#[transient]`. Reports `#[transient]` on a port, or without
/// `save`.
fn saved_fields<'a>(cx: &mut Ctxt, model: &ast::Struct<'a>, save: bool) -> Vec<SavedField<'a>> {
    let mut saved = Vec::new();
    for field in &model.fields {
        for (i, attr) in field.transient.iter().enumerate() {
            check_marker_attr(cx, attr, "transient");
            if i > 0 {
                cx.error(attr, "duplicate `#[transient]` attribute");
            }
        }
        let is_state = matches!(field.kind, FieldKind::State);
        match (field.transient.first(), is_state, save) {
            (Some(attr), false, _) => cx.error(
                attr,
                "a port is never saved (the rebuilt bench connects it again): `#[transient]` applies only to state fields",
            ),
            (Some(attr), true, false) => cx.error(
                attr,
                "`#[transient]` leaves a field out of a snapshot: it needs `#[model(save)]` on the struct",
            ),
            (None, true, true) => match &field.field.ident {
                Some(ident) => saved.push(SavedField {
                    ident,
                    ty: &field.field.ty,
                }),
                None => cx.error(
                    &field.field.ty,
                    "a saved field needs a name (the snapshot matches fields by name): declare the model with named fields",
                ),
            },
            _ => {}
        }
    }
    saved
}

/// The field as a sending port, or `None` for state or a broken port.
fn check_field<'a>(cx: &mut Ctxt, field: &ast::Field<'a>) -> Option<SendPort<'a>> {
    check_typos(cx, &field.typos);
    check_required_attrs(cx, &field.required);
    let (kind, payload, reply) = match field.kind {
        FieldKind::Output { payload } => (PortKind::Output, payload, None),
        FieldKind::Requestor { request, reply } | FieldKind::UniRequestor { request, reply } => {
            (PortKind::Requestor, request, Some(reply))
        }
        FieldKind::State => {
            if let Some(attr) = field.required.first() {
                required_on_state(cx, attr, &field.field.ty);
            }
            return None;
        }
    };
    let Some(ident) = &field.field.ident else {
        cx.error(
            &field.field.ty,
            "a port needs a name: declare the model with named fields",
        );
        return None;
    };
    Some(SendPort {
        ident,
        kind,
        ty: &field.field.ty,
        payload,
        reply,
        required: !field.required.is_empty(),
    })
}

/// Each `#[required]` mark takes no argument, and a field has at most one.
fn check_required_attrs(cx: &mut Ctxt, attrs: &[&syn::Attribute]) {
    for (i, attr) in attrs.iter().enumerate() {
        check_marker_attr(cx, attr, "required");
        if i > 0 {
            cx.error(attr, "duplicate `#[required]` attribute");
        }
    }
}

/// Reports `#[required]` on a field that is not written as a port; if its
/// type is a bare name, which may be an alias of one, says why that is not
/// seen through.
fn required_on_state(cx: &mut Ctxt, attr: &syn::Attribute, ty: &syn::Type) {
    let Some(name) = maybe_alias(ty) else {
        cx.error(
            attr,
            "`#[required]` applies only to `Output`, `Requestor` and `UniRequestor` fields",
        );
        return;
    };
    cx.error(
        attr,
        format_args!(
            "`#[required]` applies only to fields written `Output<T>`, `Requestor<T, R>` or `UniRequestor<T, R>`, and this one is written `{name}`; if `{name}` is an alias of one, write the port type out here: `#[model]` reads the source, and cannot see what an alias stands for"
        ),
    );
}

/// The name of `ty` if it could be an alias of a port type: a path without
/// generic arguments that is not a primitive type.
fn maybe_alias(ty: &syn::Type) -> Option<String> {
    const PRIMITIVES: &[&str] = &[
        "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
        "i64", "i128", "isize", "f32", "f64", "String",
    ];
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    let bare = last.arguments.is_none() && !PRIMITIVES.contains(&&*last.ident.to_string());
    bare.then(|| crate::names::type_name(path))
}
