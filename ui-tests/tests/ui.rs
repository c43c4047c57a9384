//! Compile-time diagnostics of causim, checked with trybuild.
//!
//! Each `ui/<category>/<case>.rs` must fail to compile with exactly the
//! message kept in the `.stderr` beside it; each `ui/pass/<case>.rs` must
//! compile and run. Regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test -p causim-ui-tests`, then read them.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    for category in [
        "attributes",
        "composite",
        "connect",
        "generics",
        "naming",
        "payload",
        "placement",
        "signature",
    ] {
        cases.compile_fail(format!("tests/ui/{category}/*.rs"));
    }
}
