#!/usr/bin/env python3
"""Turns the rows the benchmark scripts append to $BENCH_ROWS (JSON Lines) into one Markdown table.

Each row: {"group", "what", "value", "unit", and optionally "reference" + "reference_value" (measured
in the same run), and a goal: "max_ratio" / "min_ratio" (value against the reference) or "max_value" /
"min_value" (in the row's unit)}. Only same-run ratios are comparable between days on these machines.

Usage: bench/table.py ROWS [--update FILE]   (with --update, the table between the markers
<!-- bench-table:begin --> and <!-- bench-table:end --> of FILE, docs/internals.md for `make bench
UPDATE_DOCS=1`, is replaced, with the date and machine)
"""
import datetime, json, os, sys


def number(value, unit):
    if unit in ("req/s", "registrations/s") or abs(value) >= 1000:
        return f"{value:,.0f} {unit}"
    return f"{value:.2f} {unit}" if value < 100 else f"{value:.1f} {unit}"


def goal_of(row):
    """The goal as text and whether this row meets it (None when the row has no goal)."""
    value, reference = row["value"], row.get("reference_value")
    ratio = value / reference if reference else None
    if "max_ratio" in row and ratio is not None:
        return f"≤ {row['max_ratio']}x", ratio <= row["max_ratio"]
    if "min_ratio" in row and ratio is not None:
        return f"≥ {row['min_ratio']}x", ratio >= row["min_ratio"]
    if "max_value" in row:
        return f"≤ {number(row['max_value'], row['unit'])}", value <= row["max_value"]
    if "min_value" in row:
        return f"≥ {number(row['min_value'], row['unit'])}", value >= row["min_value"]
    return "", None


def table(rows):
    lines = ["| group | what | median | same-run reference | ratio | goal | met |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        reference = ""
        ratio = ""
        if row.get("reference_value"):
            reference = f"{row['reference']}: {number(row['reference_value'], row.get('reference_unit', row['unit']))}"
            ratio = f"{row['value'] / row['reference_value']:.2f}x"
        goal, met = goal_of(row)
        mark = "" if met is None else ("yes" if met else "**no**")
        lines.append(f"| {row['group']} | {row['what']} | {number(row['value'], row['unit'])} | {reference} | {ratio} "
                     f"| {goal} | {mark} |")
    return "\n".join(lines)


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    text = table(rows)
    print(text)
    if len(sys.argv) == 4 and sys.argv[2] == "--update":
        path = sys.argv[3]
        document = open(path).read()
        begin, end = "<!-- bench-table:begin -->", "<!-- bench-table:end -->"
        if begin not in document or end not in document:
            sys.exit(f"{path} has no {begin} ... {end} markers")
        cores = os.cpu_count()
        stamp = (f"\n_`make bench UPDATE_DOCS=1` on {datetime.date.today().isoformat()}, release build, "
                 f"{cores} cores; medians; references measured in the same run._\n\n")
        head, rest = document.split(begin, 1)
        _, tail = rest.split(end, 1)
        open(path, "w").write(head + begin + stamp + text + "\n" + end + tail)


if __name__ == "__main__":
    main()
