//! The whole integration suite on the multi-threaded executor, 4 threads.
//!
//! Each suite file loads `common` as its own module, as it does in its own
//! target: the duplicate modules are intended.
#![allow(clippy::duplicate_mod)]

include!("matrix/suite.rs");
