"use strict";

function tokenize(text) {
  const out = [];
  const re = /\s*(\d+|[+-])/y;
  let m;
  while (re.lastIndex < text.length && (m = re.exec(text))) {
    out.push(m[1]);
  }
  if (re.lastIndex < text.length) {
    throw new SyntaxError(`unexpected input at ${re.lastIndex}`);
  }
  return out;
}

function parseExpr(text) {
  const tokens = tokenize(text);
  if (tokens.length === 0) {
    throw new SyntaxError("empty expression");
  }
  let value = Number(tokens[0]);
  for (let i = 1; i < tokens.length; i += 2) {
    const n = Number(tokens[i + 1]);
    value = tokens[i] === "+" ? value + n : value - n;
  }
  return value;
}

module.exports = { tokenize, parseExpr };
