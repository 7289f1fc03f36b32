
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const re = /\s*(\d+|[+-])/y;
  let m: RegExpExecArray | null = null;
  while (re.lastIndex < text.length && (m = re.exec(text))) {
    out.push(m[1]);
  }
  if (re.lastIndex < text.length) {
    throw new SyntaxError(`unexpected input at ${re.lastIndex}`);
  }
  return out;
}

export function parseExpr(text: string): number {
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

