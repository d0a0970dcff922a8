"""Shared helpers for the deployment-script tests: run a script from scripts/ against a fixture
tree (fixtures/tuned, fixtures/untuned) and parse preflight's report."""

import os
import pathlib
import re
import shutil
import subprocess

import pytest

SOURCE_ROOT = pathlib.Path(os.environ.get("BRAID_SOURCE_ROOT", pathlib.Path(__file__).parents[2]))
SCRIPTS = SOURCE_ROOT / "scripts"
FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
BRAID = os.environ.get("BRAID", str(SOURCE_ROOT / "build-asan/app/braid/braid"))
REPORT_LINE = re.compile(r"^(PASS|WARN|FAIL|SKIP) ([^:]+): (.+)$")

# git keeps no empty directories, but a fake sysfs needs some (a loaded module with no
# parameters, a driver with no devices, no IOMMU groups): recreate them in a fresh checkout.
for _empty in (FIXTURES / "empty_dirs.txt").read_text().split():
    (FIXTURES / _empty).mkdir(parents=True, exist_ok=True)


def run_script(name, *args, machine=None, extra_path=None, timeout=120):
    """Runs scripts/<name> with args; machine points --sysfs/--procfs at a fixture tree (a name
    under fixtures/ or a path to a copy)."""
    command = [str(SCRIPTS / name), *map(str, args)]
    if machine is not None:
        root = FIXTURES / machine if isinstance(machine, str) else pathlib.Path(machine)
        command += ["--sysfs", str(root / "sys"), "--procfs", str(root / "proc")]
    env = dict(os.environ)
    if extra_path:
        env["PATH"] = f"{extra_path}:{env['PATH']}"
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


def preflight(machine, config, *args, qos_tools=None):
    """preflight against a fixture machine; its fake mlnx_qos answers for the PFC check."""
    tools = FIXTURES / (qos_tools or machine) / "bin" if isinstance(machine, str) else qos_tools
    return run_script("preflight", "--config", FIXTURES / config, "--braid", BRAID, *args,
                      machine=machine, extra_path=tools)


def report(result):
    """preflight's report as [(status, check, message)], asserting every line's format."""
    lines = result.stdout.splitlines()
    assert lines and lines[-1].startswith("preflight: "), result.stdout + result.stderr
    parsed = []
    for line in lines[:-1]:
        match = REPORT_LINE.match(line)
        assert match, f"not a report line: {line!r}"
        parsed.append(match.groups())
    return parsed


def expected(name):
    """fixtures/expected/<name>.txt: one 'STATUS check' per line, in order."""
    text = (FIXTURES / "expected" / f"{name}.txt").read_text()
    return [tuple(line.split(" ", 1)) for line in text.splitlines() if line and not line.startswith("#")]


def tree_snapshot(root):
    """Every file's path and content (and symlink target) under root, to prove nothing changed."""
    snapshot = {}
    for path in sorted(pathlib.Path(root).rglob("*")):
        if path.is_symlink():
            snapshot[str(path)] = "-> " + os.readlink(path)
        elif path.is_file():
            snapshot[str(path)] = path.read_text()
    return snapshot


@pytest.fixture
def machine_copy(tmp_path):
    """A writable copy of a fixture machine, for the runs that change (fake) sysfs."""
    def copy(name):
        target = tmp_path / name
        shutil.copytree(FIXTURES / name, target, symlinks=True)
        return target
    return copy
