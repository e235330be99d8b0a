#!/usr/bin/env python3
"""Flags long functions in the generator (test arch.function_length).

Usage: function_length.py [--max N] FILE.c...

A function longer than N lines (80 by default), counted from the first line
of its signature to its closing brace, is an error unless the comment just
above it holds the marker "One piece:" followed by the reason it is not
split (docs/architecture.md, "Rules the tests keep"). The files follow the
house style (.clang-format: Linux braces), so a definition is a signature
starting in column 0 whose body opens with "{" alone on a line and closes
with "}" alone on a line.
"""
import re
import sys

import mgtest

MARKER = "One piece:"


def functions(lines):
    """(name, first line, last line, comment above) of each definition."""
    i = 0
    while i < len(lines):
        if lines[i] != "{":
            i += 1
            continue
        # The signature: back over its continuation lines to the one that
        # starts in column 0.
        start = i - 1
        while start > 0 and lines[start][:1] in (" ", "\t"):
            start -= 1
        end = i + 1
        while end < len(lines) and lines[end] != "}":
            end += 1
        m = re.search(r"(\w+)\s*\(", " ".join(lines[start:i]))
        name = m.group(1) if m else lines[start]
        # The comment that ends on the line just above the signature.
        comment = []
        j = start - 1
        if j >= 0 and lines[j].rstrip().endswith("*/"):
            while j >= 0:
                comment.insert(0, lines[j])
                if lines[j].lstrip().startswith("/*"):
                    break
                j -= 1
        yield name, start + 1, end + 1, "\n".join(comment)
        i = end + 1


def main(argv):
    limit = 80
    if len(argv) > 2 and argv[1] == "--max":
        limit = int(argv[2])
        argv = argv[2:]
    checks = mgtest.Checks("function length")
    for path in argv[1:]:
        lines = mgtest.read_text(path).split("\n")
        for name, first, last, comment in functions(lines):
            length = last - first + 1
            m = re.search(re.escape(MARKER) + r"\s*(\S.*)", comment.replace("\n", " "))
            checks.check(length <= limit or m is not None,
                         f"{path}:{first}: {name} is {length} lines (more than {limit}) and the "
                         f"comment above it does not say why it is one piece ('{MARKER} ...')")
    return checks.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
