#!/usr/bin/env python3
"""Prints, for every meson test that failed, the lines that say what failed: GoogleTest's
failure lines and the names of the failed tests, pytest's assertion lines and FAILED summary.
scripts/test prints it last, so the end of a CI log (often all that is kept) names the failures
of every suite, not only the last one's.

Usage: test/failure_digest.py BUILD_DIR"""
import json
import re
import sys
from pathlib import Path

MARKERS = re.compile(
    r"^\[  FAILED  \]|: Failure$|^\s*(Expected|Actual|Value of|Which is)|"  # GoogleTest
    r"^FAILED |^E   |^ERROR |"  # pytest
    r"ERROR: AddressSanitizer|runtime error:|Timeout")
MAX_LINES_PER_TEST = 40


def digest(build_dir):
    log = Path(build_dir) / "meson-logs" / "testlog.json"
    if not log.exists():
        return [f"failure digest: no {log}"]
    out = []
    for line in log.read_text(errors="replace").splitlines():
        test = json.loads(line)
        if test.get("result") in ("OK", "SKIP", "EXPECTEDFAIL"):
            continue
        out.append(f"--- {test['name']}: {test['result']} after {test.get('duration', 0):.0f} s")
        text = (test.get("stdout") or "") + "\n" + (test.get("stderr") or "")
        found = [l for l in text.splitlines() if MARKERS.search(l)]
        for l in found[:MAX_LINES_PER_TEST]:
            out.append("    " + l[:300])
        if len(found) > MAX_LINES_PER_TEST:
            out.append(f"    ... {len(found) - MAX_LINES_PER_TEST} more")
        if not found:
            out.append("    (no failure line found; the last lines:)")
            out.extend("    " + l[:300] for l in text.splitlines()[-10:])
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    lines = digest(sys.argv[1])
    if lines:
        print("\n=== what failed (from meson-logs/testlog.json) ===")
        print("\n".join(lines))
