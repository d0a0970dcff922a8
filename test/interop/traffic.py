"""Test traffic over AF_PACKET sockets: UDP frames over many flows, each carrying a stream tag
and a sequence number, sent at a paced rate; and taps that record, per interface, every tagged
frame (time, stream, sequence) and every LACPDU (time, actor and partner state) that arrives.

A tap counts only what arrives on its interface (PACKET_OUTGOING is skipped), so a tap on each
end of a member veth tells which member a frame crossed and in which direction, whatever the
PMD on the other end does (net_af_packet bypasses the qdisc, so its own transmissions are not
visible to other sockets on the sending side anyway)."""

import array
import errno
import select
import socket
import struct
import threading
import time

from netlab import in_netns

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_STATISTICS = 6
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33
SO_SNDBUFFORCE = 32
SO_TIMESTAMPNS = 35  # asm-generic/socket.h (SO_TIMESTAMPNS_OLD): a struct timespec per frame

MAGIC = b"BrIo"
PAYLOAD_OFFSET = 14 + 20 + 8
SEQ_OFFSET = PAYLOAD_OFFSET + 8
FRAME_LEN = 60  # the minimum Ethernet frame without FCS

SLOW_PROTOCOLS = 0x8809
LACP_SUBTYPE = 1
# 802.1AX 6.4.2.3: Actor_State and Partner_State offsets in a LACPDU frame (from the MAC header).
ACTOR_STATE_OFFSET = 14 + 18
PARTNER_STATE_OFFSET = 14 + 38

# 802.1AX 6.4.2.3 state bits.
ACTIVITY, TIMEOUT, AGGREGATION, SYNC, COLLECTING, DISTRIBUTING, DEFAULTED, EXPIRED = (
    1 << b for b in range(8))


def mac_bytes(text):
    return bytes(int(part, 16) for part in text.split(":"))


def _ipv4_checksum(header):
    total = sum(struct.unpack("!10H", header))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return (~total) & 0xFFFF


def frame_template(src_mac, dst_mac, stream, flow):
    """A UDP frame of flow `flow` (its own source address and port: every hash policy that
    looks at L3 or L4 tells the flows apart) with the sequence number left zero. Address and
    port are scrambled, not counted up together: DPDK's l34 hash XORs them and folds the
    result, so addresses and ports that step in step cancel out and every flow lands on the
    same member."""
    src_ip = bytes([10, 200, (flow * 37) % 251, 1 + (flow * 101) % 253])
    dst_ip = bytes([10, 99, 0, 1])
    udp_len = FRAME_LEN - 14 - 20
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, 0, 0x4000, 64, 17, 0,
                               src_ip, dst_ip))
    struct.pack_into("!H", ip, 10, _ipv4_checksum(bytes(ip)))
    udp = struct.pack("!HHHH", 10000 + (flow * 7919) % 50000, 7777, udp_len, 0)
    payload = MAGIC + stream.encode() + b"\0" + struct.pack("!H", flow) + b"\0" * 4
    frame = mac_bytes(dst_mac) + mac_bytes(src_mac) + b"\x08\x00" + bytes(ip) + udp + payload
    return frame + b"\0" * (FRAME_LEN - len(frame))


def packet_socket(ifname, ns=None):
    with in_netns(ns):
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
        sock.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 4 << 20)
        sock.bind((ifname, 0))
    return sock


class Stream:
    """Frames tagged `stream` (one letter) sent from `ifname` at `pps` over `flows` flows, a
    batch every millisecond, from start() to stop() (again and again: sequence numbers go on)."""

    def __init__(self, stream, ifname, ns, src_mac, dst_mac, pps, flows=64):
        self.stream = stream
        self.pps = pps
        self._templates = [frame_template(src_mac, dst_mac, stream, f) for f in range(flows)]
        self._sock = packet_socket(ifname, ns)
        self.sent = 0
        self.send_errors = 0  # the interface was down
        self._stop = threading.Event()
        self._thread = None

    def start(self):
        assert self._thread is None
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"send-{self.stream}", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        return self.sent

    def close(self):
        self.stop()
        self._sock.close()

    def send(self, count):
        """Sends `count` frames now, unpaced (warm-up frames for MAC learning)."""
        for _ in range(count):
            self._send_one()

    def _send_one(self):
        seq = self.sent
        template = self._templates[seq % len(self._templates)]
        frame = template[:SEQ_OFFSET] + struct.pack("!I", seq) + template[SEQ_OFFSET + 4:]
        try:
            self._sock.send(frame)
            self.sent += 1
        except OSError:
            self.send_errors += 1

    def _run(self):
        period_ns = 1_000_000
        per_batch = self.pps / 1000.0
        owed = 0.0
        next_ns = time.monotonic_ns()
        while not self._stop.is_set():
            now = time.monotonic_ns()
            if now < next_ns:
                time.sleep((next_ns - now) / 1e9)
                continue
            # Batches the scheduler kept us from are made up for 20 ms back at most: after a
            # longer stall the rate stays modest rather than bursting.
            next_ns = max(next_ns, now - 20 * period_ns)
            batches = (now - next_ns) // period_ns + 1
            next_ns += batches * period_ns
            owed += per_batch * batches
            count = int(owed)
            owed -= count
            for _ in range(count):
                self._send_one()


