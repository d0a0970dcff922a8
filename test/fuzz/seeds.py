"""Writes a fuzz target's seed corpus: one file per seed, named after it, in a folder emptied of
the seeds an earlier run wrote. Shared by the make_corpus.py scripts beside it."""
import pathlib


def write_seeds(out: pathlib.Path, seeds: dict, check=None):
    """Replaces the *.bin files in `out` with `seeds` ({name: bytes}); `check(name, data)` may
    assert what every seed must be."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.bin"):
        stale.unlink()
    for name, data in seeds.items():
        if check is not None:
            check(name, data)
        (out / f"{name}.bin").write_bytes(data)
    print(f"wrote {len(seeds)} seeds to {out}")
