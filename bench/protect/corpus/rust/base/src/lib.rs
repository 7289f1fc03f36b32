//! A small calculator used by the protection corpus.

pub mod parser;

/// Adds two numbers.
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Divides a by b, or returns None when b is zero.
pub fn divide(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        None
    } else {
        Some(a / b)
    }
}

/// Returns the mean of the values.
pub fn mean(values: &[f64]) -> f64 {
    assert!(!values.is_empty(), "mean of empty slice");
    values.iter().sum::<f64>() / values.len() as f64
}

fn twice(x: i64) -> i64 {
    x * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn adds_small_numbers() {
        assert_eq!(add(2, 3), 5);
        assert_eq!(add(-1, 1), 0);
    }

    #[test]
    fn divides() {
        assert_eq!(divide(6, 3), Some(2));
        assert_eq!(divide(7, 2), Some(3));
        assert!(divide(1, 0).is_none());
    }

    #[test]
    fn means() {
        let m = mean(&[1.0, 2.0, 3.0, 4.0]);
        assert!(close(m, 2.5), "mean was {}", m);
    }

    #[test]
    #[should_panic(expected = "mean of empty slice")]
    fn mean_of_nothing_panics() {
        mean(&[]);
    }

    #[test]
    fn doubles() {
        let v = twice(21);
        assert_eq!(v, 42);
        assert_ne!(v, 0);
    }

    mod nested {
        use super::super::add;

        #[test]
        fn adds_zero() {
            assert_eq!(add(0, 0), 0);
        }
    }
}
