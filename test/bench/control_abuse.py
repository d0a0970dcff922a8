#!/usr/bin/env python3
"""How late LACP runs while the management side is abused, measured from outside braid.

One braid runs two LACP bonds (rate fast) that are each other's partner over two veth pairs:
bond "uplink" on the a-ends, bond "switch" on the b-ends (net_af_packet). A raw socket on every
veth end timestamps (SO_TIMESTAMPNS, in the kernel, as the frame crosses the veth) each LACPDU
the far bond sent; a bond in fast periodic sends one a second, so the longest gap between two
LACPDUs on one link, less 1 s, is how late its periodic deadline ran. The same measurement runs
for each case against two binaries in the same run (--before, e.g. a build of the commit before
the protocol loop, and --after):

  quiet      nothing else (the reference)
  burst      one client pipelining 30,000 `show lacp detail` at a time, again and again
  slowloris  500 connections to /metrics that never finish their headers
  cpu-hog    three busy processes on the protocol loop's CPU (main_lcore 0), at normal
             priority; with --rt-priority N, once more against --after with
             control.protocol_rt_priority N (the deployment's answer, doc/deploy.md)
  flood      two raw sockets sending Slow Protocols frames into one member, 10,000 a second
             each: one of subtype 10 (ESMC), one malformed LACPDUs
  flood-max  the same as fast as the senders can (here more than the worker, sharing its
             CPU with them, reads: the kernel drops what the member's af_packet ring cannot
             hold, the partner's LACPDUs among them, as a NIC's full RX ring would; the
             member's rx_missed says how many)
  non-readers  128 /metrics clients and 16 control-socket clients (100 `show lacp detail`
             each) that send their requests and never read an answer
  xstats     `show port xstats` (every port) and a /metrics scrape, 20 times a second
  held-stop  the worker held still with ptrace (as a PMD stuck in a burst) while `stop` is
             asked, released 200 ms later, then `start`; every 0.7 s
  slow-log   braid's stdout and stderr on a pipe nobody reads (a stuck terminal or journald)
             while member m1 of uplink is set down and up 400 times (each flap a few lines of
             log: more than the pipe's 64 KiB), for --seconds or until the 400 are done (at
             most 90 s); a braid of its own, and LACP measured on link 0 only (m1's own
             LACPDUs stop while it is down)

Both bonds also run micro-BFD (50 ms x 5: a worker held 200 ms delays the BFD packets it
receives, and detection must outlast that) on every member: per case, how many BFD transmissions
the protocol loop served later than their interval (`show control`, bfd_transmit `late`).

Also per case: the worst reply time of a second client asking `show bond` every 100 ms (and
how many requests it got no reply to within 10 s), and how many times either bond's
distribution table changed (a member left or rejoined distributing).

Usage (root; the veths are made and removed here):
  test/bench/control_abuse.py --before /path/to/old/braid --after build/app/braid/braid \\
      [--seconds 20] [--cases quiet,burst,...]
"""

import argparse
import contextlib
import ctypes
import os
import pathlib
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "app"))
sys.path.insert(0, str(HERE.parent / "interop"))
from abuselib import (ControlClient, PipelinedBurst, Slowloris, frame, held,  # noqa: E402
                      non_reading_scrapers, paired_bonds_config, raise_fd_limit,
                      slow_frame_hex, start_flood, thread_id)
from netlab import NetLab  # noqa: E402

ETH_P_ALL = 0x0003
SO_TIMESTAMPNS = 35
PACKET_OUTGOING = 4
SLOW_PROTOCOLS = 0x8809
LACP_SUBTYPE = 1
FAST_PERIODIC_S = 1.0
SO_ATTACH_FILTER = 26


class ClassicBpf:
    """A classic BPF program for SO_ATTACH_FILTER: (code, jt, jf, k) instructions."""

    def __init__(self, instructions):
        self._code = ctypes.create_string_buffer(
            b"".join(struct.pack("HBBI", *insn) for insn in instructions))
        self.program = struct.pack("HL", len(instructions), ctypes.addressof(self._code))


# EtherType 0x8809, then subtype 1 and version 1 (a LACPDU), else drop.
LACPDU_FILTER = ClassicBpf([(0x28, 0, 0, 12), (0x15, 0, 3, SLOW_PROTOCOLS), (0x28, 0, 0, 14),
                            (0x15, 0, 1, 0x0101), (0x06, 0, 0, 0xFFFF), (0x06, 0, 0, 0)])
CASES = ("quiet", "burst", "slowloris", "cpu-hog", "flood", "flood-max", "non-readers", "xstats",
         "held-stop", "slow-log")
# Cases that need a braid of their own, started differently.
OWN_PROCESS = {"slow-log": {"log_to_pipe": True}}


