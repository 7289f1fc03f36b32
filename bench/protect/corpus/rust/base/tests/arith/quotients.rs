use calc::divide;

#[test]
fn divide_by_zero_is_none() {
    assert_eq!(divide(1, 0), None);
}
