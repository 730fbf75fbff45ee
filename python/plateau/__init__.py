"""plateau from Python: predict, search, sweep, validate and trace analysis of
distributed LLM training, through the C API of libplateau.so.

Each function takes the options of the plateau command of the same name,
spelled as on the command line with "_" for "-" (shard_group=64 is
--shard-group 64); True passes a flag, None or False leaves an option out, and
a list or tuple is joined with commas (sweep's gpus=[8, 64, 512]). It returns
the dict that `plateau <command> ... --format json` prints (the same
document: the library runs the command's own code), as a Result, a dict with
a to_dataframe() method. Errors raise plateau.Error with the library's
message.

    >>> import plateau
    >>> p = plateau.predict(model="llama2-7b", gpus=8)
    >>> p["step_time_s"], p["mfu"]
"""
import os

from ._lib import Error, library_path, run as _run, version
from . import trace

__all__ = ["Error", "Result", "predict", "search", "sweep", "validate", "collectives",
           "list_presets", "calibrate", "trace", "version", "library_path", "argv"]


def _arg(value):
    """One argument as text: a path (pathlib.Path, os.PathLike) or bytes as the
    file system names it (os.fsdecode: a name that is not UTF-8 keeps its bytes,
    as surrogates that _lib.run encodes back), a whole float as an integer,
    anything else as str()."""
    if isinstance(value, (bytes, os.PathLike)):
        return os.fsdecode(value)
    if isinstance(value, float) and value.is_integer():
        # a whole number held as a float (8.0 from a pandas column with a gap, 1e6, numpy's
        # float64) as the integer the counts (--gpus, --tp) parse: "8", not "8.0"
        return str(int(value))
    return str(value)


def argv(options, positional=()):
    """The command-line arguments for keyword options (what the functions pass)."""
    out = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            out += [flag, ",".join(_arg(v) for v in value)]
        else:
            out += [flag, _arg(value)]
    for p in positional:
        if p is None:
            # str(None) reached the command as the name 'None' ("cannot open trace 'None'",
            # "unknown kind 'None'"): a missing path or kind, said as such
            raise Error("a positional argument is None: give a path or name", "ERR_USAGE")
    return out + [_arg(p) for p in positional]


def _flatten(obj, prefix="", out=None):
    """Nested objects to one level with dotted keys, as the CSV columns are named."""
    out = {} if out is None else out
    for key, value in obj.items():
        name = prefix + key
        if isinstance(value, dict):
            _flatten(value, name + ".", out)
        else:
            out[name] = value
    return out


def _prefixes(key):
    """"a.b.c" -> "a", "a.b": the objects a dotted key sits in."""
    parts = key.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


class Result(dict):
    """A command's JSON document; rows() and to_dataframe() give its table."""

    table = None  # the key of the list of rows; None: the document is one row

    def rows(self):
        """The table's rows, each flattened to dotted keys ("memory.total_bytes"),
        all with the same keys in the same order (a key a row lacks is None), so
        the rows load into pandas or csv.DictWriter as one table. An object that
        is null in some rows ("error_band": null for a dense model beside an MoE
        one's {"class": ...}) is its fields, None, not a column of its own."""
        items = [self] if self.table is None else self.get(self.table) or []
        flat = [_flatten(r) for r in items]
        keys = {}
        for r in flat:
            for k in r:
                keys.setdefault(k, None)
        objects = {k.rsplit(".", 1)[0] for k in keys if "." in k}
        objects |= {p for o in list(objects) for p in _prefixes(o)}
        cols = [k for k in keys
                if not (k in objects and all(r.get(k) is None for r in flat))]
        return [{k: r.get(k) for k in cols} for r in flat]

    def to_dataframe(self):
        """The rows as a pandas DataFrame (pandas is optional: imported here)."""
        try:
            import pandas
        except ImportError as exc:
            raise ImportError("to_dataframe() needs pandas (pip install pandas); rows() gives "
                              "the same table as a list of dicts") from exc
        return pandas.DataFrame(self.rows())


def _result(table, doc):
    r = Result(doc)
    r.table = table
    return r


def predict(**options):
    """`plateau predict`: one configuration (model, gpu, cluster, gpus, tp, pp, ...).
    One row in to_dataframe()."""
    return _result(None, _run("predict", argv(options)))


def search(**options):
    """`plateau search`: the layouts of a run, ranked; rows are the results."""
    return _result("results", _run("search", argv(options)))


def sweep(**options):
    """`plateau sweep`: a run along the scale axis; rows are the points."""
    return _result("points", _run("sweep", argv(options)))


def validate(*csv_files, **options):
    """`plateau validate FILE...`: predictions against published runs; rows are the runs
    (with explain=N, the one explained row)."""
    if not csv_files:
        raise Error("validate: give at least one CSV file (e.g. data/validation/*.csv)",
                    "ERR_USAGE")
    doc = _run("validate", argv(options, csv_files))
    # explain=N's document is the one row (no "rows" list)
    return _result("rows" if isinstance(doc.get("rows"), list) else None, doc)


def collectives(**options):
    """`plateau collectives`: NCCL collective time, algbw and busbw."""
    doc = _run("collectives", argv(options))
    return _result(next((k for k, v in doc.items() if isinstance(v, list)), None), doc)


def calibrate(kind, *files, **options):
    """`plateau calibrate nccl|trace|compute FILE...`: fit a cluster or GPU file to
    measurements (nccl-tests logs, traces) and write it to out=PATH; returns the
    fit report (rows of to_dataframe(): the fitted series for nccl and trace, the
    fitted figures for compute)."""
    if not kind:
        raise Error("calibrate: give the kind (nccl, trace or compute)", "ERR_USAGE")
    doc = _run("calibrate", [str(kind)] + argv(options, files))
    # nccl and trace report the fitted series, compute the fitted figures
    table = next((k for k in ("series", "figures") if isinstance(doc.get(k), list)), None)
    return _result(table, doc)


def list_presets(kind, **options):
    """`plateau list models|gpus|clusters|frameworks`: the built-in presets."""
    return _result(kind, _run("list", argv(options, [kind])))
