package com.example.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ParserTest {
    @Test
    void parsesSum() {
        assertEquals(6, Parser.parse("1 + 2 + 3"));
    }

    @Test
    void parsesDifference() {
        int v = Parser.parse("10 - 4");
        assertEquals(6, v);
        assertTrue(v > 0);
    }

    @Test
    void rejectsEmpty() {
        assertThrows(IllegalArgumentException.class, () -> Parser.parse("  "));
    }
}
