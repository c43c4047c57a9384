//! The rules of `#[model]`, one module per kind of rule.
//!
//! Each rule records its errors in the [`Ctxt`](super::Ctxt) and tells
//! whether what it checked passed, so that the caller can leave a broken
//! port out of the generated code and go on checking the rest.

mod arguments;
mod item;
mod message_type;
mod naming;
mod payload;
mod roles;
mod signature;

pub use arguments::{check_args, check_marker_attr, check_typos};
pub use item::{check_generics, check_inherent, check_misplaced, model_name};
pub use naming::{check_not_named_ports, generated_names, VariantNames};
pub use payload::{check_payload, check_reply};
pub use roles::{check_one_init, check_roles};
pub use signature::check_signature;
