"""A small calculator library used by the protection corpus."""

from calc.core import add, divide, mean
from calc.parser import parse_expr

__all__ = ["add", "divide", "mean", "parse_expr"]
