"""How Chromium is started: every connection through the guard (loopback included),
no non-proxied UDP, no name resolution but the guard's address; and repeated feature
switches merged, since Chromium honours only the last one."""

from __future__ import annotations

from iwcbench.pipeline.kits import launcher, launching


def test_the_guard_flags_come_with_a_proxy():
    args = launching.args("t", "http://127.0.0.1:9")
    assert "--proxy-server=http://127.0.0.1:9" in args
    assert "--proxy-bypass-list=<-loopback>" in args  # else loopback bypasses the proxy
    assert "--webrtc-ip-handling-policy=disable_non_proxied_udp" in args
    assert any(a.startswith("--host-resolver-rules=MAP * ~NOTFOUND") and "EXCLUDE 127.0.0.1" in a for a in args)
    assert args[-1] == "--iwc-tag=t"
    assert not any(a.startswith("--proxy") for a in launching.args(None, None))


def test_feature_switches_are_merged_into_one_each():
    merged = launcher.merge_features([
        "--a", "--disable-features=PaintHolding,HttpsUpgrades", "--enable-features=X",
        "--disable-features=Prerender2,PaintHolding", "--b", "--enable-features=Y"])
    assert merged == ["--a", "--disable-features=PaintHolding,HttpsUpgrades,Prerender2",
                      "--enable-features=X,Y", "--b"]

