#!/usr/bin/env python3
"""The limits table of doc/config.md and doc/man/braid.yaml.5.md, generated from the config
loader's own range checks (config_limits, test/docs/config_limits.cpp, reading
config/every-section.yaml). test_man_pages.py checks both; after changing a range or adding a
key, regenerate them:

  test/docs/config_limits.py --update [--tool build-asan/test/docs/config_limits]
"""

import argparse
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "config/every-section.yaml"
DOCS = [ROOT / "doc/config.md", ROOT / "doc/man/braid.yaml.5.md"]
BLOCK = re.compile(r"(<!-- limits: generated[^\n]*-->\n)(.*?)(<!-- /limits -->)", re.S)


def generated_table(tool):
    return subprocess.run([tool, str(REFERENCE)], capture_output=True, text=True, check=True,
                          timeout=60).stdout


def documented_table(path):
    match = BLOCK.search(path.read_text())
    return match.group(2) if match else None


def update(path, table):
    text = path.read_text()
    assert BLOCK.search(text), f"{path} has no <!-- limits: generated ... --> block"
    path.write_text(BLOCK.sub(lambda m: m.group(1) + table + m.group(3), text))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", default=os.environ.get(
        "BRAID_CONFIG_LIMITS", str(ROOT / "build-asan/test/docs/config_limits")))
    parser.add_argument("--update", action="store_true", help="rewrite the docs' tables")
    args = parser.parse_args()
    table = generated_table(args.tool)
    stale = [path for path in DOCS if documented_table(path) != table]
    if args.update:
        for path in stale:
            update(path, table)
            print(f"config_limits: {path.relative_to(ROOT)} regenerated")
        return 0
    for path in stale:
        print(f"config_limits: {path.relative_to(ROOT)}'s limits table is not the loader's; "
              "run test/docs/config_limits.py --update", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
