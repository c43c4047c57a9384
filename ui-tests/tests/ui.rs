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
    // `#[model(save)]`: its diagnostics with causim's feature `save`, and
    // the one without it (`cargo test -p causim-ui-tests --features save`
    // runs the first set; CI runs both).
    if cfg!(feature = "save") {
        cases.pass("tests/ui/save_pass/*.rs");
        cases.compile_fail("tests/ui/save/*.rs");
    } else {
        cases.compile_fail("tests/ui/save_off/*.rs");
    }
}
