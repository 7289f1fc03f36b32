package com.example.calc;

import java.util.List;

/** A small calculator used by the protection corpus. */
public final class Calculator {
    public int add(int a, int b) {
        return a + b;
    }

    public int divide(int a, int b) {
        if (b == 0) {
            throw new ArithmeticException("division by zero");
        }
        return a / b;
    }

    public double mean(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("mean of empty list");
        }
        double total = 0;
        for (double v : values) {
            total += v;
        }
        return total / values.size();
    }
}
