#!/usr/bin/env python3
"""Times commands run in turn, round after round, so that drift in the machine's speed between
seconds hits every command alike; prints each median and writes every time to a JSON file.

Usage: bench/interleave.py ROUNDS OUT.json COMMAND_FILE [--sleep SECONDS]
COMMAND_FILE: one command per line, `name<TAB>argument<TAB>argument...` (no shell; output to
/dev/null; a command that exits non-zero stops the run). Five untimed warm-up rounds come first.
OUT.json: {"name": [milliseconds, ...], ...} in the file's order.
"""
import json, os, statistics, sys, time


def main():
    rounds, out_path, command_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    pause = float(sys.argv[5]) if len(sys.argv) == 6 and sys.argv[4] == "--sleep" else 0.0
    commands = [line.rstrip("\n").split("\t") for line in open(command_path) if line.strip()]
    null = os.open(os.devnull, os.O_RDWR)
    actions = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]

    def run(argv):
        start = time.perf_counter_ns()
        pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
        _, status = os.waitpid(pid, 0)
        elapsed = (time.perf_counter_ns() - start) / 1e6
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
        if pause:
            time.sleep(pause)
        return elapsed

    times = {command[0]: [] for command in commands}
    for round_number in range(rounds + 5):
        for name, *argv in commands:
            elapsed = run(argv)
            if round_number >= 5:
                times[name].append(elapsed)
    json.dump(times, open(out_path, "w"))
    for name, values in times.items():
        ordered = sorted(values)
        print(f"   {name:<44} median {statistics.median(values):7.2f} ms   p90 {ordered[int(len(ordered) * 0.9)]:7.2f} ms")


if __name__ == "__main__":
    main()
