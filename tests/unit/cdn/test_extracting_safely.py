"""npm tarballs are unpacked without trusting them."""

from __future__ import annotations

import tarfile

import pytest

from fakes import npm_registry
from iwcbench.pipeline.kits.mirror import npm


def _member(name: str, kind: bytes = tarfile.REGTYPE, size: int = 0, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.size, info.linkname = kind, size, link
    return info


def _archive(tmp_path, extra):
    data = npm_registry.tarball(npm_registry.Package("p", "1.0.0", {"dist/a.js": "ok"}), extra)
    path = tmp_path / "p.tgz"
    path.write_bytes(data)
    return path


def test_files_land_under_the_destination_without_the_first_folder(tmp_path):
    result = npm.extract(_archive(tmp_path, []), tmp_path / "out")
    assert (tmp_path / "out/dist/a.js").read_text() == "ok"
    assert (tmp_path / "out/package.json").is_file()
    assert result.files == 2 and result.skipped == ()


@pytest.mark.parametrize("member", [
    _member("package/../../escaped.js", size=3),
    _member("/abs/escaped.js", size=3),
    _member("package/link.js", tarfile.SYMTYPE, link="/etc/passwd"),
    _member("package/hard.js", tarfile.LNKTYPE, link="package/dist/a.js"),
    _member("package/dev", tarfile.CHRTYPE),
    _member("package/fifo", tarfile.FIFOTYPE),
], ids=["dotdot", "absolute", "symlink", "hardlink", "device", "fifo"])
def test_escaping_paths_links_and_devices_are_refused(tmp_path, member):
    out = tmp_path / "out"
    result = npm.extract(_archive(tmp_path, [member]), out)
    assert result.skipped == (member.name,)
    assert not (tmp_path / "escaped.js").exists() and not (out / "escaped.js").exists()
    assert sorted(p.name for p in out.rglob("*")) == ["a.js", "dist", "package.json"]


def test_a_symlinked_folder_planted_earlier_cannot_be_written_through(tmp_path):
    # package/lib → /tmp/elsewhere is refused, so package/lib/x.js is written inside.
    members = [_member("package/lib", tarfile.SYMTYPE, link=str(tmp_path / "elsewhere")),
               _member("package/lib/x.js", size=1)]
    (tmp_path / "elsewhere").mkdir()
    npm.extract(_archive(tmp_path, members), tmp_path / "out")
    assert not (tmp_path / "elsewhere/x.js").exists()
    assert (tmp_path / "out/lib/x.js").is_file()


def test_caps_stop_a_package_that_is_too_big(tmp_path):
    with pytest.raises(npm.PackageError, match="more than"):
        npm.extract(_archive(tmp_path, [_member("package/big.bin", size=5000)]), tmp_path / "out",
                    npm.Limits(max_unpacked_bytes=1000))
    with pytest.raises(npm.PackageError, match="more than 1 files"):
        npm.extract(_archive(tmp_path, []), tmp_path / "out2", npm.Limits(max_members=1))


def test_a_corrupt_archive_is_a_package_error(tmp_path):
    path = tmp_path / "bad.tgz"
    path.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(npm.PackageError, match="unreadable"):
        npm.extract(path, tmp_path / "out")


def test_package_names_cannot_name_folders_outside_the_cache(tmp_path):
    packages = npm.Packages(tmp_path, fetch=False)
    assert packages.folder("@scope/name", "1.0.0") == tmp_path / "@scope+name@1.0.0"
    for bad in ("../x", "a/../../b", "..", ".hidden", "a\\b"):
        with pytest.raises(npm.NotFound):
            packages.folder(bad, "1.0.0")
