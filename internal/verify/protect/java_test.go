package protect

import (
	"strings"
	"testing"
)

const javaBase = `package com.example.calc;

import static org.junit.jupiter.api.Assertions.*;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CalculatorTest {
    private final Calculator calc = new Calculator();

    private int twice(int x) {
        return x * 2;
    }

    @Test
    void addsNumbers() {
        assertEquals(5, calc.add(2, 3));
        assertEquals(0, calc.add(-1, 1), "negatives");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void positive(int n) {
        assertTrue(calc.add(n, 0) > 0);
    }

    @ParameterizedTest
    @CsvSource({"1, 1", "42, 42"})
    void parses(String text, int want) {
        assertThat(calc.parse(text)).isEqualTo(want);
    }

    @Test
    void rejectsEmpty() {
        assertThrows(IllegalArgumentException.class, () -> calc.parse(""));
    }

    @Nested
    class Doubling {
        @Test
        void doubles() {
            int v = twice(2);
            assertEquals(4, v);
        }
    }
}
`

func TestJavaEdits(t *testing.T) {
	f := "src/test/java/com/example/calc/CalculatorTest.java"
	base := javaBase
	cases := []edit{
		{"same", f, base, base, ""},
		{"new test", f, base, sub(base, "    @Test\n    void rejectsEmpty() {", "    @Test\n    void addsZero() {\n        assertEquals(0, calc.add(0, 0));\n    }\n\n    @Test\n    void rejectsEmpty() {"), ""},
		{"reformat and comment", f, base, sub(base, "        assertEquals(5, calc.add(2, 3));", "        // simple case\n        assertEquals(5,\n            calc.add(2, 3));"), ""},
		{"crlf", f, base, strings.ReplaceAll(base, "\n", "\r\n"), ""},
		{"helper renamed", f, base, sub(base, "private int twice(", "private int doubleIt(", "= twice(2);", "= doubleIt(2);"), ""},
		{"new file", "src/test/java/com/example/calc/OtherTest.java", "-", base, ""},
		{"production code", "src/main/java/com/example/calc/Calculator.java", "class Calculator { int add(int a, int b) { return a + b; } }\n", "class Calculator { int add(int a, int b) { return b + a; } }\n", ""},
		{"file deleted", f, base, "-", TestFileDeleted},
		{"test removed", f, base, sub(base, "    @Test\n    void rejectsEmpty() {\n        assertThrows(IllegalArgumentException.class, () -> calc.parse(\"\"));\n    }\n", ""), TestRemoved},
		{"annotation removed", f, base, sub(base, "    @Test\n    void rejectsEmpty() {", "    void rejectsEmpty() {"), TestRemoved},
		{"commented out", f, base, sub(base, "    @Test\n    void rejectsEmpty() {\n        assertThrows(IllegalArgumentException.class, () -> calc.parse(\"\"));\n    }\n", "    // @Test\n    // void rejectsEmpty() {\n    //     assertThrows(IllegalArgumentException.class, () -> calc.parse(\"\"));\n    // }\n"), TestCommentedOut},
		{"assertion removed", f, base, sub(base, "        assertEquals(0, calc.add(-1, 1), \"negatives\");\n", ""), AssertionRemoved},
		{"loosened", f, base, sub(base, "assertEquals(5, calc.add(2, 3));", "assertNotNull(calc.add(2, 3));"), AssertionLoosened},
		{"loosened assertj", f, base, sub(base, "assertThat(calc.parse(text)).isEqualTo(want);", "assertThat(calc.parse(text)).isNotNull();"), AssertionLoosened},
		{"trivial", f, base, sub(base, "assertTrue(calc.add(n, 0) > 0);", "assertTrue(true);"), AssertionLoosened},
		{"expected changed", f, base, sub(base, "assertEquals(5, calc.add(2, 3));", "assertEquals(6, calc.add(2, 3));"), ExpectedChanged},
		{"value row removed", f, base, sub(base, "{1, 2, 3}", "{1, 2}"), TableRowsChanged},
		{"csv row changed", f, base, sub(base, `"42, 42"`, `"42, 41"`), TableRowsChanged},
		{"provider row removed", f, sub(base, "    private int twice(int x) {", "    static Stream<Arguments> pairs() {\n        return Stream.of(Arguments.of(1, 2), Arguments.of(3, 6));\n    }\n\n    private int twice(int x) {"), sub(base, "    private int twice(int x) {", "    static Stream<Arguments> pairs() {\n        return Stream.of(Arguments.of(1, 2));\n    }\n\n    private int twice(int x) {"), TableRowsChanged},
		{"disabled", f, base, sub(base, "    @Test\n    void addsNumbers() {", "    @Test\n    @Disabled(\"flaky\")\n    void addsNumbers() {"), SkipAdded},
		{"ignore", f, base, sub(base, "    @Test\n    void addsNumbers() {", "    @Test\n    @Ignore\n    void addsNumbers() {"), SkipAdded},
		{"class disabled", f, base, sub(base, "class CalculatorTest {", "@Disabled\nclass CalculatorTest {"), SkipAdded},
		{"assume false", f, base, sub(base, "        int v = twice(2);\n", "        assumeTrue(false);\n        int v = twice(2);\n"), ExpectationInverted},
		{"expected exception", f, base, sub(base, "    @Test\n    void addsNumbers() {", "    @Test(expected = AssertionError.class)\n    void addsNumbers() {"), ExpectationInverted},
		{"early return", f, base, sub(base, "        int v = twice(2);\n", "        return;\n        int v = twice(2);\n"), EarlyExit},
		{"system exit", f, base, sub(base, "        int v = twice(2);\n", "        System.exit(0);\n        int v = twice(2);\n"), EarlyExit},
		{"wrapped in try", f, base, sub(base, "        assertEquals(4, v);\n", "        try {\n            assertEquals(4, v);\n        } catch (AssertionError e) {\n        }\n"), ExpectationInverted},
		{"body changed", f, base, sub(base, "int v = twice(2);", "int v = 4;"), BodyChanged},
		{"strengthened", f, base, sub(base, "        assertEquals(4, v);\n", "        assertEquals(4, v);\n        assertTrue(v > 0);\n"), TestStrengthened},
		{"unparsable", f, base, sub(base, "void addsNumbers() {", "void addsNumbers( {"), Unparsable},
	}
	runEdits(t, cases)
}
