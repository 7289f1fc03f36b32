import { describe, expect, it, test } from "vitest";
import { add, divide, mean } from "../src/calc";

function closeTo(a: number, b: number): boolean {
  return Math.abs(a - b) < 1e-9;
}

describe("add", () => {
  it("adds small numbers", () => {
    expect(add(2, 3)).toBe(5);
    expect(add(-1, 1)).toBe(0);
  });

  it("adds floats", () => {
    expect(closeTo(add(0.1, 0.2), 0.3)).toBe(true);
  });
});

describe("divide", () => {
  test.each([
    [6, 3, 2],
    [7, 2, 3.5],
    [-9, 3, -3],
  ])("divide(%i, %i) = %d", (a: number, b: number, expected: number) => {
    expect(divide(a, b)).toBe(expected);
  });

  it("throws on zero", () => {
    expect(() => divide(1, 0)).toThrow(RangeError);
  });
});

describe("mean", () => {
  const numbers: number[] = [1, 2, 3, 4];

  it("averages numbers", () => {
    const result = mean(numbers);
    expect(result).toEqual(2.5);
    expect(typeof result).toBe("number");
  });

  it("rejects empty input", () => {
    expect(() => mean([])).toThrow("mean of empty list");
  });
});

describe("add table", () => {
  const sums = [
    { a: 1, b: 2, want: 3 },
    { a: -1, b: 1, want: 0 },
  ] as const;

  for (const s of sums) {
    it(`adds ${s.a} and ${s.b}`, () => {
      expect(add(s.a, s.b)).toBe(s.want);
    });
  }
});
