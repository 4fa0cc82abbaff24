"""A confined child is stopped at its first limit, with everything it started."""

from __future__ import annotations

import os
import pathlib
import socket
import sys
import time

import pytest

from iwcbench.pipeline.kits import confined

PY = sys.executable


def run(tmp_path, code: str, **limits):
    limits.setdefault("wall_s", 20)
    return confined.run([PY, "-c", code], confined.Limits(**limits), log=tmp_path / "log", cwd=tmp_path,
                        env={"PATH": os.environ["PATH"]}, disk_paths=(tmp_path / "out",))


def test_a_child_past_its_wall_time_is_killed_with_its_children(tmp_path):
    code = ("import subprocess, sys, time\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            "open('grandchild.pid', 'w').write(str(child.pid)); time.sleep(60)")
    done = run(tmp_path, code, wall_s=1.5)
    assert done.killed_for == "time" and done.returncode is None and not done.ok
    assert done.duration_s < 10
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    time.sleep(0.2)
    assert not alive(grandchild)


def alive(pid: int) -> bool:
    """Running (a killed process whose new parent has not reaped it yet is a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def test_resident_memory_of_the_group_is_capped(tmp_path):
    code = "import time\nblocks = []\nfor _ in range(60):\n    blocks.append(bytearray(20 * 2**20)); time.sleep(0.05)\ntime.sleep(30)"
    done = run(tmp_path, code, memory_bytes=300 * 2**20)
    assert done.killed_for == "memory"
    assert done.peak_memory_bytes > 300 * 2**20


def test_disk_written_under_the_watched_folder_is_capped(tmp_path):
    code = ("import os, time\nos.makedirs('out', exist_ok=True)\n"
            "for i in range(200):\n    open(f'out/{i}', 'wb').write(os.urandom(2**20)); time.sleep(0.02)\ntime.sleep(30)")
    done = run(tmp_path, code, disk_bytes=40 * 2**20)
    assert done.killed_for == "disk"
    assert len(os.listdir(tmp_path / "out")) < 200


def test_a_finished_child_reports_its_exit_and_only_its_own_output(tmp_path):
    first = run(tmp_path, "print('first step')")
    second = run(tmp_path, "import sys; print('second step'); sys.exit(3)")
    assert first.ok and first.log_tail == "first step"
    assert second.returncode == 3 and second.killed_for is None
    assert second.log_tail == "second step"  # the log holds both; the tail only this one's
    assert "first step" in (tmp_path / "log").read_text()


@pytest.mark.skipif(not confined.network_isolation(), reason="no unprivileged network namespaces here")
def test_an_isolated_child_cannot_reach_a_server_on_this_machine(tmp_path):
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    code = (f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
            f"    print('reached')\nexcept OSError as e:\n    print('refused', e)")
    try:
        isolated = run(tmp_path, code, isolate_network=True)
        open_ = run(tmp_path, code, isolate_network=False)
    finally:
        server.close()
    assert isolated.network_isolated and isolated.log_tail.startswith("refused")
    assert open_.log_tail == "reached"



@pytest.mark.skipif(not confined.network_isolation(), reason="no unprivileged network namespaces here")
def test_an_isolated_child_has_its_own_loopback_up_without_ip_on_its_path(tmp_path):
    """A build's own workers talk over 127.0.0.1 inside its namespace; the runner image
    has no `ip`, so loopback is raised without it."""
    code = ("import socket\nserver = socket.create_server(('127.0.0.1', 0))\n"
            "client = socket.create_connection(server.getsockname(), timeout=2)\n"
            "peer, _ = server.accept(); client.sendall(b'ping'); print(peer.recv(4).decode())")
    done = confined.run([PY, "-c", code], confined.Limits(wall_s=20, isolate_network=True), log=tmp_path / "log",
                        cwd=tmp_path, env={"PATH": str(tmp_path / "nothing-here")})
    assert done.network_isolated and done.log_tail == "ping", done.log_tail

PARENT = """
import os, pathlib, site, sys
site.addsitedir(os.environ['IWC_TEST_SITE'])  # the venv's packages, for a Python outside it
from iwcbench.pipeline.kits import confined
child = ("import os\\ntry:\\n    data = open('/proc/%d/environ', 'rb').read()\\n"
         "    print('read', b's3cr3t-value' in data)\\nexcept OSError as e:\\n    print('refused', e.errno)") % os.getpid()
done = confined.run([sys.executable, '-c', child], confined.Limits(wall_s=20, isolate_network=sys.argv[1] == '1'),
                    log=pathlib.Path(sys.argv[2]), cwd=sys.argv[3], env={'PATH': os.environ['PATH']})
print(done.log_tail)
"""


def test_a_child_cannot_read_the_secrets_in_our_environment(tmp_path_factory):
    import shutil
    import subprocess
    import sysconfig
    import tempfile
    # As root the child could read anything: run as a plain user, as the pods do, with
    # a Python and a folder that user can reach.
    user = {"user": 65534, "group": 65534} if os.geteuid() == 0 else {}
    python = shutil.which("python3", path="/usr/bin") if user else PY
    if python is None:
        pytest.skip("no /usr/bin/python3 for the unprivileged user")
    folder = pathlib.Path(tempfile.mkdtemp(prefix="iwc-environ-"))
    folder.chmod(0o777)
    try:
        done = subprocess.run([python, "-c", PARENT, "0", str(folder / "log"), str(folder)],
                              env={"PATH": os.environ["PATH"], "IWC_TEST_SECRET": "s3cr3t-value",
                                   "HOME": str(folder), "IWC_TEST_SITE": sysconfig.get_paths()["purelib"]},
                              capture_output=True, text=True, timeout=60, cwd=folder, **user)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert done.stdout.strip().startswith("refused"), done.stdout + done.stderr
