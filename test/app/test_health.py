"""braid's /healthz and /readyz next to /metrics, against the real binary on the demo topology
(bond uplink with min_links 3): /readyz answers 503 until LACP converges, 200 once every bond
has min_links members distributing, 503 naming uplink and its counts after two members are set
down, 200 again after they are up; /healthz answers 200 while the protocol loop and the worker
move, and 503 naming the one that does not when a thread is held still with ptrace (the rest of
the process keeps running); unknown paths still get 404."""

import os
import pathlib
import shutil
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from abuselib import held, thread_id
from braidlib import ctl, free_port, running_braid
from promlib import write_braid_config

MIN_LINKS = 3


@pytest.fixture(scope="module")
def running():
    directory = pathlib.Path(tempfile.mkdtemp(prefix="braid-health-"))
    socket_path = directory / "braid.sock"
    metrics_port = free_port()
    config = write_braid_config(directory, socket_path, metrics_port, min_links=MIN_LINKS)
    prefix = f"braid-health-{os.getpid()}"
    try:
        with running_braid(config, directory, prefix, socket_path, settle=0) as process:
            yield {"socket": str(socket_path), "url": f"http://127.0.0.1:{metrics_port}",
                   "process": process, "started": time.monotonic()}
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def get(running, path):
    """(status, body) of GET path."""
    try:
        with urllib.request.urlopen(running["url"] + path, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def wait_for_status(running, path, status, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        answer = get(running, path)
        if answer[0] == status:
            return answer
        assert time.monotonic() < deadline, f"{path}: {answer}, waited for {status}"
        time.sleep(0.2)


def wait_until_all_in(running, timeout=30):
    """Until every member of uplink distributes."""
    deadline = time.monotonic() + timeout
    while True:
        body = get(running, "/readyz")[1]
        if "4 of 4 members usable, 4 distributing" in bond_line(body, "uplink"):
            return
        assert time.monotonic() < deadline, body
        time.sleep(0.2)


def bond_line(body, bond):
    return next(line for line in body.splitlines() if line.startswith(f"bond {bond}:"))


def test_ready_once_lacp_converges(running):
    status, body = wait_for_status(running, "/readyz", 200)
    print(f"\n/readyz 200 {time.monotonic() - running['started']:.1f} s after the control "
          f"socket appeared")
    assert body.splitlines()[0] == "ready", body
    # Ready at min_links, not only with every member in.
    assert bond_line(body, "uplink") in (
        f"bond uplink: up, {n} of 4 members usable, {n} distributing, min_links {MIN_LINKS}"
        for n in range(MIN_LINKS, 5)), body
    assert bond_line(body, "switch").startswith("bond switch: up, "), body


def test_not_ready_below_min_links_and_ready_again(running):
    wait_until_all_in(running)
    ctl(running, "set", "member", "m0", "down")
    # 3 of 4 is still min_links: ready.
    time.sleep(1.5)
    status, body = get(running, "/readyz")
    assert status == 200, body
    ctl(running, "set", "member", "m1", "down")
    try:
        status, body = wait_for_status(running, "/readyz", 503)
        assert body.splitlines()[0] == "not ready: 1 of 2 bonds below min_links", body
        # Below min_links the bond distributes on none of its 2 usable members.
        assert bond_line(body, "uplink") == (
            f"bond uplink: down (below min_links), 2 of 4 members usable, 0 distributing, "
            f"min_links {MIN_LINKS}"), body
        assert bond_line(body, "switch").startswith("bond switch: up"), body
        # The same notion as show bond's status.
        assert "down (below min_links)" in ctl(running, "show", "bond", "uplink").stdout
    finally:
        ctl(running, "set", "member", "m0", "up")
        ctl(running, "set", "member", "m1", "up")
    wait_for_status(running, "/readyz", 200)
    wait_until_all_in(running)


def test_healthy_while_threads_move(running):
    status, body = get(running, "/healthz")
    assert status == 200, body
    lines = body.splitlines()
    assert lines[0] == "ok", body
    assert lines[1].startswith("protocol loop: running, "), body
    assert lines[2].startswith("worker lcore 1: running, "), body
    assert get(running, "/healthz?verbose")[0] == 200  # a query string is the same path


def test_stalled_protocol_loop_is_unhealthy_and_readiness_stale(running):
    pid = running["process"].pid
    answers = {}

    def probe():
        answers["healthz"] = get(running, "/healthz")
        answers["readyz"] = get(running, "/readyz")
        answers["metrics"] = get(running, "/metrics")[0]
    held(pid, 6.5, probe)  # the main lcore's thread: the protocol loop
    status, body = answers["healthz"]
    assert status == 503, body
    assert body.splitlines()[0] == "stalled: 1 of 2 threads", body
    assert body.splitlines()[1].startswith("protocol loop: stalled, no progress for "), body
    assert body.splitlines()[2].startswith("worker lcore 1: running"), body
    status, body = answers["readyz"]
    assert status == 503, body
    assert body.startswith("stale: the protocol loop did not render /readyz in the "), body
    assert answers["metrics"] == 200  # the last rendered text, as ever
    wait_for_status(running, "/healthz", 200, timeout=10)
    wait_for_status(running, "/readyz", 200, timeout=60)


def test_stalled_worker_is_unhealthy(running):
    tid = thread_id(running["process"].pid, "rte-worker-1")  # EAL names it by lcore
    status, body = held(tid, 4, lambda: get(running, "/healthz"))
    assert status == 503, body
    assert "worker lcore 1: stalled, no progress for " in body, body
    wait_for_status(running, "/healthz", 200, timeout=10)


def test_unknown_paths_are_404_and_the_index_lists_the_endpoints(running):
    status, body = get(running, "/nothing")
    assert status == 404 and body == "not found: try /metrics, /healthz, /readyz\n", body
    assert get(running, "/healthzz")[0] == 404
    status, body = get(running, "/")
    assert status == 200 and "/healthz" in body and "/readyz" in body, body
