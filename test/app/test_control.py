"""The control plane as an operator meets it: braidctl one-shot and --json against a running
braid, error exits, /metrics in valid exposition format, DPDK telemetry endpoints, a control
socket only its owner may use, the braid -i console through a pty, and pdump when it can run."""

import json
import os
import pathlib
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request

import pytest

from braidlib import BRAID, BRAIDCTL, ctl, free_port, running_braid

SOURCE_ROOT = pathlib.Path(os.environ.get("BRAID_SOURCE_ROOT", pathlib.Path(__file__).parents[2]))
TELEMETRY = "/usr/bin/dpdk-telemetry.py"


def write_config(directory, metrics_port, socket_path):
    config = directory / "braid.yaml"
    demo = (SOURCE_ROOT / "config" / "demo.yaml").read_text()
    config.write_text(demo + f"\ncontrol:\n  socket: {socket_path}\n"
                      f"metrics:\n  listen: \"127.0.0.1:{metrics_port}\"\n")
    return config


@pytest.fixture(scope="module")
def running():
    """One braid on the demo topology with its own prefix, socket and metrics port."""
    # Not under pytest's tmp (0700): `nobody` must reach the socket file itself, so that the
    # file's own mode and SO_PEERCRED are what turn it away.
    directory = pathlib.Path(tempfile.mkdtemp(prefix="braid-ctl-test-"))
    directory.chmod(0o755)
    prefix = f"braid-ctl-test-{os.getpid()}"
    socket_path = directory / "braid.sock"
    metrics_port = free_port()
    config = write_config(directory, metrics_port, socket_path)
    try:
        with running_braid(config, directory, prefix, socket_path) as process:
            yield {"socket": str(socket_path), "prefix": prefix, "metrics_port": metrics_port,
                   "process": process, "directory": directory}
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def port_names(running):
    """The running config's ports in order, from `show port` (the demo's topology may change)."""
    return [p["port"] for p in json.loads(ctl(running, "--json", "show", "port").stdout)["ports"]]


def busy_port(running):
    """The first port that has received packets (the demo's pcap replay port)."""
    ports = json.loads(ctl(running, "--json", "show", "port").stdout)["ports"]
    return next(p["port"] for p in ports if p["rx_packets"] > 0)


def test_one_shot_show_port(running):
    out = ctl(running, "show", "port").stdout
    assert re.match(r"port\s+rx_packets\s+tx_packets\s+rx_pps", out), out
    names = port_names(running)
    assert len(names) >= 2, out
    for name in names:
        assert re.search(rf"^{re.escape(name)}\s+\d+\s+\d+", out, re.M), out


def test_json_output_parses(running):
    busy = busy_port(running)
    ports = json.loads(ctl(running, "--json", "show", "port", "stats", busy).stdout)["ports"]
    assert [p["port"] for p in ports] == [busy]
    assert ports[0]["rx_packets"] > 0
    workers = json.loads(ctl(running, "--json", "show", "workers").stdout)
    assert workers["forwarding"] == "started"
    assert workers["workers"][0]["lcore"] == 1
    assert 0.0 <= workers["workers"][0]["busy"] <= 1.0
    drops = json.loads(ctl(running, "--json", "show", "drops").stdout)
    assert {d["reason"] for d in drops["drops"]} >= {"tx_full", "no_route"}
    assert {n["port"] for n in drops["nic"]} == set(port_names(running))


def test_every_engine_command_answers(running):
    last = port_names(running)[-1]
    for words in (["show", "port", "info"], ["show", "port", "xstats", last], ["show", "log"],
                  ["show", "control"], ["help"], ["help", "show", "port"]):
        assert ctl(running, *words).stdout.strip(), words
    info = ctl(running, "show", "port", "info", last).stdout
    assert "driver:" in info and "net_null" in info


def test_failed_command_exits_nonzero_with_a_suggestion(running):
    result = ctl(running, "show", "prot", check=False)
    assert result.returncode == 1
    assert 'did you mean "port"' in result.stderr
    result = ctl(running, "show", "port", "stats", "nosuch", check=False)
    assert result.returncode == 1
    expected = ", ".join(port_names(running))
    assert f'no port "nosuch" (known: {expected})' in result.stderr
    result = ctl(running, "show", "bond", "uplnk", check=False)
    assert result.returncode == 1
    assert 'no bond "uplnk"; did you mean "uplink"?' in result.stderr, result.stderr
    assert json.loads(ctl(running, "--json", "frobnicate", check=False).stdout)["errors"]


