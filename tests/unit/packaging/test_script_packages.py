"""Each hack/ script installs the Debian packages it runs (hack/packages, hack/needs): a
fresh machine runs any of them first. The check hack/verify runs, on the real tree and on
a copy where a script forgets what it runs."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _check(hack: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(hack / "needs"), "--check"], capture_output=True, text=True)


def _copy(tmp_path: pathlib.Path, table: str, scripts: dict[str, str]) -> pathlib.Path:
    hack = tmp_path / "hack"
    hack.mkdir(parents=True)
    shutil.copy(ROOT / "hack/needs", hack / "needs")
    (hack / "packages").write_text(table)
    for name, body in scripts.items():
        path = hack / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/usr/bin/env bash\nset -euo pipefail\n" + body)
        path.chmod(0o644 if name.endswith(".sh") else 0o755)  # a library is sourced, not run
    return hack


def test_the_tree_passes():
    done = _check(ROOT / "hack")
    assert done.returncode == 0, done.stdout + done.stderr


def test_podman_with_the_runc_conf_needs_runc(tmp_path):
    # the bug a fresh machine met: build-images installed podman, and its containers.conf
    # names runc, which only hack/cluster-up --kubelet installed
    body = 'hack/needs build-images\nexport CONTAINERS_CONF=hack/containers.conf\npodman build .\n'
    hack = _copy(tmp_path, "build-images - podman:podman\n", {"build-images": body})
    done = _check(hack)
    assert done.returncode == 1 and "hack/build-images runs runc" in done.stdout
    hack = _copy(tmp_path / "fixed", "build-images - podman:podman runc:runc\n", {"build-images": body})
    assert _check(hack).returncode == 0


def test_a_command_from_a_sourced_file_counts_and_a_manifest_does_not(tmp_path):
    scripts = {
        "lib/common.sh": "up() { socat TCP-LISTEN:1 - ; }\n",
        "start": 'hack/needs start\nsource "$(dirname "$0")/lib/common.sh"\n'
                 'kubectl apply -f - <<EOF\ncommand: [sh, -c, "nc -w 2 host 443"]\nEOF\n',
    }
    hack = _copy(tmp_path, "start - curl:curl\n", scripts)
    done = _check(hack)
    assert done.returncode == 1 and "hack/start runs socat" in done.stdout and "nc" not in done.stdout.split("runs")[1]


def test_a_listed_script_must_call_needs_and_a_helper_names_what_installs_for_it(tmp_path):
    hack = _copy(tmp_path, "go - podman:podman\nstop via:go socat:socat\n",
                 {"go": "podman ps\n", "stop": "pkill socat\nsocat -V\n"})
    done = _check(hack)
    assert "hack/go has rows in hack/packages but never calls hack/needs go" in done.stdout
    assert "stop: run by go, whose rows do not install socat" in done.stdout
