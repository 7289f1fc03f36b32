use calc::{add, divide, parser::parse_expr};

#[test]
fn add_then_divide() {
    let sum = add(4, 6);
    assert_eq!(divide(sum, 2), Some(5));
}

#[test]
fn parse_matches_add() {
    assert_eq!(parse_expr("2 + 3").unwrap(), add(2, 3));
}

#[test]
#[ignore = "slow: exercised nightly"]
fn big_sums() {
    let mut total = 0;
    for i in 0..1_000_000 {
        total = add(total, i);
    }
    assert_eq!(total, 499_999_500_000);
}
