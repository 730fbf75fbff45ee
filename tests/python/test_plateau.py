"""The Python package (python/plateau) against the CLI: every call's dict
equals the JSON that `plateau <command> ... --format json` prints for the
same options, errors raise plateau.Error with the CLI's message, and the
library prints nothing. Run by ctest (tests/python/python.sh) with the
in-tree libplateau.so ($PLATEAU_LIBRARY) and binary ($PLATEAU)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import plateau

PLATEAU = os.environ["PLATEAU"]
SRC = os.environ["PL_SOURCE_DIR"]
DATA = os.environ["PL_TEST_DATA"]


def cli(command, args):
    """The CLI's JSON document for the same arguments."""
    out = subprocess.run([PLATEAU] + command + args + ["--format", "json"], check=True,
                         stdout=subprocess.PIPE).stdout
    return json.loads(out)


class SameAsCli(unittest.TestCase):
    def check_predict(self, **options):
        self.assertEqual(plateau.predict(**options), cli(["predict"], plateau.argv(options)))

    def test_predict_default_and_options(self):
        self.check_predict()
        self.check_predict(model="llama2-7b", gpus=8)
        self.check_predict(model="llama3-70b", gpus=1024, tp=8, tokens="15T", gpu_hour_price=2.5,
                           energy_price=0.1)
        self.check_predict(model="llama2-13b", gpus=64, tp=2, pp=2, shard="zero1",
                           recompute="selective", attention="eager", kernels="unfused")
        self.check_predict(model="llama2-7b", gpus=64, shard="zero3", fsdp_prefetch="off",
                           fsdp_comm="separate", shard_group=8)

    def test_done_when(self):
        # the check: a number, the CLI's step time
        p = plateau.predict(model="llama2-7b", gpus=8)
        self.assertIsInstance(p["step_time_s"], float)
        self.assertEqual(p["step_time_s"], cli(["predict"], ["--model", "llama2-7b", "--gpus", "8"])["step_time_s"])
        self.assertEqual(p["version"], plateau.version())

    def test_search_sweep(self):
        opts = dict(model="llama2-7b", gpus=16, top=3, tokens="1T", threads=1)
        self.assertEqual(plateau.search(**opts), cli(["search"], plateau.argv(opts)))
        opts = dict(model="llama2-7b", gpus=[8, 16, 32], strategies="fsdp,tp2", threads=1)
        s = plateau.sweep(**opts)
        self.assertEqual(s, cli(["sweep"], plateau.argv(opts)))
        self.assertEqual(len(s.rows()), 6)
        self.assertEqual(s.rows()[0]["layout.gpus"], 8)
        self.assertEqual(s["skipped"], [])
        # a strategy with no layout at a scale: in "skipped", not only on the CLI's stderr
        opts = dict(model="llama2-7b", gpus=[8, 16], strategies="fsdp,tp16", threads=1)
        s = plateau.sweep(**opts)
        self.assertEqual(s, cli(["sweep"], plateau.argv(opts)))
        self.assertEqual(len(s.rows()), 3)
        self.assertEqual(s["skipped"], [{"model": "llama2-7b", "strategy": "tp16", "gpus": 8,
                                         "why": "search: tp=16 does not divide 8 GPUs"}])

    def test_validate(self):
        csv = os.path.join(SRC, "data", "validation", "megatron_sc21_narayanan.csv")
        v = plateau.validate(csv)
        self.assertEqual(v, cli(["validate"], [csv]))
        self.assertGreater(len(v.rows()), 0)

    def test_trace_analyze(self):
        d = os.path.join(DATA, "traces", "dlrm")
        t = plateau.trace.analyze(d)
        self.assertEqual(t, cli(["trace", "analyze"], [d]))
        self.assertEqual(len(t.rows()), t["world_size"])

    def test_list(self):
        self.assertEqual(plateau.list_presets("gpus"), cli(["list", "gpus"], []))

    def test_calibrate_nccl(self):
        # the same fit, written to the same file by both (the report names it)
        log = os.path.join(DATA, "nccl", "h100_1node_8gpu_all_reduce_ring_together.txt")
        with tempfile.TemporaryDirectory() as tmp:
            opts = dict(cluster="dgx-h100", algo="ring", out=os.path.join(tmp, "h100.json"))
            c = plateau.calibrate("nccl", log, **opts)
            self.assertEqual(c, cli(["calibrate", "nccl"], plateau.argv(opts, [log])))
            self.assertTrue(os.path.getsize(opts["out"]) > 0)
        self.assertEqual(c["fit"]["at_limit"], [])
        self.assertEqual(len(c.rows()), len(c["series"]))
        self.assertEqual(c["warnings"], [])
        self.assertIsNone(c["series"][0]["warning"])

    def test_calibrate_nccl_warnings(self):
        # what the CLI warns on stderr is in the document (the library prints nothing):
        # a log's skipped row in "warnings"
        log = os.path.join(DATA, "nccl", "h100_1node_8gpu_all_reduce_ring_together.txt")
        with open(log) as f:
            text = f.read().replace("\n     1048576 ", "\n     1048575   1   float   sum\n     1048576 ", 1)
        with tempfile.TemporaryDirectory() as tmp:
            cut = os.path.join(tmp, "cut.txt")
            with open(cut, "w") as f:
                f.write(text)
            opts = dict(cluster="dgx-h100", out=os.path.join(tmp, "c.json"))
            c = plateau.calibrate("nccl", cut, **opts)
            self.assertEqual(c, cli(["calibrate", "nccl"], plateau.argv(opts, [cut])))
        self.assertEqual(len(c["warnings"]), 1)
        self.assertIn("incomplete result row", c["warnings"][0])
        self.assertIn("warning", c.rows()[0])

    def test_calibrate_compute(self):
        # its JSON went to the host's stdout (pl_emit_open(stdout)): the call got nothing
        tr = os.path.join(DATA, "traces", "gt_h100_llama3.2-1b_seq4096.json.gz")
        with tempfile.TemporaryDirectory() as tmp:
            opts = dict(gpu="h100", out=os.path.join(tmp, "h100c.json"))
            c = plateau.calibrate("compute", tr, **opts)
            self.assertEqual(c, cli(["calibrate", "compute"], plateau.argv(opts, [tr])))
        self.assertIn("gemm.mamf", [f["name"] for f in c["figures"]])
        self.assertEqual([r["name"] for r in c.rows()], [f["name"] for f in c["figures"]])

    def test_calibrate_trace(self):
        tr = os.path.join(DATA, "traces", "hta_nccl_data.json.gz")
        with tempfile.TemporaryDirectory() as tmp:
            opts = dict(cluster="dgx-h100", out=os.path.join(tmp, "fit.json"))
            c = plateau.calibrate("trace", tr, **opts)
            self.assertEqual(c, cli(["calibrate", "trace"], plateau.argv(opts, [tr])))
        self.assertEqual(len(c.rows()), len(c["series"]))

    def test_validate_explain(self):
        # explain=N's document has no "rows" list: it is the one row
        csv = os.path.join(SRC, "data", "validation", "tinyllama_readme.csv")
        e = plateau.validate(csv, explain=1)
        self.assertEqual(e, cli(["validate"], ["--explain", "1", csv]))
        self.assertEqual(len(e.rows()), 1)
        self.assertIn("prediction.step_time_s", e.rows()[0])

    def test_validate_by(self):
        # validate --by's JSON went to the host's stdout as calibrate compute's did
        csv = os.path.join(SRC, "data", "validation", "megatron_sc21_narayanan.csv")
        v = plateau.validate(csv, by="gpu")
        self.assertEqual(v, cli(["validate"], ["--by", "gpu", csv]))

    def test_session27_flags(self):
        # flags predict gained in session 27 reach the library (--delay-wgrad,
        # --eager-cross-entropy) and report what the CLI reports
        moe = dict(model="qwen3-30b-a3b", gpus=16, ep=16, gbs=32, shard="zero1", ep_comm_overlap="on",
                   delay_wgrad="on")
        p = plateau.predict(**moe)
        self.assertEqual(p, cli(["predict"], plateau.argv(moe)))
        self.assertTrue(p["framework"]["delay_wgrad_compute"])
        hf = dict(model="llama2-7b", gpus=8, framework="pytorch-fsdp", kernels="unfused",
                  eager_cross_entropy="on")
        self.assertEqual(plateau.predict(**hf), cli(["predict"], plateau.argv(hf)))


