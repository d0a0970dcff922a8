"""The braid binary as an operator meets it: --help/--version, --check on good and broken
configs, the built-in demo moving packets, and a clean shutdown on SIGINT/SIGTERM."""

import os
import pathlib
import re
import signal
import subprocess
import time

import pytest

BRAID = os.environ.get("BRAID", "build-asan/app/braid/braid")
SOURCE_ROOT = pathlib.Path(os.environ.get("BRAID_SOURCE_ROOT", pathlib.Path(__file__).parents[2]))


def braid(*args, timeout=60):
    return subprocess.run([BRAID, *args], capture_output=True, text=True, timeout=timeout)


def unique_prefix(tag):
    return f"--file-prefix=braid-cli-{tag}-{os.getpid()}"


def test_version_and_help():
    assert re.match(r"braid \d+\.\d+\.\d+", braid("--version").stdout)
    help_text = braid("--help").stdout
    for option in ("--config", "--check", "--duration", "--version", "--help"):
        assert option in help_text


def test_unknown_option_is_a_usage_error():
    result = braid("--frobnicate")
    assert result.returncode == 2
    assert "unknown option --frobnicate" in result.stderr


def test_builtin_demo_config_checks():
    result = braid("--check")
    assert result.returncode == 0, result.stderr
    assert "valid" in result.stdout


