"""`python -m plateau COMMAND [ARGS...]`: a plateau command run through the
library (libplateau.so), its JSON document printed to stdout, as
`plateau COMMAND ARGS... --format json` prints it. A `--format json`
in ARGS is accepted (a CLI line pasted as is). Errors: "plateau: MESSAGE"
on stderr and the CLI's exit status (2 for a usage error, 1 otherwise).
Commands: the C API's (include/plateau/api.h): predict, search, sweep,
validate, collectives, list, trace, calibrate."""
import json
import sys

from ._lib import Error, run

COMMANDS = ("predict", "search", "sweep", "validate", "collectives", "list", "trace",
            "calibrate")


def _drop_format_json(args):
    """A CLI line pasted as is: its `--format json` (or --format=json) is what
    this prints anyway, so it is dropped (the library refuses any --format);
    another format stays, for the library's message. Only before a "--"."""
    out, i = [], 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return out + args[i:]
        if a == "--format=json":
            i += 1
            continue
        if a == "--format" and i + 1 < len(args) and args[i + 1] == "json":
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        # help on stdout with exit 0; no command is a usage error (stderr, 2)
        (sys.stdout if argv else sys.stderr).write(
            "usage: python -m plateau COMMAND [ARGS...]\n"
            "runs `plateau COMMAND ARGS... --format json` through libplateau.so\n"
            "commands: " + ", ".join(COMMANDS) + "\n")
        return 0 if argv else 2
    command, args = argv[0], _drop_format_json(argv[1:])
    if command not in COMMANDS:
        sys.stderr.write("plateau: unknown command '%s' (one of %s)\n"
                         % (command, ", ".join(COMMANDS)))
        return 2
    try:
        doc = run(command, args)
    except Error as exc:
        sys.stderr.write("plateau: %s\n" % exc.message)
        return 2 if exc.status == "ERR_USAGE" else 1
    try:
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away (| head): output lost is a failure, as the CLI's
        # (src/cli/main.c), without a traceback
        sys.stdout = None
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
