"""The input stage: read the task file, find the submitted apps, unpack one app.

``loading`` reads ``tasks.jsonl`` (native, WebGen-Bench or ArtifactsBench lines, the
last two converted by ``importing``); ``discovering`` lists ``apps/<model>/<task_id>``
entries, problems and missing submissions; ``unpacking`` copies or safely extracts one
app. This stage must not import another stage, run an app or open a browser.
"""

from iwcbench.pipeline.stages.ingesting import discovering, importing, loading, unpacking

TaskFileError = loading.TaskFileError
load_tasks = loading.load_tasks
from_webgen = importing.from_webgen
from_artifactsbench = importing.from_artifactsbench
classify_criterion = importing.classify_criterion
Problem = discovering.Problem
Discovery = discovering.Discovery
discover_apps = discovering.discover_apps
AppDefect = unpacking.AppDefect
materialize = unpacking.materialize
