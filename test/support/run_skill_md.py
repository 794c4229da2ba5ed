#!/usr/bin/env python3
"""Runs the ```python blocks of a skill's SKILL.md as its reader runs them: in order, in one
namespace, each top-level statement as typed at a Python prompt, so an expression statement prints
its value (the prompt's echo; None prints nothing) and a block's `print`s print.

The text runs as written except for what it asks its reader to fill in:
  --fill TEXT=ENV     every TEXT in the blocks becomes the value of env var ENV (a placeholder such
                      as sk_live_... beside "# the api_key from registration"); TEXT must occur.
  --define NAME=ENV   binds NAME, which the blocks use without defining (last_check), to env var ENV.
Each block is announced on a line of its own: `--- SKILL.md python block N ---`.
"""
import argparse
import ast
import os
import re
import sys

sys.stdout.reconfigure(line_buffering=True)

BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("skill_md")
    parser.add_argument("--fill", action="append", default=[])
    parser.add_argument("--define", action="append", default=[])
    args = parser.parse_args()

    with open(args.skill_md, encoding="utf-8") as f:
        blocks = BLOCK.findall(f.read())
    if not blocks:
        print(f"no ```python blocks in {args.skill_md}", file=sys.stderr)
        return 2
    for fill in args.fill:
        text, env = fill.rsplit("=", 1)
        if not any(text in b for b in blocks):
            print(f"--fill: {text!r} is in no block", file=sys.stderr)
            return 2
        blocks = [b.replace(text, os.environ[env]) for b in blocks]

    namespace = {"__name__": "__main__"}
    for define in args.define:
        name, env = define.split("=", 1)
        namespace[name] = os.environ[env]
    for n, block in enumerate(blocks, 1):
        print(f"--- SKILL.md python block {n} ---")
        filename = f"SKILL.md python block {n}"
        for stmt in ast.parse(block, filename).body:
            exec(compile(ast.Interactive(body=[stmt]), filename, "single"), namespace)
    return 0


if __name__ == "__main__":
    sys.exit(main())
