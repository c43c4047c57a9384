//! trybuild cases of causim live in `tests/ui/`; see `tests/ui.rs`.
