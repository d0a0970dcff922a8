"""Fixtures of the interop suite: `make_rig(partner, ...)` builds a Rig (interop_lib.py) in the
test's own namespace and veths and tears all of it down when the test ends, passed or not."""

import os

import pytest

from interop_lib import Rig


def pytest_collection_modifyitems(items):
    if os.geteuid() != 0:
        skip = pytest.mark.skip(reason="needs root: network namespaces, veths, AF_PACKET")
        for item in items:
            item.add_marker(skip)


@pytest.fixture
def make_rig(tmp_path):
    rigs = []

    def make(partner, **options):
        rig = Rig(tmp_path, partner)
        rigs.append(rig)
        return rig.build(**options)

    yield make
    for rig in rigs:
        rig.close()
