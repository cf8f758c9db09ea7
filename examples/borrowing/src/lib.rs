//! Nothing but the tests: `tests/borrowing.rs`.
