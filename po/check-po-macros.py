#!/usr/bin/env python3
"""check-po-macros.py SRCROOT — fails if a translatable string is built by macro
concatenation, e.g. _("read %" G_GSIZE_FORMAT " bytes") or N_("%" PRIu64 " rows").

xgettext does not expand macros: it extracts only the literal up to the macro, so the
msgid in the catalogue never equals the string looked up at run time and the message can
never be translated. Use a plain C format with a cast instead: "%lld" with (long long) x,
"%llu" with (unsigned long long) x, "%zu" for a size_t.

Checked: every C source listed in SRCROOT/po/POTFILES and every C source under
SRCROOT/src that calls a gettext function (the same set po/check-po.sh judges).
"""
import os
import re
import sys

KEYWORDS = {
    "_", "N_", "C_", "NC_", "Q_", "gettext", "dgettext", "dcgettext", "ngettext",
    "dngettext", "dcngettext", "pgettext", "g_dgettext", "g_dcgettext", "g_dngettext",
    "g_dpgettext", "g_dpgettext2",
}

TOKEN = re.compile(
    r"""
      (?P<comment>/\*.*?\*/|//[^\n]*)
    | (?P<string>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*")
    | (?P<char>(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)*')
    | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<number>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*)
    | (?P<space>\s+)
    | (?P<punct>.)
    """,
    re.S | re.X,
)
GETTEXT_CALL = re.compile(r"(^|[^A-Za-z0-9_])(N?C?_|g_d[a-z0-9]*gettext[0-9]?|n?gettext) ?\(")


def tokens(text):
    line = 1
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if kind not in ("comment", "space"):
            yield kind, m.group(), line
        line += m.group().count("\n")


def check(path, shown):
    with open(path, encoding="utf-8", errors="replace") as f:
        toks = list(tokens(f.read()))
    bad = []
    i = 0
    while i < len(toks):
        kind, text, line = toks[i]
        if not (kind == "ident" and text in KEYWORDS and i + 1 < len(toks)
                and toks[i + 1][1] == "("):
            i += 1
            continue
        # Walk the call's arguments; in each one, a string literal next to an
        # identifier is concatenation with a macro.
        depth = 0
        j = i + 1
        prev = None
        macros = []
        while j < len(toks):
            k, t, ln = toks[j]
            if t in "([{" and k == "punct":
                depth += 1
            elif t in ")]}" and k == "punct":
                depth -= 1
                if depth == 0:
                    break
            if depth == 1 and prev is not None:
                pk, pt, pln = prev
                if (pk == "string" and k == "ident") or (pk == "ident" and k == "string"):
                    macro = t if k == "ident" else pt
                    if macro not in macros:
                        macros.append(macro)
            prev = toks[j] if depth == 1 and k != "punct" else None
            j += 1
        if macros:
            bad.append((line, text, ", ".join(macros)))
        i += 1
    for line, kw, macro in bad:
        print(f"FAIL: {shown}:{line}: {kw}(…) joins a string literal with {macro}: "
              f"xgettext cannot expand it, so the message is never translated")
    return len(bad)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    files = set()
    with open(os.path.join(root, "po", "POTFILES"), encoding="utf-8") as f:
        for name in f:
            name = name.strip()
            if name and not name.startswith("#") and name.endswith((".c", ".h")):
                files.add(name)
    for dirpath, _dirs, names in os.walk(os.path.join(root, "src")):
        for n in names:
            if n.endswith(".c"):
                p = os.path.join(dirpath, n)
                with open(p, encoding="utf-8", errors="replace") as f:
                    if GETTEXT_CALL.search(f.read()):
                        files.add(os.path.relpath(p, root))
    n_bad = 0
    for name in sorted(files):
        p = os.path.join(root, name)
        if os.path.isfile(p):
            n_bad += check(p, name)
    if n_bad:
        print(f"FAIL: {n_bad} translatable string(s) built with a format macro; use a "
              f"plain C format with a cast (%lld/(long long), %llu/(unsigned long long), %zu)")
        return 1
    print(f"OK: no translatable string in {len(files)} sources uses a format macro")
    return 0


if __name__ == "__main__":
    sys.exit(main())
