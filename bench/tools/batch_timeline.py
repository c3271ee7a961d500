#!/usr/bin/env python3
"""Where a micro-batch's time goes: the Spark jobs of one batch of every streaming query in an event log.

Run the bench with Spark's event log on (docs/PERFORMANCE.md, "Profiling a micro-batch"):

    mvn -B -ntp -pl bench -am -Pbench -DskipTests verify -Dbench.args="cases=bronze reps=1 warmups=1" \
      -Dbench.jvm="-Xmx4g -XX:+UseParallelGC -Dspark.eventLog.enabled=true -Dspark.eventLog.compress=false \
                   -Dspark.eventLog.dir=file:/tmp/evlog"
    python3 bench/tools/batch_timeline.py /tmp/evlog/<app dir or file> 2

For each query's batch N it prints the trigger's phases (Spark's durationMs), then each SQL execution
and job started inside the trigger: its offset from the trigger's start, its duration, and for jobs the
stages, tasks, the tasks' summed run time and CPU time. The gaps between jobs are driver-side work.
A zstd-compressed log is read through the `zstd` command if it is installed.
"""
import datetime
import glob
import json
import os
import subprocess
import sys


def lines(path):
    files = sorted(glob.glob(os.path.join(path, "events_*"))) if os.path.isdir(path) else [path]
    for f in files:
        if f.endswith(".zstd"):
            text = subprocess.run(["zstd", "-dc", f], check=True, capture_output=True).stdout.decode()
            yield from text.splitlines()
        else:
            with open(f, encoding="utf-8") as fh:
                yield from fh


def millis(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000


def label(description):
    parts = [p.strip() for p in (description or "").split("\n")]
    kept = [p for p in parts if p and not p.startswith(("id = ", "runId = "))]
    return " | ".join(kept)[:110]


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: batch_timeline.py <event log file or app directory> <batch id>")
    want = int(sys.argv[2])
    jobs, sqls, stage_job, progress = {}, {}, {}, []
    for line in lines(sys.argv[1]):
        e = json.loads(line)
        kind = e["Event"]
        if kind == "SparkListenerJobStart":
            props = e.get("Properties", {})
            jobs[e["Job ID"]] = {"start": e["Submission Time"], "stages": len(e["Stage Infos"]),
                                 "tasks": sum(s["Number of Tasks"] for s in e["Stage Infos"]),
                                 "desc": label(props.get("spark.job.description")), "run": 0, "cpu": 0}
            for s in e["Stage Infos"]:
                stage_job[s["Stage ID"]] = e["Job ID"]
        elif kind == "SparkListenerJobEnd":
            jobs[e["Job ID"]]["end"] = e["Completion Time"]
        elif kind == "SparkListenerTaskEnd" and e["Stage ID"] in stage_job:
            job = jobs[stage_job[e["Stage ID"]]]
            metrics = e.get("Task Metrics") or {}
            job["run"] += metrics.get("Executor Run Time", 0)
            job["cpu"] += metrics.get("Executor CPU Time", 0) // 1_000_000
        elif kind.endswith("SQLExecutionStart"):
            sqls[e["executionId"]] = {"start": e["time"], "desc": label(e.get("description"))}
        elif kind.endswith("SQLExecutionEnd"):
            sqls[e["executionId"]]["end"] = e["time"]
        elif kind.endswith("QueryProgressEvent"):
            progress.append(e["progress"])
    queries = {}
    for p in progress:
        queries.setdefault(p["id"], len(queries))
        if p["batchId"] != want:
            continue
        start = millis(p["timestamp"])
        end = start + p["durationMs"]["triggerExecution"]
        rows = sum(s.get("numInputRows", 0) for s in p["sources"])
        print(f"\nquery {queries[p['id']]} ({p['sink']['description']}), batch {want}, {rows} rows: {p['durationMs']}")
        items = [(v["start"], v.get("end", v["start"]), f"sql {k}", v["desc"]) for k, v in sqls.items()
                 if start <= v["start"] <= end]
        items += [(v["start"], v.get("end", v["start"]), f"  job {k}",
                   f"{v['stages']} stages {v['tasks']} tasks, task run {v['run']} ms cpu {v['cpu']} ms  {v['desc']}")
                  for k, v in jobs.items() if start <= v["start"] <= end]
        for a, b, what, desc in sorted(items):
            print(f"  +{a - start:6.0f} ms {b - a:6.0f} ms  {what}  {desc}")


if __name__ == "__main__":
    main()
