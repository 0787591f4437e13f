"""What the Python benchmarks share: their command line as the section
states it, the CPU's name, a graph's short name, and the writing of a
section into BENCHMARKS.md (as ``bfs bench`` writes its own)."""

import os
import sys


def command_line(script):
    """This run's command, less where it writes."""
    words, skip = [], False
    for word in sys.argv[1:]:
        if skip or word == "--markdown":
            skip = not skip
            continue
        words.append(word)
    return f"python3 python/benches/{script} " + " ".join(words)


def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def short(name):
    """A graph's name in a table: a file's base name, or its ``gen:`` spec."""
    return os.path.basename(name) if not name.startswith("gen:") else name


def write_section(path, heading, section):
    """Replaces the section under ``heading`` in ``path`` (up to the next
    "## " heading), or appends it."""
    text = ""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as file:
            text = file.read()
    start = text.find(heading)
    if start < 0:
        text = text.rstrip() + "\n\n" + section if text else section
    else:
        end = text.find("\n## ", start + len(heading))
        text = text[:start] + section + ("\n" + text[end + 1 :] if end >= 0 else "")
    with open(path, "w", encoding="utf-8") as file:
        file.write(text.rstrip() + "\n")
