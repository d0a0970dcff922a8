"""What the abuse tests and the control-abuse benchmark share: a control-socket client that
speaks the wire protocol itself (so a test can pipeline, stay idle or never read), the
misbehaving clients (a pipelined burst, idle connections, a client that never reads, slowloris
connections to /metrics), a pcap of Slow Protocols frames for a flood, and readers for what
braid reports (bond events on the monotonic clock, `show control`'s lateness table, VmRSS), and
a thread of braid's held still with ptrace (a worker stuck in its PMD, a descheduled loop)."""

import ctypes
import ctypes.util
import errno
import json
import os
import pathlib
import random
import re
import resource
import select
import selectors
import socket
import struct
import threading
import time


def frame(line):
    """One request frame: a 4-byte big-endian length and `<mode> <command line>`."""
    payload = line.encode()
    return struct.pack(">I", len(payload)) + payload


def split_frames(buffer):
    """(complete frame payloads, rest of the buffer)."""
    frames = []
    while len(buffer) >= 4:
        size = struct.unpack(">I", buffer[:4])[0]
        if len(buffer) < 4 + size:
            break
        frames.append(buffer[4:4 + size])
        buffer = buffer[4 + size:]
    return frames, buffer


class ControlClient:
    """One connection to braid's control socket, one request at a time."""

    def __init__(self, path, timeout_s=30):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout_s)
        self.sock.connect(str(path))
        self._buffer = b""
        self._frames = []
        self.requests = 0

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def receive(self):
        """The next reply frame's payload, or None when braid closed the connection."""
        while not self._frames:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                return None
            frames, self._buffer = split_frames(self._buffer + chunk)
            self._frames.extend(frames)
        return self._frames.pop(0)

    def ask(self, line):
        """Sends one request (`text show bond`, `json show control`); returns (ok, body)."""
        self.sock.sendall(frame(line))
        self.requests += 1
        reply = self.receive()
        assert reply is not None, f"braid closed the connection instead of answering {line!r}"
        status, _, body = reply.decode("utf-8", "replace").partition("\n")
        return status == "ok", body

    def json(self, words):
        ok, body = self.ask("json " + words)
        assert ok, body
        return json.loads(body)

    def timed_json(self, words):
        """(monotonic ns before sending, the parsed reply, monotonic ns after it arrived)."""
        before = time.monotonic_ns()
        result = self.json(words)
        return before, result, time.monotonic_ns()


def age_ns(text):
    """An event age as braid prints it ("-1.234s") in nanoseconds."""
    return round(float(text.lstrip("-").rstrip("s")) * 1e9)


def event_window(client, bond, pattern, after_ns, queries=5):
    """When the first event of `bond` matching `pattern` (a regex) that happened after
    `after_ns` happened, on CLOCK_MONOTONIC: (earliest, latest) ns, or None when there is none.
    braid gives each event's age at the moment the command ran (millisecond resolution), which
    lies between sending the request and receiving the reply; intersecting several such
    brackets narrows the window to about a millisecond."""
    low, high = 0, None
    for _ in range(queries):
        before, result, after = client.timed_json(f"show bond {bond}")
        match = None
        for event in result[bond]["recent_events"]:
            if re.search(pattern, event["event"]):
                age = age_ns(event["age"])
                if after - age + 500_000 >= after_ns:
                    match = age
                    break
        if match is None:
            return None
        low = max(low, before - match - 500_000)
        high = after - match + 500_000 if high is None else min(high, after - match + 500_000)
    return low, high


def show_control(client):
    return client.json("show control")


def lateness_ms(control):
    """`show control`'s deadline table as {kind: row}."""
    return {row["deadline"]: row for row in control["deadlines"]}


def vm_rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS in /proc/{pid}/status")


