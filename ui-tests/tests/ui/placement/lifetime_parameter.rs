use causim::prelude::*;

#[model]
pub struct Borrower<'a> {
    name: &'a str,
}

fn main() {}