@pytest.mark.parametrize("config", sorted((SOURCE_ROOT / "config").glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_config_checks(config):
    result = braid("--config", str(config), "--check")
    assert result.returncode == 0, result.stderr


def test_broken_config_names_file_line_and_key(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("ports:\n  - name: p2\n    device: net_null0\n    rx_queues: 0\n")
    result = braid("--config", str(broken), "--check")
    assert result.returncode == 1
    assert f'config: {broken}:4: ports[0] "p2".rx_queues: must be 1..64, got 0' in result.stderr


def test_missing_config_file():
    result = braid("--config", "/nonexistent/braid.yaml", "--check")
    assert result.returncode == 1
    assert "cannot open file" in result.stderr


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_config_that_is_not_a_regular_file_is_refused_at_once(tmp_path, kind):
    path = {"fifo": tmp_path / "fifo.yaml", "directory": tmp_path, "device": pathlib.Path("/dev/zero")}[kind]
    if kind == "fifo":
        os.mkfifo(path)
    # Before: a FIFO waited for a writer for ever, /dev/zero was read until memory ran out.
    result = braid("--config", str(path), "--check", timeout=10)
    assert result.returncode == 1
    what = {"fifo": "a FIFO", "directory": "a directory", "device": "a character device"}[kind]
    assert f"config: {path}: is {what}, not a regular file" in result.stderr, result.stderr


def test_config_over_a_mebibyte_is_refused(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("#" + "x" * (1 << 20) + "\n")
    result = braid("--config", str(big), "--check")
    assert result.returncode == 1
    assert "is more than a config file may have (1048576 bytes, 1 MiB)" in result.stderr


def test_duplicate_key_names_both_lines(tmp_path):
    config = tmp_path / "dup.yaml"
    config.write_text((SOURCE_ROOT / "config" / "demo.yaml").read_text() +
                      "bonds:\n  - {name: uplink, members: [m0, nonexistent]}\n")
    result = braid("--config", str(config), "--check")
    assert result.returncode == 1
    assert re.search(r'dup.yaml:\d+: top level: duplicate key "bonds" \(first at line \d+\)', result.stderr), \
        result.stderr


def test_file_prefix_that_is_a_path_is_refused(tmp_path):
    config = tmp_path / "prefix.yaml"
    config.write_text("eal: {file_prefix: ../../../tmp/x}\n" +
                      (SOURCE_ROOT / "config" / "demo.yaml").read_text())
    result = braid("--config", str(config), "--check")
    assert result.returncode == 1
    assert f"config: {config}:1: eal.file_prefix: \"../../../tmp/x\" has '/'" in result.stderr, result.stderr


def test_demo_moves_packets_and_accounts_for_all_of_them():
    result = braid("--duration", "3", "--stats-interval", "500", "--", unique_prefix("demo"),
                   timeout=120)
    assert result.returncode == 0, result.stderr
    rates = re.findall(r"\] offered ([\d.]+)([kMG]?)pps", result.stdout)
    assert len(rates) >= 3, result.stdout
    assert any(float(value) > 0 for value, _ in rates), result.stdout
    # The stats fit a terminal: a head line, one line per bond, one for the other ports.
    periodic = result.stdout.split("final counters:")[0]
    stats = [line for line in periodic.splitlines()
             if re.match(r"\[\s*[\d.]+s\] offered |  (uplink|switch|ports|drops)[ :]|     ", line)]
    assert stats and all(len(line) <= 80 for line in stats), stats
    # The demo's packets are received twice (wire, then a switch member over the in-process
    # cables) but offered once: the offered rate is wire's rx rate, not twice it.
    blocks = re.findall(r"\] offered (\S+)pps .*\n(?:  .*\n)*?  ports rx/tx: wire (\S+)/",
                        result.stdout)
    assert blocks and all(offered == wire for offered, wire in blocks), result.stdout
    assert "no free hugepages" in result.stdout or "--no-huge" not in result.stdout
    assert re.search(r"accounting: rx (\d+) = tx \d+ \+ dropped \d+ \+ to control \d+ \+ in flight 0: balanced",
                     result.stdout), result.stdout
    received = int(re.search(r"accounting: rx (\d+)", result.stdout).group(1))
    assert received > 0


@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM])
def test_signal_stops_cleanly_with_final_counters(signal_number):
    process = subprocess.Popen([BRAID, "--stats-interval", "200", "--", unique_prefix(signal_number)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        seen = ""
        while "forwarding;" not in seen and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            seen += line
        assert "forwarding;" in seen, seen + process.stderr.read()
        time.sleep(1)
        process.send_signal(signal_number)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert f"signal {int(signal_number)}: stopping" in out
    assert "final counters:" in out
    assert "balanced" in out


def start_demo(prefix, *extra):
    """A demo braid started until it prints "forwarding"; the caller stops it (by PID)."""
    process = subprocess.Popen([BRAID, "--stats-interval", "0", *extra, "--",
                                f"--file-prefix={prefix}"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    seen = ""
    while "forwarding;" not in seen and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen += line
    assert "forwarding;" in seen, seen
    return process


def stop_demo(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_a_file_prefix_in_use_names_the_process_that_holds_it(tmp_path):
    prefix = f"braid-cli-held-{os.getpid()}"
    first = start_demo(prefix, "--control-socket", str(tmp_path / "first.sock"))
    try:
        result = braid("--duration", "1", "--control-socket", str(tmp_path / "second.sock"), "--",
                       f"--file-prefix={prefix}")
        assert result.returncode == 1
        assert (f'file prefix "{prefix}" is in use by process {first.pid}' in result.stderr), \
            result.stderr
        assert "EAL initialisation failed: Success" not in result.stderr
        assert "forwarding" not in result.stdout
    finally:
        stop_demo(first)


def test_a_control_socket_in_use_stops_start_up_before_anything_forwards(tmp_path):
    socket_path = tmp_path / "braid.sock"
    first = start_demo(f"braid-cli-sock1-{os.getpid()}", "--control-socket", str(socket_path))
    try:
        result = braid("--duration", "1", "--control-socket", str(socket_path), "--",
                       f"--file-prefix=braid-cli-sock2-{os.getpid()}")
        assert result.returncode == 1
        assert f"{socket_path} is in use by a running braid" in result.stderr, result.stderr
        assert "forwarding" not in result.stdout
        # Nothing left behind: no EAL run directory of the second prefix holds a lock, and the
        # first braid still answers on its socket.
        assert socket_path.exists()
    finally:
        stop_demo(first)
    taken = tmp_path / "not-a-socket"
    taken.write_text("a regular file\n")
    result = braid("--duration", "1", "--control-socket", str(taken), "--",
                   f"--file-prefix=braid-cli-sock3-{os.getpid()}")
    assert result.returncode == 1
    assert "exists and is not a socket" in result.stderr, result.stderr
    assert taken.read_text() == "a regular file\n"
