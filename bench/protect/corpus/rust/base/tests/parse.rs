use calc::parser::parse_expr as parse;

mod common;

#[test]
fn parses_a_sum() {
    assert_eq!(parse("1 + 2").unwrap(), 3);
}

#[test]
fn rejects_garbage() {
    assert!(parse("1 +").is_err());
}