class LacpduGaps:
    """Per interface, the kernel timestamps of the LACPDUs that arrived on it, from a thread."""

    def __init__(self, ifnames):
        self.arrivals = {name: [] for name in ifnames}
        self.socks = {}
        for name in ifnames:
            sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            # Only LACPDUs reach the socket: a flood would fill its buffer and drop them.
            sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, LACPDU_FILTER.program)
            sock.bind((name, 0))
            sock.settimeout(0.2)
            self.socks[name] = sock
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._read, args=(n,), daemon=True)
                         for n in ifnames]
        for thread in self._threads:
            thread.start()

    def _read(self, name):
        sock = self.socks[name]
        while not self._stop.is_set():
            try:
                data, ancillary, _, address = sock.recvmsg(128, 64)
            except socket.timeout:
                continue
            except OSError:
                return  # the veth went away (the lab is being torn down)
            if address[2] == PACKET_OUTGOING or len(data) < 16:
                continue
            # A LACPDU: subtype 1, version 1 (the flood's malformed ones say version 0).
            if struct.unpack(">H", data[12:14])[0] != SLOW_PROTOCOLS or data[14:16] != b"\x01\x01":
                continue
            for level, kind, value in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    seconds, nanos = struct.unpack("qq", value[:16])
                    self.arrivals[name].append(seconds + nanos / 1e9)

    def mark(self):
        return {name: len(times) for name, times in self.arrivals.items()}

    def worst_late_ms(self, since, until, only=None):
        """The longest wait for a LACPDU on one link between mark() `since` and `until` (a
        CLOCK_REALTIME time, as the kernel stamps), counted from the last LACPDU before the mark
        and up to `until` when none came since, less the fast periodic time, in ms; and the
        number of LACPDUs counted. `only`: these interfaces (default all)."""
        worst, count = 0.0, 0
        for name, times in self.arrivals.items():
            if only is not None and name not in only:
                continue
            window = [stamp for stamp in times[max(0, since[name] - 1):] if stamp <= until]
            count += len(window) - (1 if since[name] > 0 else 0)
            for earlier, later in zip(window, window[1:] + [until]):
                worst = max(worst, later - earlier - FAST_PERIODIC_S)
        return worst * 1000, count

    def close(self):
        self._stop.set()
        for thread in self._threads:
            thread.join()
        for sock in self.socks.values():
            sock.close()


class Prober:
    """A second operator: `show bond` every 100 ms, each reply's time; a request with no reply
    in 10 s counts as failed and the probe reconnects."""

    def __init__(self, socket_path):
        self.socket_path = socket_path
        self.worst_s, self.failed, self.answered = 0.0, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        client = None
        while not self._stop.is_set():
            start = time.monotonic()
            try:
                if client is None:
                    client = ControlClient(self.socket_path, timeout_s=10)
                client.json("show bond")
                self.answered += 1
            except (OSError, AssertionError):
                self.failed += 1
                if client is not None:
                    client.close()
                client = None
            self.worst_s = max(self.worst_s, time.monotonic() - start)
            self._stop.wait(0.1)
        if client is not None:
            client.close()

    def close(self):
        self._stop.set()
        self._thread.join()


def table_generations(socket_path):
    with ControlClient(socket_path, timeout_s=60) as client:
        dist = client.json("show distribution")
    return {bond: dist[bond]["generation"] for bond in ("uplink", "switch")}


def rx_missed(socket_path, port):
    with ControlClient(socket_path, timeout_s=60) as client:
        return client.json(f"show port stats {port}")["ports"][0]["rx_missed"]


def all_distributing(socket_path):
    with ControlClient(socket_path, timeout_s=60) as client:
        bonds = client.json("show bond")
    return all(m["distributing"] for bond in ("uplink", "switch")
               for m in bonds[bond]["members"])


def non_reading_clients(socket_path, count, line, requests):
    """`count` control-socket connections that each send `requests` of `line` and never read."""
    clients = []
    for _ in range(count):
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(str(socket_path))
        client.setblocking(False)
        try:
            client.send(frame(line) * requests)
        except OSError:
            pass  # a full buffer: what was sent waits, as a client that stopped reading's does
        clients.append(client)
    return clients


def poll_xstats(socket_path, metrics_port, stop):
    with ControlClient(socket_path, timeout_s=60) as client:
        while not stop.is_set():
            client.ask("text show port xstats")
            with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics",
                                        timeout=10) as response:
                response.read()
            stop.wait(0.05)


SLOW_LOG_FLAPS = 400


def member_flaps(socket_path, stop, finished):
    with ControlClient(socket_path, timeout_s=60) as client:
        for _ in range(SLOW_LOG_FLAPS):
            if stop.is_set():
                return
            client.ask("text set member m1 down")
            client.ask("text set member m1 up")
    finished.set()


