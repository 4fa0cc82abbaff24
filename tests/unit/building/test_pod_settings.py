"""A pod's build settings: the chart's registry and the operator's cache folders, under
whatever the run's settings document says."""

from __future__ import annotations

import argparse

from iwcbench.pipeline.cli import options


def test_the_pod_environment_fills_the_build_section():
    args = argparse.Namespace(settings=None)
    env = {"IWC_NPM_REGISTRY": "http://verdaccio.npm-mirror.svc:4873", "IWC_NPM_CACHE": "/npm-cache",
           "IWC_NPM_CACHE_SEED": "/opt/iwc/npm-cache", "HOME": "/tmp"}
    build = options.evaluation(args, env).build
    assert build.registry == "http://verdaccio.npm-mirror.svc:4873"
    assert (build.npm_cache_dir, build.npm_cache_seed) == ("/npm-cache", "/opt/iwc/npm-cache")


def test_the_runs_own_settings_win_over_the_pod_environment():
    document = '{"build": {"registry": "https://npm.example.org", "buildTimeoutS": 120}}'
    build = options.evaluation(argparse.Namespace(settings=document),
                               {"IWC_NPM_REGISTRY": "http://mirror:4873", "IWC_NPM_CACHE": "/npm-cache"}).build
    assert build.registry == "https://npm.example.org" and build.build_timeout_s == 120
    assert build.npm_cache_dir == "/npm-cache"


def test_where_the_cache_lives_does_not_change_the_config_hash():
    from iwcbench.pipeline.contracts import settings
    a = settings.Evaluation(build=settings.Build(npm_cache_dir="/a"))
    b = settings.Evaluation(build=settings.Build(npm_cache_dir="/b", npm_cache_seed="/seed"))
    c = settings.Evaluation(build=settings.Build(build_timeout_s=5))
    assert a.config_hash() == b.config_hash() != c.config_hash()
