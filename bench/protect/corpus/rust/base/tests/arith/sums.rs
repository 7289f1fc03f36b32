use calc::add;

#[test]
fn sum_is_commutative() {
    for (a, b) in [(1, 2), (-3, 7), (0, 0)] {
        assert_eq!(add(a, b), add(b, a));
    }
}

#[test]
fn sum_with_zero() {
    assert_eq!(add(9, 0), 9);
}