def bfd_late(socket_path):
    with ControlClient(socket_path, timeout_s=60) as client:
        control = client.json("show control")
    # None where the binary does not measure BFD deadlines (before issue 33).
    return next((row["late"] for row in control["deadlines"]
                 if row["deadline"] == "bfd_transmit"), None)


def held_stops(socket_path, pid, stop):
    worker = thread_id(pid, "rte-worker-1")  # EAL names it by lcore
    with ControlClient(socket_path, timeout_s=60) as client:
        while not stop.is_set():
            asked = []
            held(worker, 0.2, lambda: asked or asked.append(client.ask("text stop")))
            client.ask("text start")
            stop.wait(0.5)


@contextlib.contextmanager
def abuse(case, socket_path, metrics_port, links, pid):
    """Runs one case's abuse in the background for the body's duration."""
    stop = threading.Event()
    finished = threading.Event()  # slow-log: the flaps are done
    workers, processes, sockets = [], [], []
    if case == "burst":
        def bursts():
            while not stop.is_set():
                PipelinedBurst(socket_path, "text show lacp detail", 30000).run(timeout_s=120)
        workers.append(threading.Thread(target=bursts, daemon=True))
    elif case == "slowloris":
        raise_fd_limit(2048)
        loris = Slowloris("127.0.0.1", metrics_port, count=500, drip_s=0.5).start()
    elif case == "cpu-hog":
        # On the protocol loop's CPU (main_lcore 0), at the same priority.
        for _ in range(3):
            processes.append(subprocess.Popen(["taskset", "-c", "0", "sh", "-c",
                                               "while :; do :; done"]))
    elif case in ("flood", "flood-max"):
        # Frames into member m0 (sent on its peer's veth end): half of another subtype (ESMC),
        # half malformed LACPDUs; 2 x 10,000 a second, or as fast as two processes can.
        rate = 10000 if case == "flood" else None
        for subtype in (0x0A, 0x01):
            processes.append(start_flood(links[0][1], slow_frame_hex(subtype), rate))
    elif case == "non-readers":
        raise_fd_limit(2048)
        sockets += non_reading_scrapers("127.0.0.1", metrics_port, 128)
        sockets += non_reading_clients(socket_path, 16, "text show lacp detail", 100)
    elif case == "xstats":
        workers.append(threading.Thread(target=poll_xstats, daemon=True,
                                        args=(socket_path, metrics_port, stop)))
    elif case == "slow-log":
        workers.append(threading.Thread(target=member_flaps, daemon=True,
                                        args=(socket_path, stop, finished)))
    elif case == "held-stop":
        workers.append(threading.Thread(target=held_stops, daemon=True,
                                        args=(socket_path, pid, stop)))
    for worker in workers:
        worker.start()
    try:
        yield finished if case == "slow-log" else None
    finally:
        stop.set()
        if case == "slowloris":
            loris.stop()
        for process in processes:
            process.send_signal(signal.SIGKILL)
            process.wait()
        for worker in workers:
            worker.join(180)
        for sock in sockets:
            sock.close()


def with_bfd(config):
    """Micro-BFD (50 ms x 5) on both bonds, each the other's peer."""
    config = config.replace("lacp: {rate: fast}}", "lacp: {rate: fast},\n      bfd: {mode: micro, "
                            "local_ip: 10.0.0.1, remote_ip: 10.0.0.2, detect_mult: 5}}", 1)
    return config.replace("lacp: {rate: fast, system_priority: 100}}",
                          "lacp: {rate: fast, system_priority: 100},\n      bfd: {mode: micro, "
                          "local_ip: 10.0.0.2, remote_ip: 10.0.0.1, detect_mult: 5}}", 1)


