"""Arithmetic helpers."""


def add(a, b):
    return a + b


def divide(a, b):
    if b == 0:
        raise ZeroDivisionError("division by zero")
    return a / b


def mean(values):
    if not values:
        raise ValueError("mean of empty sequence")
    total = 0
    for v in values:
        total += v
    return total / len(values)
