//! Parses sums like "1 + 2 - 3".

#[derive(Debug, PartialEq)]
pub enum ParseError {
    Empty,
    BadNumber(String),
}

pub fn parse_expr(text: &str) -> Result<i64, ParseError> {
    let mut tokens = text.split_whitespace();
    let first = tokens.next().ok_or(ParseError::Empty)?;
    let mut value = number(first)?;
    while let Some(op) = tokens.next() {
        let n = number(tokens.next().ok_or(ParseError::Empty)?)?;
        value = if op == "+" { value + n } else { value - n };
    }
    Ok(value)
}

fn number(s: &str) -> Result<i64, ParseError> {
    s.parse().map_err(|_| ParseError::BadNumber(s.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sum() {
        assert_eq!(parse_expr("1 + 2 + 3"), Ok(6));
    }

    #[test]
    fn parses_difference() {
        let v = parse_expr("10 - 4").unwrap();
        assert_eq!(v, 6);
        assert!(v > 0);
    }

    #[test]
    fn rejects_empty() {
        assert_eq!(parse_expr(""), Err(ParseError::Empty));
    }

    #[test]
    fn rejects_words() {
        assert!(matches!(parse_expr("one + 2"), Err(ParseError::BadNumber(_))));
    }
}
