"""The braid binary as an operator meets it: --help/--version, --check on good and broken
configs, the built-in demo moving packets, and a clean shutdown on SIGINT/SIGTERM."""

import os
import pathlib
import re
import signal
import shutil
import subprocess
import tempfile
import time

import pytest

from braidlib import stop

BRAID = os.environ.get("BRAID", "build-asan/app/braid/braid")
SOURCE_ROOT = pathlib.Path(os.environ.get("BRAID_SOURCE_ROOT", pathlib.Path(__file__).parents[2]))


def braid(*args, timeout=60):
    return subprocess.run([BRAID, *args], capture_output=True, text=True, timeout=timeout)


def unique_prefix(tag):
    return f"--file-prefix=braid-cli-{tag}-{os.getpid()}"


def test_version_and_help():
    assert re.match(r"braid \d+\.\d+\.\d+", braid("--version").stdout)
    help_text = braid("--help").stdout
    for option in ("--config", "--check", "--portable", "--duration", "--version", "--help"):
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
    # Written for other machines (their lcores, their NICs): --portable warns about this host.
    result = braid("--config", str(config), "--check", "--portable")
    assert result.returncode == 0, result.stderr
    # Warnings about the config itself name a line (those about this host do not).
    assert not re.search(r"^warning: config: [^:]+:\d+:", result.stderr, re.M), result.stderr


def test_check_warns_of_a_rate_cap_on_the_bonds_pfc_priority(tmp_path):
    """Issue 34 item 7: valid, and said: the cap drops frames of what may be a lossless priority."""
    config = tmp_path / "capped.yaml"
    config.write_text("ports:\n  - {name: host, device: net_null0}\n  - {name: m0, device: net_null1}\n"
                      "bonds:\n  - name: uplink\n    members: [m0]\n    mode: static\n"
                      "    classes: {default: bulk, list: [{name: bulk, rate_cap: {mbps: 100}}]}\n"
                      "cross_connect: [[host, uplink]]\n")
    result = braid("--config", str(config), "--check")
    assert result.returncode == 0, result.stderr
    assert (f'warning: config: {config}:8: bonds[0] "uplink".classes: class "bulk" has a rate cap '
            'and rides on PFC priority 3') in result.stderr, result.stderr


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
    # The stats line read the NIC counters on the protocol loop, their only reader (issue 33
    # item 4: ixgbe and i40e lose counts when two threads read a port).
    assert "read off the protocol loop" not in result.stderr, result.stderr


