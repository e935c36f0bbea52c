#!/usr/bin/env python3
"""Lists Swift functions, initialisers, subscripts and computed properties
longer than a limit (default 60 lines, from the declaration line to its
closing brace), longest first; exits 1 when there is one.

    python3 scripts/long-functions.py [DIR] [--limit N]    # DIR defaults to Sources

A reading aid for issue 14's rule "no function under Sources/ over 60 lines":
braces are counted on lines with strings and comments removed, which is
enough for this code base, not a Swift parser."""
import os
import re
import sys

DECLARATION = re.compile(
    r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*'
    r'(?:(?:public|private|fileprivate|internal|package|static|class|override|final|mutating|nonisolated|'
    r'convenience|required|@discardableResult)\s+)*'
    r'(func\s+[^\s(<]+|init[?!]?|deinit|subscript|var\s+\w+\s*:[^=]*\{\s*$)')


def body_length(lines, start):
    depth, opened = 0, False
    for index in range(start, len(lines)):
        text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', lines[index])
        text = re.sub(r'//.*', '', text)
        for char in text:
            if char == '{':
                depth, opened = depth + 1, True
            elif char == '}':
                depth -= 1
        if opened and depth <= 0:
            return index - start + 1
        if not opened and index > start + 15:
            return None
    return None


def main():
    args = sys.argv[1:]
    limit = 60
    if '--limit' in args:
        position = args.index('--limit')
        limit = int(args[position + 1])
        del args[position:position + 2]
    root = args[0] if args else 'Sources'
    found = []
    for directory, _, files in os.walk(root):
        for name in files:
            if not name.endswith('.swift'):
                continue
            path = os.path.join(directory, name)
            lines = open(path, encoding='utf-8').read().split('\n')
            for index, line in enumerate(lines):
                match = DECLARATION.match(line)
                if not match:
                    continue
                length = body_length(lines, index)
                if length and length > limit:
                    found.append((length, path, index + 1, match.group(1).strip()))
    for length, path, line, what in sorted(found, reverse=True):
        print(f'{length:4d} lines  {path}:{line}  {what}')
    print(f'{len(found)} over {limit} lines under {root}')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
