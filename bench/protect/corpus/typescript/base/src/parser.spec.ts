import assert from "node:assert";
import { describe, expect, test } from "vitest";
import { tokenize, parseExpr } from "./parser";

describe("parser", () => {
  test("tokenize splits numbers and operators", () => {
    expect(tokenize("1 + 22")).toStrictEqual(["1", "+", "22"]);
  });

  test("parses sums", () => {
    assert.strictEqual(parseExpr("1 + 2 + 3"), 6);
  });

  test("parses differences", async () => {
    const value: number = await Promise.resolve(parseExpr("10 - 4"));
    assert.equal(value, 6);
    expect(value).toBeGreaterThan(0);
  });

  test("rejects bad input", () => {
    expect(() => tokenize("1 * 2")).toThrow(SyntaxError);
  });
});
