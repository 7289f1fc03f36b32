"""chanto's pytest report: what --junitxml would say of each test, and
nothing else. One JSON object a line for each phase of a test (setup,
call, teardown) and for each collection that failed or was skipped,
written when the session ends to the file $CHANTO_PYTEST_REPORT names,
closed by an "end" line. chanto loads it with -p from its own temporary
folder; the reports are read from pytest's hooks, never changed."""
import json
import os

_records = []
_enabled = True


def _message(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    msg = crash.message if crash is not None else str(report.longrepr or "")
    return msg.strip().split("\n", 1)[0][:300]


def pytest_configure(config):
    # An xdist worker's reports reach the controller, which writes them.
    global _enabled
    _enabled = not hasattr(config, "workerinput")


def pytest_runtest_logreport(report):
    rec = {"n": report.nodeid, "w": report.when, "o": report.outcome,
           "d": round(getattr(report, "duration", 0.0) or 0.0, 6)}
    if hasattr(report, "wasxfail"):
        rec["x"] = 1
    if report.outcome == "failed":
        rec["m"] = _message(report)
    _records.append(rec)


def pytest_collectreport(report):
    if report.outcome != "passed":
        rec = {"n": report.nodeid, "w": "collect", "o": report.outcome}
        if report.outcome == "failed":
            rec["m"] = _message(report)
        _records.append(rec)


def pytest_internalerror(excrepr):
    _records.append({"n": "", "w": "internal", "o": "failed",
                     "m": str(excrepr).strip().split("\n", 1)[0][:300]})


def pytest_sessionfinish(session):
    path = os.environ.get("CHANTO_PYTEST_REPORT")
    if not _enabled or not path:
        return
    with open(path, "w") as f:
        for rec in _records:
            f.write(json.dumps(rec) + "\n")
        f.write('{"end": 1}\n')
