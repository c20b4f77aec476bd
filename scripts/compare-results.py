#!/usr/bin/env python3
"""compare-results.py A B: compares two conformance reports (results.json) by case, direction and
status, ignoring durations and details. Prints the differences and exits 1 when the two differ, or
prints one line saying how many cases both have with the same outcomes."""
import json
import sys


def load(path):
    with open(path) as f:
        rows = json.load(f)
    out = {}
    for r in rows:
        key = (r["case"], r["direction"])
        if key in out:
            raise SystemExit(f"compare-results: {path}: {key[0]} {key[1]} appears twice")
        out[key] = r["status"]
    return out


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: compare-results.py A/results.json B/results.json")
    a_path, b_path = sys.argv[1], sys.argv[2]
    a, b = load(a_path), load(b_path)
    diffs = []
    for key in sorted(set(a) | set(b)):
        sa, sb = a.get(key, "(absent)"), b.get(key, "(absent)")
        if sa != sb:
            diffs.append(f"  {key[0]} {key[1]}: {sa} in {a_path}, {sb} in {b_path}")
    if diffs:
        print(f"compare-results: {len(diffs)} of {len(set(a) | set(b))} cases differ:")
        print("\n".join(diffs))
        return 1
    counts = {}
    for s in a.values():
        counts[s] = counts.get(s, 0) + 1
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    print(f"compare-results: the same {len(a)} cases with the same outcomes ({summary}) in {a_path} and {b_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
