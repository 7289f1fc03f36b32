"use strict";

function add(a, b) {
  return a + b;
}

function divide(a, b) {
  if (b === 0) {
    throw new RangeError("division by zero");
  }
  return a / b;
}

function mean(values) {
  if (values.length === 0) {
    throw new Error("mean of empty list");
  }
  return values.reduce((s, v) => s + v, 0) / values.length;
}

module.exports = { add, divide, mean };
