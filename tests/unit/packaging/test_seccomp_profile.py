"""The chart's seccomp profile for app pods (charts/iwc-operator/files/sandbox-seccomp.json,
written by hack/gen-seccomp): an allowlist that refuses by default, allows what the
sandbox needs (unshare for a network namespace of its own) and none of what a container
must not do."""

from __future__ import annotations

import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[3]
PROFILE = json.loads((ROOT / "charts/iwc-operator/files/sandbox-seccomp.json").read_text())


def _allowed() -> set[str]:
    return {name for rule in PROFILE["syscalls"] if rule["action"] == "SCMP_ACT_ALLOW" for name in rule["names"]}


def test_it_refuses_what_is_not_named():
    assert PROFILE["defaultAction"] == "SCMP_ACT_ERRNO" and PROFILE["defaultErrnoRet"] == 1
    assert all(rule.get("args") is None for rule in PROFILE["syscalls"])  # no conditional rule to misread


def test_it_allows_a_network_namespace_and_what_node_python_and_chromium_make():
    assert {"unshare", "clone", "clone3", "execve", "socket", "ioctl", "openat", "epoll_wait", "futex",
            "mmap", "io_getevents", "sched_yield", "prctl", "seccomp"} <= _allowed()


def test_it_refuses_what_runtime_defaults_refuse():
    assert not {"mount", "umount2", "setns", "pivot_root", "bpf", "keyctl", "add_key",
                "init_module", "finit_module", "kexec_load", "reboot", "perf_event_open", "userfaultfd",
                "io_uring_setup", "process_vm_readv", "open_by_handle_at", "fsopen", "move_mount",
                "clock_settime", "swapon", "syslog"} & _allowed()


def test_one_file_serves_x86_64_and_arm64_nodes():
    """arm64 nodes (Graviton, Ampere) resolve the names from the generic table: the calls
    only arm64 has are named too, and the 32-bit time64 clock setters stay refused."""
    arches = {m["architecture"] for m in PROFILE["archMap"]}
    assert arches == {"SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"}
    # x86-64 has none of these; an arm64 Node or glibc makes them
    assert {"renameat2", "faccessat2", "pselect6", "ppoll", "newfstatat", "sync_file_range2"} <= _allowed()
    assert not {"clock_settime64", "clock_adjtime64"} & _allowed()
