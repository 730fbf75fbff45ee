"""Finding and calling libplateau.so (include/plateau/api.h) through ctypes.

The library is looked for, in order: the file named by $PLATEAU_LIBRARY; the
build directories of the source tree this package sits in (build/, build-test/);
the lib/ beside an installed `plateau` command on $PATH; the system's library
path (ctypes.util.find_library, $LD_LIBRARY_PATH); and the usual prefixes.
"""
import ctypes
import ctypes.util
import json
import os
import shutil
import threading

_NAMES = ("libplateau.so", "libplateau.so.0")


class Error(Exception):
    """A plateau call failed: message is the library's one-line diagnostic
    (the line the CLI prints after "plateau: "), status its pl_status name."""

    def __init__(self, message, status="ERR_INPUT"):
        super().__init__(message)
        self.message = message
        self.status = status


class _Diag(ctypes.Structure):
    # struct pl_diag (include/plateau/status.h)
    _fields_ = [
        ("msg", ctypes.c_char * 512),
        ("path", ctypes.c_char * 256),
        ("line", ctypes.c_int64),
        ("column", ctypes.c_int64),
        ("offset", ctypes.c_int64),
    ]


def _candidates():
    env = os.environ.get("PLATEAU_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.dirname(os.path.dirname(here))  # python/plateau -> the source tree
    if os.path.exists(os.path.join(tree, "CMakeLists.txt")):
        for build in ("build", "build-test"):
            for name in _NAMES:
                yield os.path.join(tree, build, name)
    exe = shutil.which("plateau")
    if exe:
        prefix = os.path.dirname(os.path.dirname(os.path.realpath(exe)))
        for lib in ("lib", "lib64", os.path.join("lib", "x86_64-linux-gnu"),
                    os.path.join("lib", "aarch64-linux-gnu")):
            for name in _NAMES:
                yield os.path.join(prefix, lib, name)
    found = ctypes.util.find_library("plateau")
    if found:
        yield found
    for name in _NAMES:
        yield name  # the dynamic loader's own search ($LD_LIBRARY_PATH, ld.so.cache)
    for prefix in ("/usr/local/lib", "/usr/lib"):
        for name in _NAMES:
            yield os.path.join(prefix, name)


_lock = threading.Lock()
_lib = None


def _load():
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            if os.path.sep in path and not os.path.exists(path):
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError as exc:
                tried.append("%s (%s)" % (path, exc))
                continue
            lib.pl_api_run.restype = ctypes.c_int
            lib.pl_api_run.argtypes = [ctypes.c_char_p, ctypes.c_int,
                                       ctypes.POINTER(ctypes.c_char_p),
                                       ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(_Diag)]
            lib.pl_api_free.restype = None
            lib.pl_api_free.argtypes = [ctypes.c_void_p]
            lib.pl_api_version.restype = ctypes.c_char_p
            lib.pl_api_version.argtypes = []
            lib.pl_status_name.restype = ctypes.c_char_p
            lib.pl_status_name.argtypes = [ctypes.c_int]
            _lib = lib
            return lib
        raise Error("cannot find libplateau.so: build it (cmake --build build), install it "
                    "(cmake --install build) or set PLATEAU_LIBRARY to its path"
                    + ("; tried " + ", ".join(tried) if tried else ""), "ERR_IO")


def library_path():
    """The path of the libplateau.so in use (loading it if needed)."""
    return _load()._name


def version():
    """The library's version (git describe at build time), as every JSON records it."""
    return _load().pl_api_version().decode()


def run(command, argv):
    """Run one command with CLI-style arguments; returns the parsed JSON document."""
    lib = _load()
    # os.fsencode: a str from os.fsdecode or sys.argv holding a file name that is
    # not UTF-8 (surrogate escapes) goes back to its bytes, not UnicodeEncodeError
    args = [os.fsencode(a) if isinstance(a, str) else bytes(a) for a in argv]
    for a in args:
        if b"\0" in a:
            # ctypes passes a C string: "llama2-7b\0x" ran as llama2-7b, the rest dropped;
            # a command line cannot hold a NUL either (execve)
            raise Error("%s: argument %r contains a NUL character" % (command, a), "ERR_USAGE")
    arr = (ctypes.c_char_p * max(len(args), 1))(*args)
    out = ctypes.c_void_p()
    diag = _Diag()
    status = lib.pl_api_run(command.encode(), len(args), arr, ctypes.byref(out),
                            ctypes.byref(diag))
    if status != 0:
        raise Error(diag.msg.decode(errors="replace"), lib.pl_status_name(status).decode())
    try:
        # the library writes UTF-8 (src/base/emit.c puts U+FFFD for a byte that is
        # not); "replace" keeps a stray byte from raising UnicodeDecodeError
        text = ctypes.string_at(out.value).decode(errors="replace")
    finally:
        lib.pl_api_free(out)
    return json.loads(text)
