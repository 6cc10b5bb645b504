#!/usr/bin/env python3
"""The size test: no source file under src/ over MAX_FILE_LINES lines, no function over
MAX_FUNCTION_LINES. A unit that large hides more than one concern (docs/architecture.md, "The
house"); split it rather than raise the numbers.

A function is found as C++ is written here (clang-format, Google style): a line at namespace or
class level that ends an opening signature with `{`, and the `}` that closes it. Lambdas and
nested blocks count toward the function they are in. Raw string literals and comments are
skipped when braces are counted.

Usage: check_sizes.py [SRC_DIR]   (default: src/ next to this repository's tests/)
Exits 1 and prints each unit over its limit as "file:line: name is N lines (limit M)".
"""
import os
import re
import sys

MAX_FILE_LINES = 1000
MAX_FUNCTION_LINES = 120

# A function's opening line: a name followed by "(" ... and ending in "{" (possibly after
# const/override/noexcept or a constructor's initializer list on the lines before).
SIGNATURE = re.compile(r'^(?P<indent>\s*)(?!(?:if|for|while|switch|return|else|do|case|catch)\b)'
                       r'[A-Za-z_~][\w:<>,\s\*&~\[\]]*?(?P<name>[A-Za-z_~][\w:~]*)\s*\(')


def strip_code(text):
    """The text with comments, string and char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            open_paren = text.find('(', i + 2)
            delim = text[i + 2:open_paren]
            end = text.find(')' + delim + '"', open_paren)
            end = n if end < 0 else end + len(delim) + 2
            out.append('""' + '\n' * text.count('\n', i, end))
            i = end
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(text):
    """(name, first line, line count) of each top-level or member function body."""
    lines = strip_code(text).split('\n')
    found = []
    depth = 0
    pending = None  # (name, start line) of a signature whose body has not opened yet
    body_start = None  # (name, start line, depth outside the body)
    parens = 0  # open "(" carried over from earlier lines (a signature on several lines)
    for lineno, line in enumerate(lines, 1):
        if body_start is None and parens == 0:
            m = SIGNATURE.match(line)
            if m and depth <= 2:
                pending = (m.group('name'), lineno)
        parens += line.count('(') - line.count(')')
        if body_start is None and line.strip().endswith(';') and parens == 0:
            pending = None
        if body_start is None and line.lstrip().startswith('namespace'):
            pending = None  # a macro line (ALLOT_DEFINE_TYPE(...)) before a namespace opens
        for ch in line:
            if ch == '{':
                if body_start is None and pending is not None:
                    body_start = (pending[0], pending[1], depth)
                    pending = None
                depth += 1
            elif ch == '}':
                depth -= 1
                if body_start is not None and depth == body_start[2]:
                    found.append((body_start[0], body_start[1], lineno - body_start[1] + 1))
                    body_start = None
    return found


def check(src):
    errors = []
    for dirpath, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(('.h', '.cc')):
                continue
            full = os.path.join(dirpath, name)
            path = os.path.relpath(full, src)
            with open(full, encoding='utf-8') as f:
                text = f.read()
            n = text.count('\n')
            if n > MAX_FILE_LINES:
                errors.append(f'{path}:1: the file is {n} lines (limit {MAX_FILE_LINES})')
            if name.endswith(('_test.cc', '_fuzz.cc')):
                continue  # a test body is a list of steps, not a unit of logic
            for fn, line, count in functions(text):
                if count > MAX_FUNCTION_LINES:
                    errors.append(f'{path}:{line}: {fn} is {count} lines '
                                  f'(limit {MAX_FUNCTION_LINES})')
    return errors


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '..', '..', 'src')
    errors = check(src)
    for e in errors:
        print(e)
    print(f'sizes: {len(errors)} units over their limits')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
