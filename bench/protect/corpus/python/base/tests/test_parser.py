import unittest

from calc.parser import parse_expr, tokenize


class TokenizeTest(unittest.TestCase):
    def test_tokens(self):
        self.assertEqual(tokenize("1 + 22"), ["1", "+", "22"])

    def test_bad_input(self):
        with self.assertRaises(SyntaxError):
            tokenize("1 * 2")


class ParseTest(unittest.TestCase):
    def test_sum(self):
        self.assertEqual(parse_expr("1 + 2 + 3"), 6)

    def test_difference(self):
        value = parse_expr("10 - 4")
        self.assertEqual(value, 6)
        self.assertGreater(value, 0)

    def test_empty(self):
        self.assertRaises(SyntaxError, parse_expr, "")


SUMS = [
    ("1 + 2", 3),
    ("2 + 2", 4),
]


def test_sums():
    for text, want in SUMS:
        assert parse_expr(text) == want


if __name__ == "__main__":
    unittest.main()
