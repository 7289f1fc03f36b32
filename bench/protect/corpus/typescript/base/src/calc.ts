export function add(a: number, b: number): number {
  return a + b;
}

export function divide(a: number, b: number): number {
  if (b === 0) {
    throw new RangeError("division by zero");
  }
  return a / b;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) {
    throw new Error("mean of empty list");
  }
  return values.reduce((s, v) => s + v, 0) / values.length;
}