def test_unreachable_socket_is_a_clear_error(tmp_path):
    result = subprocess.run([BRAIDCTL, "--socket", str(tmp_path / "none.sock"), "show", "drops"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 3
    assert "cannot connect to" in result.stderr and "is braid running?" in result.stderr


def test_clear_stats_and_stop_start(running):
    ctl(running, "stop")
    assert json.loads(ctl(running, "--json", "show", "workers").stdout)["forwarding"] == "stopped"
    ctl(running, "clear", "stats")
    time.sleep(0.3)
    # Stopped, the workers still receive (LACP keeps its frames) but forward nothing: what
    # arrives is dropped and counted as `stopped`.
    ports = {p["port"]: p for p in json.loads(ctl(running, "--json", "show", "port").stdout)["ports"]}
    assert ports["sink"]["tx_packets"] == 0, ports  # members still send their LACPDUs
    drops = {d["reason"]: d["packets"] for d in
             json.loads(ctl(running, "--json", "show", "drops").stdout)["drops"]}
    assert drops["stopped"] > 0 and drops["stopped"] >= ports["wire"]["rx_packets"] * 0.9, drops
    ctl(running, "start")
    assert json.loads(ctl(running, "--json", "show", "workers").stdout)["forwarding"] == "started"
    assert "already started" in ctl(running, "start").stdout


def test_set_log_level(running):
    ctl(running, "set", "log", "braid.bond", "debug")
    levels = json.loads(ctl(running, "--json", "show", "log").stdout)["types"]
    assert {"type": "braid.bond", "level": "debug"} in levels
    assert {t["type"] for t in levels} >= {"braid.engine", "braid.lacp", "braid.sched",
                                           "braid.control"}
    result = ctl(running, "set", "log", "braid.nope", "debug", check=False)
    assert result.returncode == 1 and "no log type matches" in result.stderr


def test_complete_request_over_the_socket(running):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(running["socket"])
    payload = b"complete show po"
    sock.sendall(struct.pack(">I", len(payload)) + payload)
    size = struct.unpack(">I", sock.recv(4))[0]
    body = b""
    while len(body) < size:
        body += sock.recv(size - len(body))
    sock.close()
    assert body.decode() == "ok\nport\n"


SAMPLE = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*"'
                    r'(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*")*)?\})? '
                    r'(-?[0-9.eE+-]+|NaN|[+-]Inf)( -?[0-9]+)?$')
HELP = re.compile(r"^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$")
TYPE = re.compile(r"^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$")


def test_metrics_every_line_is_valid_exposition_format(running):
    time.sleep(0.6)  # a snapshot after start-up
    url = f"http://127.0.0.1:{running['metrics_port']}/metrics"
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = response.read().decode()
    assert text.endswith("\n")
    typed = {}
    for line in text.splitlines():
        if line.startswith("# HELP"):
            assert HELP.match(line), line
        elif line.startswith("# TYPE"):
            match = TYPE.match(line)
            assert match, line
            assert match.group(1) not in typed, f"TYPE twice: {line}"
            typed[match.group(1)] = match.group(2)
        else:
            assert SAMPLE.match(line), f"not a valid sample line: {line!r}"
            assert line.split("{")[0].split(" ")[0] in typed, f"sample before its TYPE: {line}"
    for name in ("braid_up", "braid_port_rx_packets_total", "braid_port_tx_packets_total",
                 "braid_port_rx_missed_total", "braid_port_rx_no_mbuf_total", "braid_drops_total",
                 "braid_worker_busy_ratio"):
        assert name in typed, name
    assert "braid_up 1\n" in text
    busy = re.escape(busy_port(running))
    assert re.search(rf'^braid_port_rx_packets_total\{{port="{busy}"\}} [1-9]\d*$', text, re.M)
    assert 'braid_drops_total{reason="tx_full"}' in text
    assert re.search(r'^braid_worker_busy_ratio\{lcore="1"\} ', text, re.M)


def test_metrics_curl(running):
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    out = subprocess.run(["curl", "-sf", f"http://127.0.0.1:{running['metrics_port']}/metrics"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and "# TYPE braid_up gauge" in out.stdout


def test_telemetry_endpoints(running):
    if not os.path.exists(TELEMETRY):
        pytest.skip("dpdk-telemetry.py is not installed")
    result = subprocess.run(["python3", TELEMETRY, "-f", running["prefix"]],
                            input="/braid/ports\n/braid/workers\n/braid/drops\n",
                            capture_output=True, text=True, timeout=60)
    replies = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    by_path = {path: value for reply in replies for path, value in reply.items()}
    assert by_path["/braid/ports"][busy_port(running)]["rx_packets"] > 0, result.stdout
    queues = by_path["/braid/workers"]["1"]["queues"].split()
    assert queues and {q.split("/")[0] for q in queues} <= set(port_names(running)), queues
    assert by_path["/braid/drops"]["drops/tx_full"]["reason"] == "tx_full"


def test_socket_is_private_to_its_owner(running):
    path = running["socket"]
    assert os.stat(path).st_mode & 0o777 == 0o600
    client = ("import socket,sys\n"
              "s=socket.socket(socket.AF_UNIX,socket.SOCK_STREAM)\n"
              "try:\n s.connect(sys.argv[1])\nexcept OSError as e:\n print('refused', e.errno); sys.exit(0)\n"
              "try:\n s.sendall(b'\\x00\\x00\\x00\\x0ftext show drops')\n"
              "except OSError:\n pass  # refused peers are answered and closed at once\n"
              "print(s.recv(4096)[4:].decode())\n")
    as_nobody = subprocess.run(["python3", "-c", client, path], user=65534, group=65534,
                               capture_output=True, text=True, timeout=30)
    assert as_nobody.stdout.startswith("refused 13"), as_nobody  # EACCES: file mode 0600
    # Even with the permissions loosened, SO_PEERCRED turns other users away.
    os.chmod(path, 0o666)
    try:
        as_nobody = subprocess.run(["python3", "-c", client, path], user=65534, group=65534,
                                   capture_output=True, text=True, timeout=30)
    finally:
        os.chmod(path, 0o600)
    assert as_nobody.stdout.startswith("error\npermission denied"), as_nobody
    assert "you are uid 65534" in as_nobody.stdout


def test_show_control_says_whether_pdump_can_attach(running):
    log = (running["directory"] / "braid.log").read_text()
    text = ctl(running, "show", "control").stdout
    attachable = json.loads(ctl(running, "--json", "show", "control").stdout)["pdump"]
    if "--no-huge" in log:  # the test machines: no hugepages, so dumpcap has nothing to map
        assert "pdump:" in text and "no (--no-huge: a secondary process cannot attach)" in text, text
        assert attachable is False
    else:
        assert re.search(r"^pdump:\s+yes$", text, re.M), text
        assert attachable is True


def test_show_control_times_each_kind_of_job(running):
    """Issue 33 item 1: how long each kind of job held the protocol loop, in `show control` and
    in /metrics."""
    ctl(running, "show", "bond")
    control = json.loads(ctl(running, "--json", "show", "control").stdout)
    jobs = {row["job"]: row for row in control["jobs"]}
    assert jobs["command"]["runs"] >= 1, jobs
    assert jobs["command"]["worst_ms"] > 0, jobs
    assert jobs["command"]["worst_ms"] >= jobs["command"]["worst_minute_ms"], jobs
    assert "engine-rates" in jobs, jobs  # a periodic job, by its name
    # Driver reads that may block on the kernel run on a helper, not the protocol loop: the
    # health sample's counters, and `show port xstats`.
    assert "rx_good_packets" in ctl(running, "show", "port", "xstats").stdout
    control = json.loads(ctl(running, "--json", "show", "control").stdout)
    reads = {row["read"]: row for row in control["driver_reads"]}
    assert reads["driver read"]["runs"] >= 1, reads
    assert reads["health counters"]["runs"] >= 1, reads


def job_runs(running, kind):
    control = json.loads(ctl(running, "--json", "show", "control").stdout)
    return next((row["runs"] for row in control["jobs"] if row["job"] == kind), 0)


def test_metrics_and_telemetry_are_rendered_only_when_asked(running):
    """Issue 33 item 1: /metrics and each telemetry endpoint are rendered by a job of their own,
    only when a request finds the last render older than 500 ms, and the request gets that new
    render (fails where the loop rendered everything every 500 ms in one job)."""
    url = f"http://127.0.0.1:{running['metrics_port']}/metrics"
    before = job_runs(running, "render /metrics")
    time.sleep(1.5)
    assert job_runs(running, "render /metrics") == before  # nobody asked
    # Two requests at once: one render, which both get.
    for _ in range(2):
        with urllib.request.urlopen(url, timeout=10) as response:
            assert "braid_up 1" in response.read().decode()
    assert job_runs(running, "render /metrics") == before + 1
    time.sleep(0.6)
    urllib.request.urlopen(url, timeout=10).read()
    assert job_runs(running, "render /metrics") == before + 2
    if not os.path.exists(TELEMETRY):
        return
    telemetry_before = job_runs(running, "render telemetry")
    time.sleep(0.6)
    subprocess.run(["python3", TELEMETRY, "-f", running["prefix"]], input="/braid/drops\n" * 2,
                   capture_output=True, text=True, timeout=60, check=True)
    assert job_runs(running, "render telemetry") == telemetry_before + 1


def test_braidctl_help_lists_every_option_short_and_long():
    help_text = subprocess.run([BRAIDCTL, "--help"], capture_output=True, text=True,
                               timeout=30).stdout
    pairs = re.findall(r"^  -(\w), --([\w-]+)", help_text, re.M)
    assert {short for short, _ in pairs} == {"s", "p", "j", "V", "h"}, help_text
    assert {long for _, long in pairs} == {"socket", "file-prefix", "json", "version", "help"}
    # Each short option is the long one: -V prints the version, -h this help.
    assert subprocess.run([BRAIDCTL, "-h"], capture_output=True, text=True,
                          timeout=30).stdout == help_text
    assert subprocess.run([BRAIDCTL, "-V"], capture_output=True, text=True,
                          timeout=30).stdout.startswith("braidctl ")


def test_pdump_capture(running, tmp_path):
    if shutil.which("dpdk-dumpcap") is None:
        pytest.skip("dpdk-dumpcap is not installed")
    output = tmp_path / "capture.pcapng"
    result = subprocess.run(["dpdk-dumpcap", "--file-prefix", running["prefix"], "-i",
                             busy_port(running), "-c", "20", "-w", str(output)],
                            capture_output=True, text=True, timeout=60)
    if "is primary process running" in result.stdout + result.stderr:
        pytest.skip("a --no-huge primary has no shared memory for dumpcap (needs hugepages)")
    assert result.returncode == 0, result.stderr
    assert output.stat().st_size > 0


def test_interactive_console_through_a_pty(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    prefix = f"braid-ctl-pty-{os.getpid()}"
    console = pexpect.spawn(BRAID, ["-i", "--control-socket", str(tmp_path / "pty.sock"), "--",
                                    f"--file-prefix={prefix}"],
                            encoding="utf-8", timeout=60, env={**os.environ, "TERM": "dumb"})
    try:
        console.expect_exact("braid> ")
        console.sendline("show workers")
        console.expect(r"lcore\s+socket\s+queues")
        console.expect_exact("braid> ")
        console.send("show wo\t")  # tab completion through the registry
        console.expect_exact("rkers ")
        console.sendline("")
        console.expect(r"\w+/0 \w+/0")
        console.expect_exact("braid> ")
        console.sendline("shwo drops")
        console.expect_exact('unknown command "shwo" (did you mean "show"?)')
        console.expect_exact("braid> ")
        console.sendline("quit")
        console.expect_exact("stopping braid")
        console.expect(r"accounting: .*balanced")
        console.expect(pexpect.EOF)
    finally:
        console.close(force=True)
    assert console.exitstatus == 0
