"""scripts/demo and scripts/build against fakes of meson, ninja, scripts/deps and braid: the demo
builds only what it runs (braid, braidctl), scripts/test's build still builds everything."""

import os
import shutil
import subprocess

import pytest

from conftest import SCRIPTS

FAKE_TOOL = """#!/bin/sh
echo "$(basename "$0") $*" >> "$FAKE_LOG"
if [ "$(basename "$0")" = meson ] && [ "$1" = setup ]; then mkdir -p "$2" && : > "$2/build.ninja"; fi
"""


@pytest.fixture
def tree(tmp_path):
    """A copy of scripts/demo and scripts/build, a scripts/deps that installs nothing, fake meson
    and ninja on PATH that log their arguments, and a fake braid that prints its own."""
    (tmp_path / "scripts").mkdir()
    for name in ("demo", "build"):
        shutil.copy2(SCRIPTS / name, tmp_path / "scripts" / name)
    deps = tmp_path / "scripts" / "deps"
    deps.write_text("#!/bin/sh\nexit 0\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("meson", "ninja"):
        (bin_dir / tool).write_text(FAKE_TOOL)
    braid = tmp_path / "build" / "app" / "braid" / "braid"
    braid.parent.mkdir(parents=True)
    braid.write_text('#!/bin/sh\necho "braid $*" >> "$FAKE_LOG"\n')
    for path in (deps, bin_dir / "meson", bin_dir / "ninja", braid):
        path.chmod(0o755)
    return tmp_path


def run(tree, *command):
    env = {**os.environ, "PATH": f"{tree / 'bin'}:{os.environ['PATH']}", "FAKE_LOG": str(tree / "log")}
    result = subprocess.run([str(tree / "scripts" / command[0]), *command[1:]], capture_output=True,
                            text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    return (tree / "log").read_text().splitlines()


def test_demo_builds_only_braid_and_braidctl(tree):
    log = run(tree, "demo", "--duration", "5")
    assert log[0] == "meson setup build --buildtype=release -Dunity=on"
    # Before: "ninja -C build -j N", every test and benchmark of the tree.
    assert log[1] == f"meson compile -C build -j {len(os.sched_getaffinity(0))} braid braidctl", log
    assert not [line for line in log if line.startswith("ninja")], log
    assert log[2] == "braid --duration 5"


def test_build_without_targets_builds_everything(tree):
    # What scripts/test runs: the tests and benchmarks need the whole tree.
    assert run(tree, "build", "asan")[-1] == f"ninja -C build-asan -j {len(os.sched_getaffinity(0))}"


def test_build_dry_run_names_the_targets(tree):
    result = subprocess.run([str(tree / "scripts" / "build"), "release", "--targets", "braid,braidctl",
                             "--dry-run"], capture_output=True, text=True, timeout=60)
    assert "run meson compile -C build braid braidctl" in result.stdout, result.stdout
    result = subprocess.run([str(tree / "scripts" / "build"), "--targets"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2 and "--targets needs" in result.stderr
