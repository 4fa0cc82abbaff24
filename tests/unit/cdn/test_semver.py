"""Version selection as npm CDNs do it: ranges, partials, tags, pre-releases."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.kits.mirror import semver

VERSIONS = ["3.9.1", "4.0.0-beta.1", "4.0.0", "4.3.0", "4.4.0", "4.4.1", "4.5.0-rc.1", "4.4.9",
            "5.0.0-alpha.0", "0.2.3", "0.2.9", "0.3.0", "0.0.3", "0.0.4"]
TAGS = {"latest": "4.4.1", "next": "5.0.0-alpha.0"}


@pytest.mark.parametrize(("wanted", "expected"), [
    ("", "4.4.1"),  # no version: the latest tag, even when higher versions exist
    ("latest", "4.4.1"),
    ("next", "5.0.0-alpha.0"),
    ("4", "4.4.9"),  # highest stable in the major; the rc is skipped
    ("4.x", "4.4.9"),
    ("4.4", "4.4.9"),
    ("4.3", "4.3.0"),
    ("^4.0.0", "4.4.9"),
    ("~4.4.0", "4.4.9"),
    ("~4.3", "4.3.0"),
    ("4.4.0", "4.4.0"),
    ("v4.4.0", "4.4.0"),
    ("=4.4.0", "4.4.0"),
    ("4.0.0-beta.1", "4.0.0-beta.1"),  # a named pre-release is served
    (">=4.5.0-rc.0 <5", "4.5.0-rc.1"),  # pre-release of the same triple named in the range
    ("^0.2.3", "0.2.9"),
    ("^0.0.3", "0.0.3"),
    (">=3 <4.4", "4.3.0"),
    ("3 || 4.3", "4.3.0"),
    ("3.0.0 - 4.3", "4.3.0"),
    ("*", "4.4.9"),
    ("^6", None),
    ("7.0.0", None),
    ("nonsense!", None),
])
def test_pick_serves_the_version_a_cdn_would(wanted, expected):
    assert semver.pick(wanted, VERSIONS, TAGS) == expected


def test_without_a_latest_tag_no_version_means_the_highest_stable():
    assert semver.pick("", ["1.0.0", "1.2.0", "2.0.0-rc.1"], {}) == "1.2.0"


def test_pre_releases_sort_below_their_release_and_numerically():
    order = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0"]
    parsed = [semver.parse(v) for v in order]
    assert sorted(parsed, key=lambda v: v.key) == parsed
