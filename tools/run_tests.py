"""Run the tests on every core: one pytest process per core, each claiming groups of tests as it
finishes the last (tests/conftest.py), then each process's report; flags after -- go to pytest.

    python tools/run_tests.py                 # all of them: about 1.5 minutes on 2 cores
    python tools/run_tests.py -- -x -k v8     # the flags after -- go on to each pytest
    python -m pytest                          # the same tests in one process

The first process reports as it goes; the others' reports follow when they end. Exit status:
0 when every process passed, else the first failing process's (1: a test failed).
"""
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, ArgumentParser, command  # noqa: E402

NO_TESTS = 5  # pytest's status for "no test collected": -k left none


def cores():
    """The cores this process may use (Linux knows; elsewhere, the machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    if os.cpu_count() is None:  # unknown
        return 1
    return os.cpu_count()


def show(shares):
    """The reports the processes after the first kept, in order."""
    for _, report in shares:
        if report is not None:
            report.seek(0)
            sys.stdout.flush()
            sys.stdout.buffer.write(report.read())
            sys.stdout.flush()


@command
def main(argv=None):
    args = ArgumentParser(__file__, __doc__).parse_with_extra(argv)
    n = cores()
    env = dict(os.environ)
    env.pop("TESTS_CLAIMS", None)  # one process: every test
    if n == 1:
        return subprocess.call([sys.executable, "-m", "pytest", *args.extra], cwd=ROOT, env=env)
    # no percentages: each process runs only the tests it claims, not known in advance
    pytest = [sys.executable, "-m", "pytest", "-o", "console_output_style=classic", *args.extra]
    with tempfile.TemporaryDirectory() as claims:  # where the processes claim groups of tests
        env["TESTS_CLAIMS"] = claims
        codes = run_all(pytest, env, n)
    failed = [code for code in codes if code not in (0, NO_TESTS)]
    if failed:
        return failed[0]
    if all(code == NO_TESTS for code in codes):
        return NO_TESTS
    return 0


def run_all(pytest, env, n):
    """n pytest processes at once, each one's report shown (the first's as it goes); their exit
    statuses."""
    shares = []
    for k in range(n):
        if k == 0:
            report = None  # straight to the terminal
        else:
            report = tempfile.TemporaryFile()
        process = subprocess.Popen(pytest, cwd=ROOT, env=env, stdout=report,
                                   stderr=subprocess.STDOUT)
        shares.append((process, report))
    try:
        codes = [process.wait() for process, _ in shares]
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM or SIGHUP: every pytest stops too, and reports
        for process, _ in shares:
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
        for process, _ in shares:
            process.wait()
        show(shares)
        raise
    show(shares)
    return codes

if __name__ == "__main__":
    sys.exit(main())
