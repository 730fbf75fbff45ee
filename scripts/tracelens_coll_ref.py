#!/usr/bin/env python3
# TraceLens's collective analysis (AMD-AGI/TraceLens 171dd74, TraceLens/NcclAnalyser/
# nccl_analyser.py, class NcclAnalyser) re-derived in plain Python (no pandas), times exact in ns:
#   - collective kernels: cat == "kernel", name matching "nccl" or "rccl" (any case;
#     TraceLens/util.py COMMUNICATION_KEYS) or "cross_device_reduce", with args.correlation or
#     args["External id"] (_collective_filter);
#   - build_df_long: per kernel its args "Process Group Name", "Process Group Ranks",
#     "Collective name", "Group size", "dtype", "In msg nelems", "Out msg nelems", "stream";
#     message size in MiB = nelems x dtype2bytes / 1024^2;
#   - summary (build_df_summary_long, what TraceLens writes as coll_analysis.csv): one row per
#     (rank, group, collective, group size, dtype, nelems, stream) with dur sum, mean, std (n-1),
#     min, max and the count;
#   - sync (build_df_nccl_implicit_sync_cat): the files are ranks 0..n-1 in the order given; a
#     rank's kernels are numbered in ts order per "Process Group Name" (all in one group,
#     "simplified mode", when no kernel names its group and each rank uses one stream); the
#     same number on every rank is one collective. comm_latency = the shortest dur among its
#     ranks, skew in start time = latest ts - earliest ts, skew in end time = latest end -
#     earliest end, algo bw = full size / comm_latency (full size: Out for allgather, else In).
#     Per rank (build_df_straggler_summary): its waits summed (latest ts - its ts), how often it
#     arrived last (the lowest rank on ties) and first (the highest rank on ties).
#     TraceLens keeps only allreduce / reducescatter / allgather / alltoall (implicit_sync_cat)
#     unless, in simplified mode, the name is missing. Where "Collective name" is missing, this
#     script also prints the op read from the kernel name (AllReduce, SendRecv, ...) so the rows
#     can be set beside plateau's (op, group) rows; TraceLens itself would group them as one
#     "Unknown" row.
# Usage: scripts/tracelens_coll_ref.py summary TRACE            (one rank, coll_analysis.csv)
#        scripts/tracelens_coll_ref.py sync TRACE0 TRACE1 ...  (ranks 0..n-1)
# tests/unit/test_trace_tracelens.c holds its numbers (docs/trace.md 4.2 and 7).
import gzip, json, re, statistics, sys
from decimal import Decimal, ROUND_HALF_UP

COMM = re.compile(r"nccl|rccl|cross_device_reduce", re.I)
DTYPE = {"Float": 4, "Int": 4, "Long": 8, "BFloat16": 2, "Bool": 1, "Byte": 1, "Double": 8,
         "Half": 2, "Short": 2}
FIELDS = ["Process Group Name", "Process Group Ranks", "Collective name", "Group size", "dtype",
          "In msg nelems", "Out msg nelems", "In split size", "Out split size", "stream"]
NAME_OP = [("allreduce", "all_reduce"), ("allgather", "all_gather"),
           ("reducescatter", "reduce_scatter"), ("alltoall", "all_to_all"),
           ("broadcast", "broadcast"), ("sendrecv", "send_recv")]


def ns(x):
    return int((Decimal(x) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def load(f):
    d = json.load(gzip.open(f) if f.endswith(".gz") else open(f), parse_float=Decimal)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    out = []
    for e in ev:
        a = e.get("args", {})
        if e.get("cat") != "kernel" or not COMM.search(e.get("name", "")):
            continue
        if a.get("correlation") is None and a.get("External id") is None:
            continue
        row = {k: (json.dumps(a[k]) if isinstance(a.get(k), list) else a.get(k)) for k in FIELDS}
        row["ts"], row["dur"] = ns(e["ts"]), ns(e["dur"])
        low = e["name"].lower().replace("_", "")
        row["name_op"] = next((o for k, o in NAME_OP if k in low), "unknown")
        out.append(row)
    out.sort(key=lambda r: r["ts"])
    return out


def summary(f):
    groups = {}
    for r in load(f):
        if any(r[k] is None for k in FIELDS):
            continue  # pandas' groupby drops a row with a missing key (dropna=True)
        groups.setdefault(tuple(str(r[k]) for k in FIELDS), []).append(r["dur"])
    print("collective,group_size,dtype,in_nelems,count,dur_sum_ns,dur_mean_ns,dur_std_ns,"
          "dur_min_ns,dur_max_ns")
    for k, v in sorted(groups.items(), key=lambda kv: -sum(kv[1])):
        sd = statistics.stdev(v) if len(v) > 1 else float("nan")
        print("%s,%s,%s,%s,%d,%d,%.3f,%.3f,%d,%d" % (k[2], k[3], k[4], k[5], len(v), sum(v),
              sum(v) / len(v), sd, min(v), max(v)))


def sync(files):
    ranks = [load(f) for f in files]
    simple = all(r["Process Group Name"] in (None, "Unknown_Group") for k in ranks for r in k) \
        and all(len({r["stream"] for r in k}) <= 1 for k in ranks)
    coll = {}
    for rank, k in enumerate(ranks):
        seen = {}
        for r in k:
            r["rank"] = rank
            g = "all" if simple else (r["Process Group Name"] or "Unknown_Group")
            i = seen.get(g, 0)
            seen[g] = i + 1
            coll.setdefault((g, i), []).append(r)
    rows = {}
    per_rank = {}  # build_df_straggler_summary: total wait, times last, times first
    for key, v in coll.items():
        if len(v) < 2:
            continue
        s1 = max(r["ts"] for r in v)
        waits = [(s1 - r["ts"], r["rank"]) for r in v]
        last = min(waits, key=lambda x: (x[0], x[1]))[1]  # idxmin: the lowest rank on ties
        first = max(waits)[1]                              # max((wait, r)): the highest
        for w, rk in waits:
            x = per_rank.setdefault(rk, [0, 0, 0])
            x[0] += w
        per_rank[last][1] += 1
        per_rank[first][2] += 1
        op = v[0]["Collective name"] or v[0]["name_op"]
        lat = min(r["dur"] for r in v)
        s0, s1 = min(r["ts"] for r in v), max(r["ts"] for r in v)
        e0, e1 = min(r["ts"] + r["dur"] for r in v), max(r["ts"] + r["dur"] for r in v)
        x = rows.setdefault((op, v[0]["Group size"]), [0, 0, 0, 0, 0, set()])
        x[0] += 1
        x[1] += lat
        x[2] += s1 - s0
        x[3] = max(x[3], s1 - s0)
        x[4] += e1 - e0
        x[5].add(len({r["name_op"] for r in v}))
    print("rank,total_wait_ns,times_arrived_last,times_arrived_first")
    for rk in sorted(per_rank):
        print("%d,%d,%d,%d" % (rk, *per_rank[rk]))
    print("op,group_size,collectives,latency_sum_ns,start_skew_sum_ns,start_skew_max_ns,"
          "end_skew_sum_ns,kernel_ops_agree")
    for (op, g), x in sorted(rows.items(), key=lambda kv: str(kv[0])):
        print("%s,%s,%d,%d,%d,%d,%d,%s" % (op, g, x[0], x[1], x[2], x[3], x[4], x[5] == {1}))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "sync":
        sync(sys.argv[2:])
    else:
        sys.exit(__doc__ or "usage: tracelens_coll_ref.py summary TRACE | sync TRACE0 TRACE1 ...")
