"""Writes the sandbox's seccomp profile onto a node: the program of the chart's DaemonSet
``iwc-sandbox-profile`` (docs/kubernetes.md, "The sandbox by default").

The kubelet reads a Localhost seccomp profile from ``<root-dir>/seccomp/<path>`` when it
creates a container; app pods name ``iwc-bench/sandbox.json``. The DaemonSet mounts the
profile (the ConfigMap ``iwc-sandbox-seccomp``) and the node's seccomp folder, and this
keeps the node's copy equal to the ConfigMap's: written once at start (through a
temporary file and a rename, so the kubelet never reads half a profile), again whenever
the ConfigMap changes (an upgrade). It is ready (its readiness probe, ``--check``) while
the two are equal; the operator gives app pods the profile only while the DaemonSet is
ready on the nodes.

Standard library only: it runs in the operator's image with 48 MiB.

    python -m iwcbench.operator.profile_installer --source /profile/sandbox.json \\
        --target /host-seccomp/iwc-bench/sandbox.json [--every 30] [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time
from typing import Sequence


def _valid(data: bytes) -> str | None:
    """Why ``data`` is no seccomp profile the runtimes take, or None."""
    try:
        profile = json.loads(data)
    except ValueError as exc:
        return f"not JSON: {exc}"
    if not isinstance(profile, dict) or "defaultAction" not in profile:
        return "no defaultAction: not a seccomp profile"
    return None


def install(source: pathlib.Path, target: pathlib.Path) -> bool:
    """Make ``target`` hold what ``source`` holds; True when it was written."""
    data = source.read_bytes()
    problem = _valid(data)
    if problem:
        raise ValueError(f"{source}: {problem}")
    if target.exists() and target.read_bytes() == data:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    partial.write_bytes(data)
    partial.chmod(0o644)
    os.replace(partial, target)
    return True


def installed(source: pathlib.Path, target: pathlib.Path) -> bool:
    """The node's copy is the ConfigMap's."""
    try:
        return target.read_bytes() == source.read_bytes()
    except OSError:
        return False


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="profile_installer", description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=pathlib.Path, required=True, help="the profile (mounted ConfigMap)")
    parser.add_argument("--target", type=pathlib.Path, required=True, help="where the kubelet reads it")
    parser.add_argument("--every", type=float, default=30.0, help="seconds between two comparisons")
    parser.add_argument("--check", action="store_true", help="exit 0 when installed, 1 otherwise (the probe)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.check:
        return 0 if installed(args.source, args.target) else 1
    while True:
        try:
            if install(args.source, args.target):
                print(f"profile_installer: wrote {args.target}", flush=True)
        except (OSError, ValueError) as exc:
            # not ready (the probe fails) and said why; tried again, as a ConfigMap
            # update or a remounted folder may mend it
            print(f"profile_installer: cannot write {args.target}: {exc}", file=sys.stderr, flush=True)
        time.sleep(args.every)


if __name__ == "__main__":
    sys.exit(main())