class TapRecord:
    """What one tap saw: per stream, arrival times and sequence numbers; LACPDUs with their
    actor and partner state."""

    def __init__(self):
        self.times = {}
        self.seqs = {}
        self.lacpdus = []  # (time_ns, actor_state, partner_state)
        self.other = 0     # frames that are neither tagged nor LACPDUs
        self.kernel_drops = 0

    def add(self, stream, seq, now):
        times = self.times.get(stream)
        if times is None:
            times = self.times[stream] = array.array("q")
            self.seqs[stream] = array.array("I")
        times.append(now)
        self.seqs[stream].append(seq)

    def count(self, stream, since_ns=0, until_ns=None):
        times = self.times.get(stream, ())
        return sum(1 for t in times if t >= since_ns and (until_ns is None or t < until_ns))

    def last(self, stream, since_ns=0, until_ns=None):
        """Time of the last frame of `stream` in [since_ns, until_ns) (None: none)."""
        times = [t for t in self.times.get(stream, ())
                 if t >= since_ns and (until_ns is None or t < until_ns)]
        return max(times) if times else None

    def first(self, stream, since_ns=0):
        times = [t for t in self.times.get(stream, ()) if t >= since_ns]
        return min(times) if times else None

    def unique(self, stream):
        return set(self.seqs.get(stream, ()))


class Taps:
    """Receives on a set of interfaces in one thread and records into a TapRecord each."""

    def __init__(self):
        self.records = {}
        self._socks = {}
        self._stop = threading.Event()
        self._thread = None

    def add(self, key, ifname, ns=None):
        """Taps `ifname` (in netns `ns`) as `key`; before start()."""
        sock = packet_socket(ifname, ns)
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        sock.setblocking(False)
        self.records[key] = TapRecord()
        self._socks[sock.fileno()] = (key, sock)
        return self.records[key]

    def __getitem__(self, key):
        return self.records[key]

    def start(self):
        self._thread = threading.Thread(target=self._run, name="taps", daemon=True)
        self._thread.start()
        return self

    def close(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        for _, sock in self._socks.values():
            sock.close()

    def settle(self, streams=("O", "I"), quiet_s=0.3, timeout_s=5.0):
        """Waits until no tap has received a frame of `streams` for quiet_s: what was in flight
        has landed (testpmd's pump, which never stops, is not waited for)."""
        deadline = time.monotonic() + timeout_s
        last_total = -1
        while time.monotonic() < deadline:
            total = sum(len(r.times.get(s, ())) for r in self.records.values() for s in streams)
            if total == last_total:
                return
            last_total = total
            time.sleep(quiet_s)

    def _run(self):
        poller = select.poll()
        for fd in self._socks:
            poller.register(fd, select.POLLIN)
        while not self._stop.is_set():
            for fd, _ in poller.poll(50):
                key, sock = self._socks[fd]
                self._drain(sock, self.records[key])
        for key, sock in self._socks.values():
            self._drain(sock, self.records[key])
            drops = struct.unpack("II", sock.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))[1]
            self.records[key].kernel_drops += drops

    @staticmethod
    def _drain(sock, record):
        # The kernel's receive timestamp (CLOCK_REALTIME), moved onto CLOCK_MONOTONIC: when the
        # frame arrived, not when this thread got round to it on a busy machine.
        offset = time.time_ns() - time.monotonic_ns()
        while True:
            try:
                frame, ancillary, _, address = sock.recvmsg(256, 64)
            except BlockingIOError:
                return
            except OSError as error:
                if error.errno == errno.ENETDOWN:  # the link went down: reported once
                    continue
                raise
            if address[2] == PACKET_OUTGOING:
                continue
            now = time.monotonic_ns()
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    seconds, nanoseconds = struct.unpack("qq", data[:16])
                    now = seconds * 1_000_000_000 + nanoseconds - offset
            if len(frame) >= SEQ_OFFSET + 4 and frame[PAYLOAD_OFFSET:PAYLOAD_OFFSET + 4] == MAGIC:
                record.add(chr(frame[PAYLOAD_OFFSET + 4]),
                           struct.unpack_from("!I", frame, SEQ_OFFSET)[0], now)
            elif (len(frame) > PARTNER_STATE_OFFSET and frame[12:14] == b"\x88\x09"
                  and frame[14] == LACP_SUBTYPE):
                record.lacpdus.append((now, frame[ACTOR_STATE_OFFSET], frame[PARTNER_STATE_OFFSET]))
            else:
                record.other += 1
