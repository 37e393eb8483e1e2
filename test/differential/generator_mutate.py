"""A fourth style (--style mutate, ids m<N>-SEED): a program of the other styles with one random
edit, as a typo or a half-finished change leaves it: a token deleted, doubled, or replaced by
another token of the program, a keyword or punctuation inserted, a character or a whole line
deleted. Most such programs are refused: the engines must refuse them with the same errors (OPA's
parser reports several for one mistake: the attempts it made), and accept the same ones.

    generate(seed) -> case (modules, data, input, query), deterministic in the seed.
"""

import random
import re

import generator
import generator_exprs
import generator_policy

VERSION = 1

# The program's tokens as an editor sees them: strings, names, numbers, two-character operators,
# any other character.
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|`[^`]*`|[A-Za-z_][A-Za-z0-9_]*|[0-9][0-9.eE+-]*|:=|==|!=|<=|>=|\S')

INSERTED = ["(", ")", "[", "]", "{", "}", ",", ":", "|", ".", "=", ":=", "if", "else", "some", "in", "every",
            "not", "with", "as", "contains", "default", "import", "package", '"', "`", "#"]

BASES = (generator.generate, generator_exprs.generate, generator_policy.generate)


def mutate(text, rng):
    tokens = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
    if not tokens:
        return text
    a, b = rng.choice(tokens)
    kind = rng.randrange(6)
    if kind == 0:  # a token deleted
        return text[:a] + text[b:]
    if kind == 1:  # a token doubled
        return text[:a] + text[a:b] + " " + text[a:b] + text[b:]
    if kind == 2:  # a token replaced by another of the program
        c, d = rng.choice(tokens)
        return text[:a] + text[c:d] + text[b:]
    if kind == 3:  # a keyword or punctuation inserted
        return text[:a] + rng.choice(INSERTED) + " " + text[a:]
    if kind == 4:  # a character deleted
        i = rng.randrange(len(text))
        return text[:i] + text[i + 1:]
    lines = text.split("\n")  # a line deleted
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def generate(seed):
    rng = random.Random(seed * 7919 + 17)
    case = BASES[seed % len(BASES)](seed)
    name = rng.choice(sorted(case["modules"]))
    case["modules"] = dict(case["modules"])
    case["modules"][name] = mutate(case["modules"][name], rng)
    case["id"] = "m%d-%d" % (VERSION, seed)
    case["seed"] = seed
    return case
