"""What the app tests share: a braid started on a config until its control socket answers (and
stopped by PID however the test ends), braidctl one-shot calls, and a free TCP port."""

import contextlib
import json
import os
import pathlib
import socket
import subprocess
import threading
import time

BRAID = os.environ.get("BRAID", "build/app/braid/braid")
BRAIDCTL = os.environ.get("BRAIDCTL", "build/app/braidctl/braidctl")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop(process):
    """Stops a braid this test started: SIGTERM, then SIGKILL after 30 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_for(path, process, log_path, timeout=60):
    deadline = time.monotonic() + timeout
    while not pathlib.Path(path).exists():
        assert process.poll() is None, pathlib.Path(log_path).read_text()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.1)


@contextlib.contextmanager
def running_braid(config, directory, prefix, socket_path, settle=1.5):
    """Starts braid on `config` (its log in `directory`), waits for its control socket and
    `settle` seconds more (rate samples, scheduler periods), yields the process, stops it."""
    log_path = pathlib.Path(directory) / "braid.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen([BRAID, "--config", str(config), "--stats-interval", "0", "--",
                                    f"--file-prefix={prefix}"], stdout=log,
                                   stderr=subprocess.STDOUT)
        try:
            wait_for(socket_path, process, log_path)
            time.sleep(settle)
            yield process
        finally:
            stop(process)


def ctl(running, *words, check=True):
    """braidctl one-shot against running["socket"]; asserts success unless check=False."""
    result = subprocess.run([BRAIDCTL, "--socket", running["socket"], *words],
                            capture_output=True, text=True, timeout=30)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def ctl_json(running, *words):
    return json.loads(ctl(running, "--json", *words).stdout)


class Sampler:
    """A `with` block during which a thread calls self.sample() every `period_s` (a subclass
    defines sample()); the thread stops when the block ends."""

    def __init__(self, period_s):
        self.period_s = period_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=type(self).__name__, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def sample(self):
        raise NotImplementedError

    def _run(self):
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.period_s)
