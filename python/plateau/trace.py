"""plateau.trace: measure a run from PyTorch profiler (Kineto) traces."""
from ._lib import Error, run as _run


def analyze(paths, **options):
    """`plateau trace analyze PATH...`: paths is one path (a file or a directory
    of per-rank traces) or a list of them. Rows of to_dataframe() are the ranks."""
    from . import _arg, _result, argv
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    elif paths is None or not hasattr(paths, "__iter__"):
        # None or a number raised "'NoneType' object is not iterable" from the loop below
        raise TypeError("trace.analyze: paths is a path (str, bytes, os.PathLike) or a list "
                        "of them, not %s" % type(paths).__name__)
    paths = [_arg(p) for p in paths]
    if not paths:
        raise Error("trace analyze: give at least one trace file or directory", "ERR_USAGE")
    return _result("ranks", _run("trace", ["analyze"] + argv(options, paths)))


def compare(a, b, **options):
    """`plateau trace compare A B`: two traces or results side by side."""
    from . import _result, argv
    return _result(None, _run("trace", ["compare"] + argv(options, [a, b])))
