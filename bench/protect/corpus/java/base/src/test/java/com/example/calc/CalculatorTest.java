package com.example.calc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CalculatorTest {
    private Calculator calc;

    @BeforeEach
    void setUp() {
        calc = new Calculator();
    }

    private static boolean close(double a, double b) {
        return Math.abs(a - b) < 1e-9;
    }

    @Test
    @DisplayName("adds small numbers")
    void addsSmallNumbers() {
        assertEquals(5, calc.add(2, 3));
        assertEquals(0, calc.add(-1, 1), "negatives cancel");
    }

    @ParameterizedTest
    @CsvSource({"6, 3, 2", "7, 2, 3", "-9, 3, -3"})
    void divides(int a, int b, int expected) {
        assertEquals(expected, calc.divide(a, b));
    }

    @Test
    void divideByZeroThrows() {
        ArithmeticException e = assertThrows(ArithmeticException.class, () -> calc.divide(1, 0));
        assertThat(e).hasMessage("division by zero");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 100})
    void addingZeroIsIdentity(int n) {
        assertThat(calc.add(n, 0)).isEqualTo(n);
    }

    @Nested
    class Mean {
        @Test
        void averagesNumbers() {
            double m = calc.mean(List.of(1.0, 2.0, 3.0, 4.0));
            assertTrue(close(m, 2.5), "mean was " + m);
        }

        @Test
        void rejectsEmpty() {
            assertThrows(IllegalArgumentException.class, () -> calc.mean(List.of()));
        }
    }
}
