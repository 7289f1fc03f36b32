//! Arithmetic cases, one module per operation, kept in tests/arith/.

#[path = "arith/sums.rs"]
mod sums;

#[path = "arith/quotients.rs"]
mod quotients;

mod common;
