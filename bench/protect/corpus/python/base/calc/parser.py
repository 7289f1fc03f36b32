"""A tiny expression parser: integers joined by + and -."""

import re

TOKEN = re.compile(r"\s*(\d+|[+-])")


def tokenize(text):
    pos = 0
    out = []
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise SyntaxError(f"unexpected input at {pos}: {text[pos:]!r}")
        out.append(m.group(1))
        pos = m.end()
    return out


def parse_expr(text):
    tokens = tokenize(text)
    if not tokens:
        raise SyntaxError("empty expression")
    value = int(tokens[0])
    for op, num in zip(tokens[1::2], tokens[2::2]):
        value = value + int(num) if op == "+" else value - int(num)
    return value