def raise_fd_limit(wanted):
    """Raises this process's soft RLIMIT_NOFILE to at least `wanted` (up to the hard limit);
    returns the soft limit now in effect."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        soft = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


class PipelinedBurst:
    """`count` copies of one request written at once on one connection, and everything braid
    sends back read by a thread: all the replies, or a refusal and the connection closed."""

    def __init__(self, path, line, count):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.data = frame(line) * count
        self.count = count
        self.replies = []
        self.written = 0
        self.write_error = None
        self.closed_by_braid = False
        self._reader = threading.Thread(target=self._read, name="burst-reader", daemon=True)

    def run(self, timeout_s=300):
        self.started_ns = time.monotonic_ns()
        self._reader.start()
        try:
            self.sock.sendall(self.data)
            self.written = len(self.data)
        except OSError as error:  # braid hung up on us while we were still writing
            self.write_error = errno.errorcode.get(error.errno, str(error.errno))
        self._reader.join(timeout_s)
        self.finished_ns = time.monotonic_ns()
        self.sock.close()
        return self

    def _read(self):
        buffer = b""
        while len(self.replies) < self.count:
            try:
                chunk = self.sock.recv(1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                self.closed_by_braid = True
                break
            buffer += chunk
            frames, buffer = split_frames(buffer)
            self.replies.extend(frames)

    def ok_replies(self):
        return sum(1 for r in self.replies if r.startswith(b"ok\n"))

    def errors(self):
        return [r.decode("utf-8", "replace") for r in self.replies if not r.startswith(b"ok\n")]

    def summary(self):
        refused = self.errors()
        return (f"{self.ok_replies()} of {self.count} answered ok"
                + (f", then {refused[-1].strip()!r}" if refused else "")
                + (", connection closed by braid" if self.closed_by_braid else "")
                + (f", write failed ({self.write_error})" if self.write_error else ""))


class WindowedLoad:
    """A client that keeps up to `window` requests in flight (within braid's pending limit)
    until `duration_s` has passed or `total` were answered: the sustained form of a pipelined
    burst. Runs in a thread; counts replies and the failed ones."""

    def __init__(self, path, line, window=200, duration_s=8.0, total=30000):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(str(path))
        self.request = frame(line)
        self.window, self.duration_s, self.total = window, duration_s, total
        self.answered = 0
        self.failed = []
        self.elapsed_s = 0.0
        self._thread = threading.Thread(target=self._run, name="windowed-load", daemon=True)

    def start(self):
        self._thread.start()
        return self

    def join(self):
        self._thread.join(self.duration_s + 120)
        self.sock.close()
        return self

    def _run(self):
        start = time.monotonic()
        sent = 0
        buffer = b""
        while self.answered < sent or (sent < self.total and
                                       time.monotonic() - start < self.duration_s):
            if sent < self.total and time.monotonic() - start < self.duration_s:
                more = min(self.window - (sent - self.answered), self.total - sent)
                if more > 0:
                    self.sock.sendall(self.request * more)
                    sent += more
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                self.failed.append("connection closed by braid")
                break
            buffer += chunk
            frames, buffer = split_frames(buffer)
            for reply in frames:
                self.answered += 1
                if not reply.startswith(b"ok\n"):
                    self.failed.append(reply.decode("utf-8", "replace")[:200])
        self.elapsed_s = time.monotonic() - start


def open_idle_connections(path, count, gap_s=0.05):
    """`count` connections that never send anything, opened `gap_s` apart (so that braid sees
    a definite order of idleness)."""
    connections = []
    for _ in range(count):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(str(path))
        connections.append(sock)
        time.sleep(gap_s)
    return connections


def pending_reply(sock, timeout_s=5.0):
    """What braid sent on an otherwise idle connection before closing it: (frame payload or
    None, closed). Waits up to timeout_s for braid to act."""
    sock.settimeout(timeout_s)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                frames, _ = split_frames(data)
                return (frames[0] if frames else None), True
            data += chunk
    except (socket.timeout, BlockingIOError):
        frames, _ = split_frames(data)
        return (frames[0] if frames else None), False
    except ConnectionResetError:
        frames, _ = split_frames(data)
        return (frames[0] if frames else None), True


class NonReader:
    """A client that writes requests and never reads a reply. It keeps at most `max_waiting` of
    its requests waiting in braid (it learns how many braid took from `show control`'s
    socket_requests through a second connection, `pacer`), so that what braid cuts it off for
    is the replies it leaves unread, not the pending-request limit."""

    def __init__(self, path, line, pacer, max_waiting=96, batch=32):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.sock.setblocking(False)
        self.request = frame(line)
        self.pacer = pacer
        self.max_waiting, self.batch = max_waiting, batch
        self.sent = 0
        self.cut_off_error = None
        self.other_requests = 0  # requests of other clients since `base` (the caller adds)

    def run(self, timeout_s):
        base = show_control(self.pacer)["socket_requests"]
        pacer_base = self.pacer.requests
        deadline = time.monotonic() + timeout_s
        unsent = b""
        poller = select.poll()
        poller.register(self.sock.fileno(), select.POLLOUT)
        while time.monotonic() < deadline:
            # braid closed it: the next write says so (EPIPE). Nothing is ever read.
            if any(events & (select.POLLHUP | select.POLLERR) for _, events in poller.poll(0)):
                try:
                    self.sock.send(self.request)
                except OSError as error:
                    self.cut_off_error = errno.errorcode.get(error.errno, str(error.errno))
                    return self
            taken = (show_control(self.pacer)["socket_requests"] - base
                     - (self.pacer.requests - pacer_base) - self.other_requests)
            if not unsent and self.sent - taken < self.max_waiting:
                unsent = self.request * self.batch
            if unsent:
                try:
                    written = self.sock.send(unsent)
                    unsent = unsent[written:]
                    if not unsent:
                        self.sent += self.batch
                except BlockingIOError:
                    pass
                except OSError as error:
                    self.cut_off_error = errno.errorcode.get(error.errno, str(error.errno))
                    return self
            time.sleep(0.02)
        return self

    def close(self):
        self.sock.close()


SLOWLORIS_HEAD = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


class Slowloris:
    """`count` connections to an HTTP port, each sending part of a request and then one more
    byte every `drip_s`, never finishing its headers; a connection braid closes is opened again
    at its next drip (an attacker keeps its count up). Runs in a thread until stop()."""

    def __init__(self, host, port, count=500, drip_s=0.5):
        self.address = (host, port)
        self.count, self.drip_s = count, drip_s
        self.selector = selectors.DefaultSelector()
        self.socks = {}  # slot -> socket
        self.next_drip = {}
        self.sent_head = {}
        self.opened = 0
        self.closed_by_server = 0
        self.connect_failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="slowloris", daemon=True)

    def _open(self, slot):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.connect(self.address)
        except BlockingIOError:
            pass
        except OSError:
            self.connect_failures += 1
            sock.close()
            return
        self.socks[slot] = sock
        self.selector.register(sock, selectors.EVENT_READ, slot)
        self.next_drip[slot] = time.monotonic() + random.uniform(0, self.drip_s)
        self.sent_head[slot] = False
        self.opened += 1

    def _close(self, slot):
        sock = self.socks.pop(slot, None)
        if sock is not None:
            self.selector.unregister(sock)
            sock.close()
        self.next_drip[slot] = time.monotonic() + self.drip_s  # reconnects at its next drip

    def start(self):
        for slot in range(self.count):
            self._open(slot)
        self._thread.start()
        return self

    def open_now(self):
        return len(self.socks)

    def _run(self):
        while not self._stop.is_set():
            for key, _ in self.selector.select(timeout=0.05):
                slot = key.data
                try:
                    data = key.fileobj.recv(4096)
                except OSError:
                    data = b""
                if not data:  # braid closed it (evicted, or its header deadline passed)
                    self.closed_by_server += 1
                    self._close(slot)
            now = time.monotonic()
            for slot in range(self.count):
                if now < self.next_drip.get(slot, 0):
                    continue
                sock = self.socks.get(slot)
                if sock is None:
                    self._open(slot)
                    continue
                self.next_drip[slot] = now + self.drip_s
                try:
                    sock.send(b"a" if self.sent_head[slot] else SLOWLORIS_HEAD)
                    self.sent_head[slot] = True
                except BlockingIOError:
                    pass  # still connecting
                except OSError:
                    self.closed_by_server += 1
                    self._close(slot)

    def stop(self):
        self._stop.set()
        self._thread.join()
        for slot in list(self.socks):
            self._close(slot)
        self.selector.close()


def write_slow_protocols_pcap(path, frames=1024, subtype=0x01):
    """A pcap of `frames` 60-byte frames to the Slow Protocols group address with EtherType
    0x8809, each from its own source MAC; by default of subtype 1 with a body of zeros: LACPDUs
    that LACP refuses as malformed (version 0), which only the rate limit can keep back (a
    subtype braid does not run is dropped at once, as slow_unsupported)."""
    header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    records = []
    for k in range(frames):
        src = bytes([0x02, 0xF1, 0x00, (k >> 16) & 0xFF, (k >> 8) & 0xFF, k & 0xFF])
        body = bytes.fromhex("0180c2000002") + src + b"\x88\x09" + bytes([subtype, 1])
        body += bytes(60 - len(body))
        records.append(struct.pack("<IIII", 0, k, len(body), len(body)) + body)
    with open(path, "wb") as out:
        out.write(header + b"".join(records))


def paired_bonds_config(links, socket_path, metrics_port, tag):
    """Two LACP bonds (rate fast) that are each other's partner over veth pairs: "uplink" on
    the a-ends (members m0, m1, ...), "switch" on the b-ends (p0, p1, ...), net_af_packet."""
    ports = []
    for k, (a, b) in enumerate(links):
        ports.append(f'  - {{name: m{k}, device: "net_af_packet_{tag}a{k},iface={a},qpairs=2"}}')
        ports.append(f'  - {{name: p{k}, device: "net_af_packet_{tag}b{k},iface={b},qpairs=2"}}')
    members = ", ".join(f"m{k}" for k in range(len(links)))
    peers = ", ".join(f"p{k}" for k in range(len(links)))
    metrics = f'"127.0.0.1:{metrics_port}"' if metrics_port else '"off"'
    ports_text = "\n".join(ports)
    return f"""ports:
{ports_text}
  - {{name: host, device: "net_null_{tag}h,no-rx=1"}}
  - {{name: sink, device: "net_null_{tag}s,no-rx=1"}}
bonds:
  - {{name: uplink, members: [{members}], mode: lacp, lacp: {{rate: fast}}}}
  - {{name: switch, members: [{peers}], mode: lacp, mac: "02:5a:00:00:00:01",
      lacp: {{rate: fast, system_priority: 100}}}}
workers:
  lcores: [1]
cross_connect:
  - [host, uplink]
  - [sink, switch]
control:
  socket: {socket_path}
metrics:
  listen: {metrics}
"""


def slow_frame_hex(subtype, source="02f100000001"):
    """A 60-byte frame to the Slow Protocols group address with `subtype` and a body of zeros
    (for subtype 1: a LACPDU of version 0, which LACP refuses as malformed)."""
    return "0180c2000002" + source + "8809" + f"{subtype:02x}" + "00" * 45


def start_flood(ifname, frame_hex, rate_pps=None):
    """A process sending one frame over and over on `ifname` (an AF_PACKET socket), as fast as
    it can or about `rate_pps` a second (in batches of 100); stop it with SIGKILL."""
    pacing = "" if rate_pps is None else f"  time.sleep(max(0, start + n / {rate_pps} - time.monotonic()))\n"
    sender = ("import socket, sys, time\n"
              "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
              "s.bind((sys.argv[1], 0))\n"
              "f = bytes.fromhex(sys.argv[2])\n"
              "start, n = time.monotonic(), 0\n"
              "while True:\n"
              "  for _ in range(100):\n"
              "    try: s.send(f)\n"
              "    except OSError: pass\n"
              "  n += 100\n" + pacing)
    import subprocess
    import sys as _sys
    return subprocess.Popen([_sys.executable, "-c", sender, ifname, frame_hex])


def non_reading_scrapers(host, port, count, path="/metrics"):
    """`count` connections that each send `GET path` at once and never read the answer (a
    receive buffer of 4 KiB: braid's answer cannot leave its send buffer)."""
    socks = []
    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        try:
            sock.connect((host, port))
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: braid\r\n\r\n".encode())
        except OSError:
            sock.close()
            continue
        socks.append(sock)
    return socks


def http_exchange(host, port, request, half_close=False, timeout_s=5.0):
    """Sends `request` (bytes, as is), optionally half-closes, and reads until braid closes:
    (status or None, headers {lower-case name: value}, body, seconds, error name or None)."""
    start = time.monotonic()
    data, error = b"", None
    with socket.create_connection((host, port), timeout=timeout_s) as sock:
        try:
            sock.sendall(request)
            if half_close:
                sock.shutdown(socket.SHUT_WR)
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        except OSError as failure:
            error = type(failure).__name__
    seconds = time.monotonic() - start
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1]) if lines[0].startswith("HTTP/1.1 ") else None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body, seconds, error


def pending_eof(sock):
    """Whether braid closed `sock` (EOF or reset, after whatever it had sent)."""
    sock.setblocking(False)
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


PTRACE_DETACH, PTRACE_SEIZE, PTRACE_INTERRUPT = 17, 0x4206, 0x4207
WALL = 0x40000000  # __WALL: wait for a thread of another process too


def thread_id(pid, name):
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        if (task / "comm").read_text().strip() == name:
            return int(task.name)
    raise AssertionError(f"no thread {name} in braid {pid}")


def held(tid, seconds, during):
    """Holds thread `tid` still for `seconds` (PTRACE_SEIZE + PTRACE_INTERRUPT stop that thread
    alone), calling during() every 0.2 s; returns what the last call returned."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    assert libc.ptrace(PTRACE_SEIZE, tid, None, None) == 0, os.strerror(ctypes.get_errno())
    try:
        assert libc.ptrace(PTRACE_INTERRUPT, tid, None, None) == 0, os.strerror(ctypes.get_errno())
        os.waitpid(tid, WALL)
        result = None
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            result = during()
            time.sleep(0.2)
        return result
    finally:
        libc.ptrace(PTRACE_DETACH, tid, None, None)
