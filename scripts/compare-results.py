#!/usr/bin/env python3
"""compare-results.py [--subset] A B: compares two conformance reports (results.json) by case,
direction and status, ignoring durations and details. Prints the differences and exits 1 when the
two differ, or prints one line saying how many cases both have with the same outcomes. With
--subset, B is a selection of A's cases (make compat-docker-ci runs a subset of the suite): every
case of B must be in A with the same outcome, and B must not be empty."""
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
    args = sys.argv[1:]
    subset = bool(args) and args[0] == "--subset"
    if subset:
        args = args[1:]
    if len(args) != 2:
        raise SystemExit("usage: compare-results.py [--subset] A/results.json B/results.json")
    a_path, b_path = args
    a, b = load(a_path), load(b_path)
    if subset:
        if not b:
            print(f"compare-results: {b_path} has no case")
            return 1
        a = {k: v for k, v in a.items() if k in b}
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
    of = f" (a subset of {a_path}'s cases)" if subset else ""
    print(f"compare-results: the same {len(a)} cases with the same outcomes ({summary}) in {a_path} and {b_path}{of}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
