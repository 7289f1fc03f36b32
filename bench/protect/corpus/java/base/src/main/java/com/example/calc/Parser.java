package com.example.calc;

/** Parses sums like "1 + 2 - 3". */
public final class Parser {
    public static int parse(String text) {
        String[] tokens = text.trim().split("\\s+");
        if (tokens.length == 0 || tokens[0].isEmpty()) {
            throw new IllegalArgumentException("empty expression");
        }
        int value = Integer.parseInt(tokens[0]);
        for (int i = 1; i + 1 < tokens.length; i += 2) {
            int n = Integer.parseInt(tokens[i + 1]);
            value = tokens[i].equals("+") ? value + n : value - n;
        }
        return value;
    }
}
