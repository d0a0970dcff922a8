"""Network namespaces and veth pairs for the interop tests: each test gets its own namespace
(the partner's side) and its own veths, named after the test process's PID so that parallel runs
and other engineers' tests never collide, and removed however the test ends."""

import contextlib
import ctypes
import itertools
import os
import pathlib
import select
import socket
import struct
import subprocess
import threading
import time

CLONE_NEWNET = 0x40000000
IFNAMSIZ = 16  # interface names are at most 15 characters

_libc = ctypes.CDLL(None, use_errno=True)
_serial = itertools.count()


def sh(*argv, ns=None, check=True):
    """Runs a command (inside netns `ns` when given); returns its stdout."""
    argv = [str(a) for a in argv]
    if ns is not None:
        argv = ["ip", "netns", "exec", ns, *argv]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {result.returncode}: {result.stderr.strip()}")
    return result.stdout


@contextlib.contextmanager
def in_netns(ns):
    """Runs the body with the calling thread in netns `ns` (None: stay): sockets made inside
    keep that namespace after the thread returns to its own."""
    if ns is None:
        yield
        return
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        if _libc.setns(target, CLONE_NEWNET) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"setns({ns}): {os.strerror(errno)}")
        try:
            yield
        finally:
            if _libc.setns(own, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back to the test's own netns failed")
    finally:
        os.close(target)
        os.close(own)


class LinkNotifications:
    """The kernel's RTM_NEWLINK notifications for one interface of this namespace, each
    timestamped (time.monotonic_ns) as a reader thread receives it: the same notifications braid
    reads (RTMGRP_LINK), so a test can tell the kernel's delay (a carrier change reaches
    userspace only once linkwatch runs, under the RTNL lock other tests' namespace and veth
    changes hold) from braid's own."""

    RTMGRP_LINK = 1
    RTM_NEWLINK = 16
    IFF_UP, IFF_RUNNING = 0x1, 0x40
    _HEADER = struct.Struct("=IHHII")  # nlmsghdr: len, type, flags, seq, pid
    _INFO = struct.Struct("=BxHiII")  # ifinfomsg: family, type, index, flags, change

    def __init__(self, ifname):
        self.ifindex = socket.if_nametoindex(ifname)
        self.seen = []  # (monotonic ns, up)
        self._socket = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        self._socket.bind((0, self.RTMGRP_LINK))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        while not self._stop.is_set():
            if not select.select([self._socket], [], [], 0.05)[0]:
                continue
            data, at = self._socket.recv(65536), time.monotonic_ns()
            offset = 0
            while offset + self._HEADER.size <= len(data):
                length, kind, _, _, _ = self._HEADER.unpack_from(data, offset)
                if length < self._HEADER.size:
                    break
                if kind == self.RTM_NEWLINK and length >= self._HEADER.size + self._INFO.size:
                    _, _, index, flags, _ = self._INFO.unpack_from(data, offset + self._HEADER.size)
                    if index == self.ifindex:
                        up = flags & (self.IFF_UP | self.IFF_RUNNING) == (self.IFF_UP | self.IFF_RUNNING)
                        self.seen.append((at, up))
                offset += (length + 3) & ~3

    def first(self, up, since_ns):
        """When the first notification saying `up` arrived at or after since_ns, or None."""
        return next((t for t, state in list(self.seen) if state == up and t >= since_ns), None)

    def close(self):
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join()
        self._socket.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class NetLab:
    """One test's namespace and veths. `tag` prefixes every interface name ('i<pid>n<k>')."""

    def __init__(self):
        serial = next(_serial)
        self.ns = f"bi{os.getpid()}x{serial}"
        self.tag = f"i{os.getpid()}n{serial}"
        self._host_links = []  # host-namespace ends: deleting one deletes its pair
        self._ns_made = False

    def create(self):
        sh("ip", "netns", "add", self.ns)
        self._ns_made = True
        sh("ip", "link", "set", "lo", "up", ns=self.ns)
        return self

    def name(self, suffix):
        name = self.tag + suffix
        assert len(name) < IFNAMSIZ, name
        return name

    def veth(self, a, b, a_ns=None, b_ns=None):
        """A veth pair a <-> b (full names), each end in the host namespace or in self.ns,
        up, with IPv6 off so that the kernel sends nothing of its own (router solicitations,
        MLD reports) that the tests would have to tell from their traffic."""
        argv = ["ip", "link", "add", a, "type", "veth", "peer", "name", b]
        if b_ns is not None and b_ns != a_ns:
            argv += ["netns", b_ns]
        sh(*argv, ns=a_ns)
        if a_ns is None:
            self._host_links.append(a)
        elif b_ns is None:
            self._host_links.append(b)
        for end, ns in ((a, a_ns), (b, b_ns)):
            self.write_sysctl(f"net/ipv6/conf/{end}/disable_ipv6", "1", ns)
            sh("ip", "link", "set", end, "up", ns=ns)

    @staticmethod
    def write_sysctl(key, value, ns):
        if ns is None:
            pathlib.Path("/proc/sys", key).write_text(value)
        else:
            sh("sh", "-c", f"echo {value} > /proc/sys/{key}", ns=ns)

    @staticmethod
    def set_link(ifname, up, ns=None):
        sh("ip", "link", "set", ifname, "up" if up else "down", ns=ns)

    @staticmethod
    def stat(ifname, counter, ns=None):
        """A kernel interface counter (/sys/class/net/<if>/statistics/<counter>)."""
        if ns is None:
            return int(pathlib.Path(f"/sys/class/net/{ifname}/statistics/{counter}").read_text())
        return int(sh("cat", f"/sys/class/net/{ifname}/statistics/{counter}", ns=ns))

    @staticmethod
    def mac(ifname, ns=None):
        return sh("cat", f"/sys/class/net/{ifname}/address", ns=ns).strip()

    @staticmethod
    def operstate(ifname, ns=None):
        return sh("cat", f"/sys/class/net/{ifname}/operstate", ns=ns).strip()

    def close(self):
        for link in self._host_links:
            sh("ip", "link", "del", link, check=False)
        self._host_links = []
        if self._ns_made:
            sh("ip", "netns", "del", self.ns, check=False)
            self._ns_made = False