def measure(braid, cases, seconds, label, rt_priority=None, log_to_pipe=False):
    lab = NetLab().create()
    directory = pathlib.Path(tempfile.mkdtemp(prefix="braid-abuse-bench-"))
    tag = f"ab{os.getpid()}{label[0]}"
    prefix = f"braid-abuse-bench-{label}-{os.getpid()}"
    socket_path = directory / "braid.sock"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        metrics_port = probe.getsockname()[1]
    links = [(lab.name(f"a{k}"), lab.name(f"b{k}")) for k in range(2)]
    rows = {}
    process = None
    try:
        for a, b in links:
            lab.veth(a, b)
        config = with_bfd(paired_bonds_config(links, socket_path, metrics_port, tag))
        assert config.count("bfd:") == 2, config
        if rt_priority:
            config = config.replace("control:\n", f"control:\n  protocol_rt_priority: {rt_priority}\n")
        (directory / "braid.yaml").write_text(config)
        # slow-log: a pipe nobody reads (its 64 KiB fill and every later write would block).
        log = subprocess.PIPE if log_to_pipe else open(directory / "braid.log", "w")
        process = subprocess.Popen([braid, "--config", str(directory / "braid.yaml"),
                                    "--stats-interval", "0", "--", f"--file-prefix={prefix}"],
                                   stdout=log, stderr=subprocess.STDOUT)
        gaps = LacpduGaps([end for link in links for end in link])
        for case in cases:
            deadline = time.monotonic() + 60
            while not (socket_path.exists() and all_distributing(socket_path)):
                if time.monotonic() > deadline or process.poll() is not None:
                    sys.exit(f"{label}: the bonds never distributed on every member; log: "
                             + (directory / "braid.log").read_text()[-2000:])
                time.sleep(0.5)
            time.sleep(2)
            before = table_generations(socket_path)
            missed_before = rx_missed(socket_path, "m0")
            bfd_before = bfd_late(socket_path)
            mark = gaps.mark()
            prober = Prober(socket_path)
            with abuse(case, socket_path, metrics_port, links, process.pid) as finished:
                if finished is None:
                    time.sleep(seconds)
                else:
                    time.sleep(seconds)
                    finished.wait(90 - seconds)
            # After the abuse has stopped: a burst already written is answered first (before
            # the protocol loop, that held LACP for as long).
            until = time.time()
            prober.close()
            late_ms, count = gaps.worst_late_ms(
                mark, until, only=set(links[0]) if case == "slow-log" else None)
            try:
                after = table_generations(socket_path)
                changes = sum(after[b] - before[b] for b in before)
                missed = rx_missed(socket_path, "m0") - missed_before
                bfd_after = bfd_late(socket_path)
                bfd = "-" if bfd_before is None else bfd_after - bfd_before
            except (OSError, AssertionError):
                # braid no longer answers (a blocked log write held its protocol loop): what
                # the LACPDUs on the wire and the prober saw is the result; nothing runs after.
                changes = missed = bfd = "no answer"
                rows[case] = (late_ms, count, prober.worst_s * 1000, prober.failed, changes, bfd)
                print(f"{label} {case}: LACP worst {late_ms:.0f} ms late ({count} frames); "
                      f"show bond worst {prober.worst_s * 1000:.0f} ms, {prober.failed} "
                      "unanswered; braid stopped answering", flush=True)
                break
            rows[case] = (late_ms, count, prober.worst_s * 1000, prober.failed, changes, bfd)
            print(f"{label} {case}: LACP worst {late_ms:.0f} ms late ({count} frames); BFD "
                  f"{bfd} late; show bond worst {prober.worst_s * 1000:.0f} ms, {prober.failed} "
                  f"unanswered; {changes} table changes; m0 rx_missed +{missed}", flush=True)
        gaps.close()
    finally:
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        lab.close()
        shutil.rmtree(directory, ignore_errors=True)
        shutil.rmtree(pathlib.Path("/var/run/dpdk") / prefix, ignore_errors=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", help="the braid binary to compare with (optional)")
    parser.add_argument("--after", default="build/app/braid/braid")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--rt-priority", type=int, help="also run cpu-hog against --after with "
                        "control.protocol_rt_priority set to this")
    args = parser.parse_args()
    cases = args.cases.split(",")
    unknown = set(cases) - set(CASES)
    if unknown:
        parser.error(f"unknown case(s) {', '.join(sorted(unknown))}; known: {', '.join(CASES)}")
    runs = [("after", args.after)] + ([("before", args.before)] if args.before else [])
    results = {}
    for label, binary in runs:
        shared = [case for case in cases if case not in OWN_PROCESS]
        results[label] = measure(binary, shared, args.seconds, label) if shared else {}
        for case in [case for case in cases if case in OWN_PROCESS]:
            results[label].update(measure(binary, [case], args.seconds, label,
                                          **OWN_PROCESS[case]))
    labels = [label for label, _ in runs]
    if args.rt_priority and "cpu-hog" in cases:
        rt = measure(args.after, ["cpu-hog"], args.seconds, "after-rt", args.rt_priority)
        print(f"after with protocol_rt_priority {args.rt_priority}, cpu-hog: LACP worst "
              f"{rt['cpu-hog'][0]:.0f} ms late; show bond worst {rt['cpu-hog'][2]:.0f} ms "
              f"({rt['cpu-hog'][3]} unanswered); {rt['cpu-hog'][4]} table changes")
    print("\n| case | " + " | ".join(f"{l}: LACP worst late ms | {l}: BFD late | {l}: show bond "
                                      f"worst ms (unanswered) | {l}: table changes"
                                      for l in labels) + " |")
    print("|---|" + "---:|---:|---:|---:|" * len(labels))
    for case in cases:
        cells = []
        for label in labels:
            late, _, worst, failed, changes, bfd = results[label][case]
            cells += [f"{late:.0f}", str(bfd), f"{worst:.0f} ({failed})", str(changes)]
        print(f"| {case} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