class Quiet(unittest.TestCase):
    """The library writes nothing to the host's stdout or stderr: a command's
    warnings stay in the call (here calibrate nccl's at-the-edge warnings on the
    256-node Polaris all_reduce, which the CLI prints; the report's fit.at_limit
    names the figures)."""

    def test_calibrate_warnings_not_printed(self):
        log = os.path.join(DATA, "nccl-multinode",
                           "a100_256node_1024gpu_all_reduce_alcf-polaris-slingshot.txt")
        with tempfile.TemporaryDirectory() as tmp:
            code = ("import json, sys, plateau; c = plateau.calibrate('nccl', sys.argv[1], "
                    "op='all_reduce', cluster='alcf-polaris', out=sys.argv[2]); "
                    "sys.stdout.write(json.dumps(c['fit']['at_limit']))")
            r = subprocess.run([sys.executable, "-c", code, log, os.path.join(tmp, "p.json")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
        self.assertEqual(r.stderr.decode(), "")
        self.assertEqual(json.loads(r.stdout), ["intra_latency_s", "inter_latency_s"])

    def test_validate_baseline_lines_not_printed(self):
        # validate --write-baseline / --baseline: 'wrote baseline', 'accuracy within' and
        # the findings stay in the call; a regression is the Error's message
        csv = os.path.join(SRC, "data", "validation", "mtnlg530b_paper.csv")
        with tempfile.TemporaryDirectory() as tmp:
            code = ("import re, sys, plateau\n"
                    "csv, b, strict = sys.argv[1:4]\n"
                    "plateau.validate(csv, write_baseline=b)\n"
                    "plateau.validate(csv, baseline=b)\n"
                    "open(strict, 'w').write(re.sub(r'\"mape\": [0-9.e+-]*', '\"mape\": 0',"
                    " open(b).read()))\n"
                    "try:\n"
                    "    plateau.validate(csv, baseline=strict)\n"
                    "except plateau.Error as e:\n"
                    "    sys.stdout.write(e.message)\n")
            r = subprocess.run([sys.executable, "-c", code, csv, os.path.join(tmp, "b.json"),
                                os.path.join(tmp, "strict.json")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
        self.assertEqual(r.stderr.decode(), "")
        self.assertTrue(r.stdout.decode().startswith("regression: mtnlg530b_paper: mean error"),
                        r.stdout.decode())


class Main(unittest.TestCase):
    """`python -m plateau COMMAND ARGS...` prints the CLI's --format json document
    and exits with the CLI's status."""

    def main(self, args):
        return subprocess.run([sys.executable, "-m", "plateau"] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)

    def same(self, command, args):
        r = self.main(command + args)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(r.stderr.decode(), "")
        self.assertEqual(json.loads(r.stdout), cli(command, args))

    def test_parity(self):
        self.same(["predict"], ["--model", "qwen3-30b-a3b", "--gpus", "16", "--ep", "16",
                                "--gbs", "32", "--shard", "zero1", "--ep-comm-overlap", "on",
                                "--delay-wgrad", "on"])
        self.same(["validate"], [os.path.join(SRC, "data", "validation", "tinyllama_readme.csv"),
                                 os.path.join(SRC, "data", "validation",
                                              "nemo_launcher_examples.csv")])
        self.same(["list"], ["frameworks"])
        self.same(["trace", "analyze"], [os.path.join(DATA, "traces", "dlrm")])

    def test_status(self):
        for args, code, msg in ((["predict", "--gpus", "0"], 1, "--gpus: '0' must be positive"),
                                (["predict", "--delay-wgrad", "x"], 1,
                                 "--delay-wgrad: unknown value 'x'"),
                                (["predict", "--gpuz", "8"], 2, "unknown option '--gpuz'"),
                                (["calibrate", "bogus"], 2, "unknown kind 'bogus'"),
                                (["frobnicate"], 2, "unknown command 'frobnicate'"),
                                ([], 2, "usage: python -m plateau")):
            r = self.main(args)
            self.assertEqual(r.returncode, code, args)
            self.assertIn(msg, r.stderr.decode())
            self.assertEqual(r.stdout, b"")
            cli_rc = subprocess.run([PLATEAU] + args, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE).returncode
            if args and args[0] != "frobnicate":
                self.assertEqual(cli_rc, code, args)  # the CLI's own status
        # a CLI line pasted with its --format json: the document it asks for
        r = self.main(["predict", "--gpus", "8", "--format", "json"])
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(json.loads(r.stdout), cli(["predict"], ["--gpus", "8"]))
        r = self.main(["list", "gpus", "--format=json"])
        self.assertEqual(json.loads(r.stdout), cli(["list"], ["gpus"]))
        r = self.main(["predict", "--format", "csv"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--format: the API always returns JSON", r.stderr.decode())
        r = self.main(["--help"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("commands: predict", r.stdout.decode())


class Paths(unittest.TestCase):
    """File names as a Python user holds them: pathlib.Path, bytes, and names
    that are not UTF-8 (os.listdir on a Latin-1 directory gives surrogate
    escapes). Before: bytes went in as "b'...'" (str(bytes)), and a non-UTF-8
    name raised UnicodeEncodeError, also from `python -m plateau`."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        src = os.path.join(SRC, "data", "validation", "tinyllama_readme.csv")
        self.latin = os.path.join(os.fsencode(self.tmp.name), b"lat\xff.csv")
        with open(src, "rb") as f, open(self.latin, "wb") as g:
            g.write(f.read())
        self.src = src

    def test_path_and_bytes(self):
        import pathlib
        want = cli(["validate"], [self.src])
        self.assertEqual(plateau.validate(pathlib.Path(self.src)), want)
        self.assertEqual(plateau.validate(os.fsencode(self.src)), want)
        d = os.path.join(DATA, "traces", "dlrm")
        want = cli(["trace", "analyze"], [d])
        self.assertEqual(plateau.trace.analyze(pathlib.Path(d)), want)
        self.assertEqual(plateau.trace.analyze([os.fsencode(d)]), want)
        a = os.path.join(DATA, "traces", "hta_nccl_data.json.gz")
        b = os.path.join(DATA, "traces", "hta_triton_example.json")
        self.assertEqual(plateau.trace.compare(pathlib.Path(a), os.fsencode(b)),
                         cli(["trace", "compare"], [a, b]))
        self.assertEqual(plateau.argv({"out": pathlib.Path("/x/y.json")}, [b"/z"]),
                         ["--out", "/x/y.json", "/z"])

    def test_not_utf8(self):
        # the dataset is named by its file: 0xFF is U+FFFD in the JSON (src/base/emit.c)
        for path in (self.latin, os.fsdecode(self.latin)):
            v = plateau.validate(path)
            self.assertEqual(v["datasets"][0]["name"], "lat\ufffd")
            self.assertEqual(v, cli(["validate"], [os.fsdecode(self.latin)]))
        r = subprocess.run([sys.executable, "-m", "plateau", "validate", self.latin],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        self.assertEqual(json.loads(r.stdout.decode("utf-8"))["datasets"][0]["name"], "lat\ufffd")
        with self.assertRaises(plateau.Error) as cm:  # the message names the file, no traceback
            plateau.validate(os.path.join(os.fsencode(self.tmp.name), b"no\xfe.csv"))
        self.assertIn("no\ufffd.csv", cm.exception.message)


class Numbers(unittest.TestCase):
    """Numbers as pandas and numpy hold them: a whole float (8.0 from a column
    with a gap, 1e6) is the integer the CLI's counts take; before, --gpus 8.0
    was refused as 'not a positive integer'. NaN, inf and fractions are still
    the CLI's errors."""

    def test_whole_floats(self):
        self.assertEqual(plateau.argv(dict(gpus=8.0, tp=2.0, tokens=15e12, gpu_variability=0.02,
                                           fix=[2.0, 4])),
                         ["--gpus", "8", "--tp", "2", "--tokens", "15000000000000",
                          "--gpu-variability", "0.02", "--fix", "2,4"])
        self.assertEqual(plateau.predict(gpus=16.0, tp=2.0), plateau.predict(gpus=16, tp=2))
        for bad, msg in ((float("nan"), "'nan' is not a positive integer"),
                         (float("inf"), "'inf' is not a positive integer"),
                         (8.5, "'8.5' is not a positive integer")):
            with self.assertRaises(plateau.Error) as cm:
                plateau.predict(gpus=bad)
            self.assertIn("--gpus: " + msg, cm.exception.message)


class Errors(unittest.TestCase):
    def test_bad_value(self):
        with self.assertRaises(plateau.Error) as cm:
            plateau.predict(tokens="15X")
        self.assertEqual(cm.exception.status, "ERR_INPUT")
        self.assertIn("--tokens: '15X' is not a count", str(cm.exception))

    def test_unknown_option(self):
        with self.assertRaises(plateau.Error) as cm:
            plateau.predict(gpuz=8)
        self.assertEqual(cm.exception.status, "ERR_USAGE")
        self.assertIn("unknown option '--gpuz'", str(cm.exception))

    def test_unknown_model(self):
        with self.assertRaises(plateau.Error) as cm:
            plateau.predict(model="no-such-model")
        self.assertIn("no-such-model", str(cm.exception))

    def test_format_is_the_apis(self):
        with self.assertRaises(plateau.Error) as cm:
            plateau.predict(format="csv")
        self.assertEqual(cm.exception.status, "ERR_USAGE")

    def test_calibrate_unknown_kind(self):
        # the message the CLI prints, not "the command failed (exit 2)"
        with self.assertRaises(plateau.Error) as cm:
            plateau.calibrate("bogus")
        self.assertEqual(cm.exception.status, "ERR_USAGE")
        self.assertIn("calibrate: unknown kind 'bogus' (expected nccl, trace or compute)",
                      str(cm.exception))
        with self.assertRaises(plateau.Error) as cm:
            plateau.calibrate("nccl", cluster="dgx-h100")
        self.assertIn("--cluster BASE and --out FILE are required", str(cm.exception))

    def test_delay_wgrad_value(self):
        with self.assertRaises(plateau.Error) as cm:
            plateau.predict(delay_wgrad="maybe")
        self.assertIn("--delay-wgrad: unknown value 'maybe' (expected on|off)", str(cm.exception))

    def test_still_works_after_errors(self):
        for _ in range(3):
            self.assertRaises(plateau.Error, plateau.predict, gpus=0)
        self.assertIsNotNone(plateau.predict(gpus=8)["step_time_s"])


class Table(unittest.TestCase):
    def test_rows(self):
        r = plateau.predict(gpus=8).rows()
        self.assertEqual(len(r), 1)
        self.assertIn("memory.total_bytes", r[0])

    def test_dataframe(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is optional")
        df = plateau.sweep(gpus=[8, 16], threads=1).to_dataframe()
        self.assertEqual(list(df["layout.gpus"]), [8, 16])


class Hardening(unittest.TestCase):
    """Session 29 (hard29): inputs a pandas user passes by mistake."""

    def test_nul_in_argument(self):
        # ctypes passed a C string: "llama2-7b\0x" ran llama2-7b and dropped the rest
        with self.assertRaises(plateau.Error) as cm:
            plateau.predict(model="llama2-7b\0junk")
        self.assertEqual(cm.exception.status, "ERR_USAGE")
        self.assertIn("NUL", cm.exception.message)

    def test_none_positional(self):
        # str(None) was the name 'None': "cannot open trace 'None'", "unknown kind 'None'"
        a = os.path.join(DATA, "traces", "hta_nccl_data.json.gz")
        for call in (lambda: plateau.trace.compare(None, a), lambda: plateau.list_presets(None),
                     lambda: plateau.validate(None)):
            with self.assertRaises(plateau.Error) as cm:
                call()
            self.assertEqual(cm.exception.status, "ERR_USAGE")
            self.assertIn("None", cm.exception.message)

    def test_analyze_paths_type(self):
        # was TypeError "'NoneType' object is not iterable" from inside the package
        for bad in (None, 5):
            with self.assertRaises(TypeError) as cm:
                plateau.trace.analyze(bad)
            self.assertIn("paths is a path", str(cm.exception))

    def test_trace_given_twice(self):
        # the same trace twice was two ranks of a world of 2 (src/base/samefile.c)
        a = os.path.join(DATA, "traces", "hta_nccl_data.json.gz")
        with self.assertRaises(plateau.Error) as cm:
            plateau.trace.analyze([a, a])
        self.assertIn("given twice", cm.exception.message)

    def test_rows_one_set_of_columns(self):
        # a dense and an MoE model: "error_band" was null in one row and an object in
        # the other, so rows() had both an "error_band" column and "error_band.class"
        s = plateau.sweep(model=["llama2-7b", "mixtral-8x7b"], gpus=[8], threads=1)
        rows = s.rows()
        self.assertEqual(len(rows), 2)
        self.assertEqual(list(rows[0]), list(rows[1]))
        for k in rows[0]:
            self.assertFalse(any(j.startswith(k + ".") for j in rows[0]), k)
        self.assertIn("model.experts", rows[0])
        # the document itself is untouched: rows() only reshapes
        self.assertIn(None, [p.get("error_band") for p in s["points"]])


if __name__ == "__main__":
    unittest.main(verbosity=2)
