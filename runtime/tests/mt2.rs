//! The whole integration suite on the multi-threaded executor, 2 threads.
//!
//! Each suite file loads `common` as its own module, as it does in its own
//! target: the duplicate modules are intended.
#![allow(clippy::duplicate_mod)]

include!("matrix/suite.rs");

/// Every test file is either in the matrix or explicitly left out.
#[test]
fn matrix_is_complete() {
    let listed = include_str!("matrix/suite.rs");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(dir).expect("tests/ is readable") {
        let name = entry.expect("a directory entry").file_name();
        let name = name.to_string_lossy().into_owned();
        let in_matrix = listed.contains(&format!("\"../{name}\""));
        if name.ends_with(".rs") && !in_matrix && !NOT_IN_MATRIX.contains(&name.as_str()) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "add these to tests/matrix/suite.rs (or to NOT_IN_MATRIX): {missing:?}"
    );
}
