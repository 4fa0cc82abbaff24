"""publish-status: the scoring pod's last step. Reads results.json from the store
and merge-patches a small summary (results URI, digest, top leaderboard rows — with
WebGen-Bench Accuracy when the run had UI tests — and the leader) into the
EvaluationRun's status. Per-app detail stays in the store.

It must not touch the operator's keys (phase, counts, conditions): the operator sees
the scoring Job end and moves the phase itself.
"""

from __future__ import annotations

import hashlib
from typing import Any

from iwcbench.operator import api
from iwcbench.pipeline.contracts import artifacts, results
from iwcbench.pipeline.kits import cluster as cluster_kit, store as store_mod


def digest(data: bytes) -> str:
    """The digest the status names results.json by (``iwc fetch`` checks it)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def summarize(data: bytes, results_uri: str, top: int = api.MAX_LEADERBOARD_ROWS) -> dict[str, Any]:
    """The status patch for one results.json (PURE)."""
    run = results.RunResults.model_validate_json(data)
    webgen = {row.model: row for row in run.ui_tests}
    rows = [api.LeaderRow(rank=r.rank, model=r.model, overall=r.overall, apps=r.apps,
                          accuracy=webgen[r.model].accuracy if r.model in webgen else None,
                          start_failures=webgen[r.model].start_failures if r.model in webgen else None)
            for r in sorted(run.leaderboard, key=lambda r: r.rank)[:top]]
    summary = api.ResultsSummary(uri=results_uri, digest=digest(data),
                                 apps=len(run.apps), leaderboard=rows,
                                 overall_name=run.ranking.name if run.ranking is not None else None)
    leader = rows[0].model if rows and rows[0].overall is not None else None
    return {"results": summary.wire(), "resultsURI": results_uri, "leader": leader}


def publish(store_uri: str, namespace: str, name: str, cluster: cluster_kit.Cluster) -> dict[str, Any]:
    store = store_mod.open_store(store_uri)
    data = store.get_bytes(artifacts.RESULTS.key)
    patch = summarize(data, f"{store.uri}/{artifacts.RESULTS.key}")
    cluster.patch_status(api.GROUP, api.VERSION, api.PLURAL, namespace, name, patch)
    return patch
