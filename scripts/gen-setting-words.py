#!/usr/bin/env python3
"""Writes debugger/src/setting_words.txt from the installed gdb (13): the subcommands of
`set` and `show` and of their prefix subcommands, with aliases, in gdb's order, for gdb's
"Ambiguous set command" messages; and debugger/src/gdb_commands.txt: the names and aliases of
every other gdb command, for cohort's help. Names only: no gdb help text enters this tree.
Run: python3 scripts/gen-setting-words.py"""
import re, subprocess, pathlib

def help_of(prefix):
    out = subprocess.run(["gdb", "-nx", "-batch", "-ex", f"help {prefix}"],
                         capture_output=True, text=True).stdout
    entries = []
    for line in out.splitlines():
        if " -- " not in line:
            continue
        names = [n.strip() for n in line.split(" -- ")[0].split(",")]
        words = [n[len(prefix) + 1:] for n in names if n.startswith(prefix + " ")]
        # An alias under another prefix (`set style disassembler address` of
        # `set style address`) is listed there.
        if not words or " " in words[0]:
            continue
        words = [w for w in words if " " not in w]
        desc = line.split(" -- ", 1)[1]
        entries.append((words, desc))
    return entries

lines = ["# gdb 13's subcommands of set and show and of their prefixes (NAME, or ALIAS>NAME),",
         "# in gdb's order: written by scripts/gen-setting-words.py from gdb's help."]
todo = ["set", "show"]
seen = set()
while todo:
    p = todo.pop(0)
    if p in seen:
        continue
    seen.add(p)
    entries = help_of(p)
    if not entries:
        continue
    lines.append(f"[{p}]")
    flat = []
    for words, desc in entries:
        flat.append(words[0])
        for a in words[1:]:
            flat.append(f"{a}>{words[0]}")
        # A prefix command has its own list.
        sub = help_of(f"{p} {words[0]}")
        if sub:
            todo.append(f"{p} {words[0]}")
    # gdb's lists are sorted by name, aliases among them.
    flat.sort(key=lambda e: e.split(">")[0])
    lines.extend(flat)
out = pathlib.Path(__file__).resolve().parent.parent / "debugger/src/setting_words.txt"
out.write_text("\n".join(lines) + "\n")
print(f"wrote {out} ({len(lines)} lines)")

# The names of every other gdb command (`help all`: each command once, then its aliases, as
# full names), for cohort's `help` and `apropos` to resolve words as gdb does: names only, no
# help text (gdb's documentation is GPL'd; cohort's own texts are debugger/src/command_help.txt).
# set and show and their subcommands are in setting_words.txt.
allout = subprocess.run(["gdb", "-nx", "-batch", "-ex", "help all"],
                        capture_output=True, text=True).stdout
cmds = []
klass = ""
for line in allout.splitlines():
    if line.startswith("Command class: "):
        klass = line[len("Command class: "):]
    if " -- " not in line:
        continue
    names = [n.strip() for n in line.split(" -- ")[0].split(",")]
    if names[0].split(" ")[0] in ("set", "show"):
        continue
    cmds.append((klass, names))
cmds.sort(key=lambda c: c[1][0].encode())
cmd_lines = ["# gdb 13's commands but set and show, CLASS<tab>NAME, ALIAS... (full names) a line, sorted",
             "# by name: written by scripts/gen-setting-words.py from gdb's `help all` (names only)."]
cmd_lines += [f"{k}\t" + ", ".join(names) for k, names in cmds]
cout = out.parent / "gdb_commands.txt"
cout.write_text("\n".join(cmd_lines) + "\n")
print(f"wrote {cout} ({len(cmds)} commands)")
