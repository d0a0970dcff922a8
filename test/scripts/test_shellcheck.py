"""Every shell file under scripts/ (and the fixtures' stand-in tools), and the container's
entrypoint deploy/container/braid-pod-start, is shellcheck-clean."""

import shutil
import subprocess

import pytest

from conftest import FIXTURES, SCRIPTS


def shell_files():
    files = [path for path in SCRIPTS.rglob("*")
             if path.is_file() and (path.suffix == ".bash" or path.read_text(errors="replace").startswith("#!/usr/bin/env bash"))]
    pod_start = SCRIPTS.parent / "deploy" / "container" / "braid-pod-start"
    return sorted(files) + sorted(FIXTURES.glob("*/bin/*")) + [pod_start]


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck not installed")
def test_shellcheck_clean():
    files = shell_files()
    assert any(path.name == "preflight" for path in files)
    result = subprocess.run(["shellcheck", "-x", *map(str, files)], capture_output=True, text=True,
                            cwd=SCRIPTS.parent)
    assert result.returncode == 0, result.stdout + result.stderr
