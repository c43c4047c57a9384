//! The error collector of the validation stage.
//!
//! A rule records its error and returns, and checking goes on, so that one
//! compile reports every mistake; the errors are combined at the end.

use proc_macro2::Span;
use quote::ToTokens;

/// Collects errors, as serde_derive's `Ctxt` does.
#[derive(Default)]
pub struct Ctxt {
    /// The errors recorded so far, in the order found.
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

    /// How many errors were recorded so far: a rule made of several checks
    /// compares it before and after to tell whether they all passed.
    pub fn error_count(&self) -> usize {
        self.errors.len()
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
