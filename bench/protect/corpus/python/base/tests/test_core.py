import math

import pytest

from calc import add, divide, mean


def approx_equal(a, b, tol=1e-9):
    return abs(a - b) <= tol


def test_add_small_numbers():
    assert add(2, 3) == 5
    assert add(-1, 1) == 0


def test_add_floats():
    assert approx_equal(add(0.1, 0.2), 0.3)


@pytest.mark.parametrize(
    "a,b,expected",
    [
        (6, 3, 2),
        (7, 2, 3.5),
        (-9, 3, -3),
    ],
)
def test_divide(a, b, expected):
    assert divide(a, b) == expected


def test_divide_by_zero():
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        divide(1, 0)


class TestMean:
    def test_mean_of_numbers(self, numbers):
        result = mean(numbers)
        assert result == 2.5
        assert isinstance(result, float)

    def test_mean_empty(self, empty):
        with pytest.raises(ValueError):
            mean(empty)

    def test_mean_single(self):
        assert mean([7]) == 7
        assert not math.isnan(mean([7]))
