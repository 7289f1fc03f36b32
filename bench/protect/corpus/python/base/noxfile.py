"""Sessions for the calc package."""

import nox


@nox.session(python=["3.11", "3.12"])
def tests(session):
    session.install("-e", ".", "pytest")
    session.run("pytest", "tests", *session.posargs)


@nox.session
def lint(session):
    session.install("ruff")
    session.run("ruff", "check", "calc", "tests")
