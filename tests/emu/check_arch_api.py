#!/usr/bin/env python3
"""Checks that templates/emu/kiln/arch/ mirrors templates/kiln/arch/.

usage: check_arch_api.py TEMPLATES

The emulator runs kiln's templates with the emulated arch/ headers in place
of the real ones, so the two layers must offer the same API: for every real
header that holds PTX, an emulated header of the same name must declare every
function it declares, with the same template parameters, return type and
parameters (the emulated ones may add a trailing defaulted
`emu::SourceLoc L = KILN_EMU_HERE`). Also: no template outside kiln/arch/
holds PTX (inline asm), and the emulated headers hold none.
Prints each problem and exits 1, or prints a summary.
"""
import os
import re
import sys


def strip_comments(text):
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return text.replace("\\\n", " ")


def declarations(text):
    """{name: normalized signature} of every KILN_DEVICE function."""
    text = strip_comments(text)
    out = {}
    for m in re.finditer(r"KILN_DEVICE\b", text):
        # Template header right before (optionally with 'static').
        before = text[:m.start()].rstrip()
        tmpl = ""
        tm = re.search(r"template\s*<([^<>]*)>\s*(static\s*)?$", before)
        if tm:
            tmpl = re.sub(r"\s+", " ", tm.group(1).strip())
        rest = text[m.end():]
        paren = rest.index("(")
        head = rest[:paren].split()
        if len(head) < 2:
            continue
        name, ret = head[-1], " ".join(head[:-1])
        depth, i = 0, paren
        while True:
            c = rest[i]
            depth += c == "("
            depth -= c == ")"
            i += 1
            if depth == 0:
                break
        params = re.sub(r"\s+", " ", rest[paren + 1:i - 1]).strip()
        params = re.sub(r",?\s*emu::SourceLoc L = KILN_EMU_HERE$", "", params)
        out[name] = "template <%s> %s %s(%s)" % (tmpl, ret, name, params)
    return out


def has_ptx(text):
    for m in re.finditer(r"\basm\b(\s+volatile)?\s*\(\s*\"([^\"]*)\"",
                         strip_comments(text)):
        if m.group(2).strip():
            return True
    return False


def main():
    root = sys.argv[1]
    real_dir = os.path.join(root, "kiln", "arch")
    emu_dir = os.path.join(root, "emu", "kiln", "arch")
    problems, checked = [], 0
    for dirpath, _, files in os.walk(os.path.join(root, "kiln")):
        for f in files:
            path = os.path.join(dirpath, f)
            if os.path.commonpath([path, real_dir]) != real_dir and \
                    has_ptx(open(path).read()):
                problems.append("%s holds PTX outside kiln/arch/" %
                                os.path.relpath(path, root))
    for f in sorted(os.listdir(real_dir)):
        real = open(os.path.join(real_dir, f)).read()
        if not has_ptx(real):
            continue  # plain C++, shared by both builds
        emu_path = os.path.join(emu_dir, f)
        if not os.path.exists(emu_path):
            problems.append("kiln/arch/%s holds PTX but templates/emu has no "
                            "emulated counterpart" % f)
            continue
        emu_text = open(emu_path).read()
        if has_ptx(emu_text):
            problems.append("emu/kiln/arch/%s holds PTX" % f)
        want, have = declarations(real), declarations(emu_text)
        for name, sig in sorted(want.items()):
            checked += 1
            if name not in have:
                problems.append("emu/kiln/arch/%s lacks %s" % (f, sig))
            elif have[name] != sig:
                problems.append("emu/kiln/arch/%s: %s\n  real: %s" %
                                (f, have[name], sig))
    for p in problems:
        print("check_arch_api: " + p)
    if problems:
        sys.exit(1)
    print("check_arch_api: %d functions of kiln/arch/ have emulated "
          "counterparts with the same signature; PTX only in kiln/arch/" %
          checked)


if __name__ == "__main__":
    main()