@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM])
def test_signal_stops_cleanly_with_final_counters(signal_number):
    process = subprocess.Popen([BRAID, "--stats-interval", "200", "--", unique_prefix(signal_number)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = read_until_forwarding(process)
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


def read_until_forwarding(process):
    """braid's stdout up to its "forwarding;" line (or what it printed within 60 s)."""
    deadline = time.monotonic() + 60
    seen = ""
    while "forwarding;" not in seen and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen += line
    return seen


def start_demo(prefix, *extra):
    """A demo braid started until it prints "forwarding"; the caller stops it (by PID)."""
    process = subprocess.Popen([BRAID, "--stats-interval", "0", *extra, "--",
                                f"--file-prefix={prefix}"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen = read_until_forwarding(process)
    assert "forwarding;" in seen, seen
    return process


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
        stop(first)


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
        stop(first)
    taken = tmp_path / "not-a-socket"
    taken.write_text("a regular file\n")
    result = braid("--duration", "1", "--control-socket", str(taken), "--",
                   f"--file-prefix=braid-cli-sock3-{os.getpid()}")
    assert result.returncode == 1
    assert "exists and is not a socket" in result.stderr, result.stderr
    assert taken.read_text() == "a regular file\n"


# --- what start-up would refuse, said by --check without starting EAL --------------------------

def host_cpus():
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs two CPUs (a main lcore and a worker)")
    return cpus


def absent_cpus(count):
    present = os.sched_getaffinity(0)
    return [cpu for cpu in range(127, -1, -1) if cpu not in present][:count]


def af_packet_config(tmp_path, qpairs="", main=None, workers=None):
    cpus = host_cpus()
    main = cpus[0] if main is None else main
    workers = [cpus[1]] if workers is None else workers
    path = tmp_path / "af_packet.yaml"
    path.write_text(f"""eal: {{main_lcore: {main}}}
ports:
  - {{name: host, device: net_null_cli0}}
  - {{name: m0, device: "net_af_packet_cli0,iface=lo{qpairs}"}}
bonds:
  - {{name: up, members: [m0], mode: lacp}}
cross_connect: [[host, up]]
workers: {{lcores: {workers}}}
""")
    return path


def test_check_says_a_one_queue_af_packet_member_needs_qpairs(tmp_path):
    config = af_packet_config(tmp_path)
    result = braid("--config", str(config), "--check")
    assert result.returncode == 1, result.stdout
    assert (f'config: {config}: ports[1] "m0": needs 2 TX queues (1 for the worker, 1 for its '
            f'bond\'s LACPDUs) but the device has 1; add qpairs=2 to its device string '
            f'("net_af_packet_cli0,iface=lo,qpairs=2")') in result.stderr, result.stderr
    assert "EAL" not in result.stdout + result.stderr  # said without starting DPDK
    # --portable does not excuse it: the config itself is wrong, on every machine.
    assert braid("--config", str(config), "--check", "--portable").returncode == 1
    result = braid("--config", str(af_packet_config(tmp_path, ",qpairs=1")), "--check")
    assert "raise qpairs= in its device string" in result.stderr and "to 2" in result.stderr, result.stderr
    result = braid("--config", str(af_packet_config(tmp_path, ",qpairs=2")), "--check")
    assert result.returncode == 0, result.stderr


def host_port_config(tmp_path, device, workers=None):
    cpus = host_cpus()
    workers = [cpus[1]] if workers is None else workers
    path = tmp_path / "host-port.yaml"
    path.write_text(f"""eal: {{main_lcore: {cpus[0]}}}
ports:
  - {{name: host, device: "{device}"}}
  - {{name: m0, device: net_null_cli1}}
bonds:
  - {{name: up, members: [m0]}}
cross_connect: [[host, up]]
workers: {{lcores: {workers}}}
""")
    return path


def test_a_missing_vhost_net_is_explained_at_check_and_at_start_up(tmp_path):
    vhost = tmp_path / "vhost-net"  # absent: what a host without the vhost_net module has
    config = host_port_config(tmp_path, f"virtio_user0,path={vhost},queues=1,iface=braid0")
    said = (f'ports[0] "host": device "virtio_user0,path={vhost},queues=1,iface=braid0": '
            f'{vhost} does not exist: this host has no vhost-net (load it: modprobe vhost_net); '
            f'without it use a net_tap host port instead, device "net_tap0,iface=braid0"')
    result = braid("--config", str(config), "--check")
    assert result.returncode == 1 and said in result.stderr, result.stderr
    # Starting for real says the same, before EAL (whose own words are "Backend type detection
    # failed"), and stops.
    result = braid("--config", str(config), "--", unique_prefix("vhost"))
    assert result.returncode == 1 and said in result.stderr, result.stderr
    assert "EAL" not in result.stdout + result.stderr
    # A config written for another host: --portable warns.
    result = braid("--config", str(config), "--check", "--portable")
    assert result.returncode == 0 and f"warning: config: {config}: {said}" in result.stderr
    # Something that is neither a character device nor a socket.
    vhost.write_text("")
    result = braid("--config", str(config), "--check")
    assert "is neither a character device (vhost-net) nor a socket (vhost-user)" in result.stderr
    # No path at all.
    result = braid("--config", str(host_port_config(tmp_path, "virtio_user0,iface=braid0")),
                   "--check")
    assert "virtio_user needs path=" in result.stderr, result.stderr


def test_check_says_a_virtio_user_port_needs_a_queue_pair_per_worker(tmp_path):
    cpus = host_cpus()
    config = host_port_config(tmp_path, "virtio_user0,path=/dev/vhost-net,iface=braid0",
                              workers=[cpus[1], cpus[1] + 1])
    # --portable: the second lcore may be missing here; the queue pairs are missing everywhere.
    result = braid("--config", str(config), "--check", "--portable")
    assert result.returncode == 1, result.stderr
    assert ('ports[0] "host": needs 2 TX queues (2 for the workers) but the device has 1; add '
            'queues=2 to its device string ("virtio_user0,path=/dev/vhost-net,iface=braid0,'
            'queues=2")') in result.stderr, result.stderr


def test_check_refuses_a_tap_name_linux_cannot_have(tmp_path):
    config = host_port_config(tmp_path, "net_tap0,iface=braid0-is-far-too-long")
    result = braid("--config", str(config), "--check")
    assert result.returncode == 1
    assert ("iface=braid0-is-far-too-long is 22 characters; Linux interface names have at most "
            "15") in result.stderr, result.stderr


def test_check_refuses_lcores_this_host_lacks_and_portable_warns(tmp_path):
    main, worker = absent_cpus(2)
    config = af_packet_config(tmp_path, ",qpairs=2", main=main, workers=[host_cpus()[1], worker])
    config.write_text(config.read_text().replace("qpairs=2", "qpairs=3"))
    result = braid("--config", str(config), "--check")
    assert result.returncode == 1, result.stdout
    assert f"eal.main_lcore: lcore {main} is not a CPU of this host" in result.stderr, result.stderr
    assert f"workers.lcores: lcore {worker} is not a CPU of this host" in result.stderr, result.stderr
    assert "valid" not in result.stdout
    result = braid("--config", str(config), "--check", "--portable")
    assert result.returncode == 0, result.stderr
    assert f"warning: config: {config}: workers.lcores: lcore {worker} is not a CPU" in result.stderr
    assert "valid" in result.stdout
    usage = braid("--config", str(config), "--portable")
    assert usage.returncode == 2 and "--portable goes with --check" in usage.stderr
    # --lcores with '@' maps lcores onto other CPUs: lcore numbers are not CPU numbers then.
    cpus = host_cpus()
    remapped = af_packet_config(tmp_path, ",qpairs=2", main=cpus[0], workers=[worker])
    remapped.write_text(remapped.read_text().replace(
        f"eal: {{main_lcore: {cpus[0]}}}",
        f'eal: {{main_lcore: {cpus[0]}, args: ["--lcores={cpus[0]}@{cpus[0]},{worker}@{cpus[1]}"]}}'))
    result = braid("--config", str(remapped), "--check")
    assert result.returncode == 0, result.stderr


def run_as_user(env, *args):
    """braid with `env` added, as a user that is not root (EAL's runtime directory of root is
    /var/run, whatever XDG_RUNTIME_DIR says)."""
    command = [BRAID, *args]
    if os.getuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("needs setpriv to drop root")
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env})


def test_check_refuses_a_runtime_directory_eal_refuses():
    # DPDK 22.11 binds <XDG_RUNTIME_DIR>/dpdk/<prefix>/dpdk_telemetry.v2 and refuses to start
    # when that is longer than a UNIX socket path (107 bytes): "path too long".
    top = tempfile.mkdtemp(prefix="braid-cli-xdg-")
    try:
        os.chmod(top, 0o755)
        xdg = os.path.join(top, "r" * (80 - len(top) - 1))  # 80 bytes: 109 with "braid"
        os.mkdir(xdg)
        result = run_as_user({"XDG_RUNTIME_DIR": xdg}, "--check")
        assert result.returncode == 1, result.stdout + result.stderr
        assert (f"EAL's telemetry socket {xdg}/dpdk/braid/dpdk_telemetry.v2 is 109 bytes, more than "
                "a UNIX socket path may have (107), and DPDK 22.11 refuses to start; use a file "
                "prefix of at most 3 characters here, or a shorter XDG_RUNTIME_DIR") in result.stderr, \
            result.stderr
        result = run_as_user({"XDG_RUNTIME_DIR": xdg}, "--check", "--portable")
        assert result.returncode == 0 and "warning: braid: file prefix" in result.stderr, result.stderr
        # A runtime directory that does not exist: EAL cannot create its own below it.
        result = run_as_user({"XDG_RUNTIME_DIR": os.path.join(top, "gone")}, "--check")
        assert result.returncode == 1
        assert f"XDG_RUNTIME_DIR={top}/gone is not a directory" in result.stderr, result.stderr
        # A --file-prefix after "--" is checked like eal.file_prefix.
        result = braid("--check", "--", "--file-prefix=a/b")
        assert result.returncode == 1 and "braid: --file-prefix: \"a/b\" has '/'" in result.stderr
    finally:
        shutil.rmtree(top)


def test_counts_in_messages_are_grammatical(tmp_path):
    config = af_packet_config(tmp_path, ",qpairs=2")
    result = braid("--config", str(config), "--check")
    assert result.returncode == 0, result.stderr
    assert f"config {config}: valid (2 ports, 1 worker, 1 cross-connect)" in result.stdout, result.stdout
    config.write_text(config.read_text().replace("mode: lacp", "mode: lacp, min_links: 2"))
    result = braid("--config", str(config), "--check")
    assert "min_links 2 is more than its 1 member\n" in result.stderr, result.stderr
    for output in (result.stdout, result.stderr):
        assert not re.search(r"\b1 (member|port|worker|queue|cross-connect|bucket)s\b|\(s\)", output), output
