//! Helpers shared by the integration test crates.

pub fn pairs() -> Vec<(i64, i64)> {
    vec![(1, 2), (10, -4), (0, 5)]
}

#[test]
fn pairs_are_distinct() {
    let p = pairs();
    assert_ne!(p[0], p[1]);
}
