#!/usr/bin/env python3
"""Run schemathesis against a running `register-apns serve` and fail on any disagreement with the document.

Usage: api_contract.py --url URL [--secret-file FILE] [--seed N] [--max-examples N] [--timeout S] SPEC.yaml

Generates requests from SPEC (every operation, valid and invalid data, schemathesis's phases
examples, coverage and fuzzing) and runs all of schemathesis's checks on each answer: status codes,
content types, headers and bodies as the document states them, valid data accepted, invalid data
rejected, authentication enforced, 405 with a truthful Allow for undocumented methods.

With --secret-file the requests carry `Authorization: Bearer <the file's first line>`; without it
they carry no credentials, so every operation that needs them must answer 401 as documented.

The run is reproducible: a fixed seed, one worker, no example database (nothing is written to the
working directory). It is bounded twice: --max-examples per operation and phase, and --timeout
seconds for the whole run (then it fails, saying so).

Seven disagreements are dropped (Tests/Tools/api_contract_hooks.py), each one the document states
but OpenAPI cannot declare: POST /register-apns in the query form beside a required body; GET
/gateway/ws and GET / without a WebSocket handshake (426); an answer to a question without its
answer token (403); a question that reached none of the made-up devices (502); a question whose
choices repeat an id (400); a withdrawal id of at most 64 characters but over 64 bytes (400); a
Bark path form's body that deletes with the `id` in the query (200). A question's `?wait=` over 1 s is sent as 1 s.

Prints schemathesis's own report (failures with a curl line to reproduce each). Exit status: 0 no
finding, 1 findings or the run failed or timed out, 2 usage error or schemathesis missing.
"""

import argparse
import os
import subprocess
import sys
import tempfile

PHASES = "examples,coverage,fuzzing"

# What a request the document calls valid may be answered. 413: a body over 4096 bytes, or a
# notification over APNs' payload limit, is refused whatever its shape (JSON Schema cannot state a
# serialized size). 404: a device the request names that is not registered. 409: a name the
# registry holds as the other kind (a device id that names a group, a group that names a device;
# a registry's state JSON Schema cannot state). 429: the rate limit. 5xx are judged by the
# not_a_server_error check and the document's statuses.
VALID_ANSWERS = ["2xx", "404", "409", "413", "429", "5xx"]
# What a request the document calls invalid may be answered: a refusal, 413 for the same reason.
INVALID_ANSWERS = ["400", "404", "405", "413", "422", "429"]


def check_config(with_secret):
    """schemathesis.toml: the statuses above, plus 401 for every request of a run without the secret."""
    valid = VALID_ANSWERS + ([] if with_secret else ["401"])
    invalid = INVALID_ANSWERS + ([] if with_secret else ["401"])
    def listed(statuses):
        return ", ".join(f'"{status}"' for status in statuses)
    return (f"[checks.positive_data_acceptance]\nexpected-statuses = [{listed(valid)}]\n\n"
            f"[checks.negative_data_rejection]\nexpected-statuses = [{listed(invalid)}]\n")

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec", help="the OpenAPI document")
    parser.add_argument("--url", required=True, help="the server's base URL, e.g. http://127.0.0.1:8100")
    parser.add_argument("--secret-file", help="send Authorization: Bearer with this file's secret")
    parser.add_argument("--seed", type=int, default=16, help="hypothesis's random seed (default 16)")
    parser.add_argument("--max-examples", type=int, default=25, help="test cases per operation and phase")
    parser.add_argument("--timeout", type=float, default=120, help="seconds the whole run may take")
    args = parser.parse_args()

    try:
        import schemathesis  # noqa: F401  (only to say clearly when it is missing)
    except ImportError as error:
        sys.stderr.write(f"api_contract: {error}; run `make deps` (pip install schemathesis)\n")
        return 2

    config = check_config(with_secret=args.secret_file is not None)
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", "schemathesis.toml", "run", os.path.abspath(args.spec),
        "--url", args.url,
        "--checks", "all",
        "--phases", PHASES,
        "--seed", str(args.seed),
        "--max-examples", str(args.max_examples),
        "--workers", "1",
        "--generation-database", "none",
        "--continue-on-failure",
        "--request-timeout", "30",
        "--no-color",
        "--warnings", "off",
        "--suppress-health-check", "all",
    ]
    if args.secret_file:
        try:
            with open(args.secret_file, encoding="utf-8") as handle:
                secret = handle.read().rstrip("\r\n")
        except OSError as error:
            sys.stderr.write(f"api_contract: cannot read --secret-file {args.secret_file}: {error.strerror}\n")
            return 2
        command += ["--header", f"Authorization: Bearer {secret}"]

    # Schemathesis and hypothesis keep nothing between runs; a scratch directory catches anything
    # they would write anyway.
    with tempfile.TemporaryDirectory(prefix="api-contract-") as scratch:
        with open(os.path.join(scratch, "schemathesis.toml"), "w", encoding="utf-8") as handle:
            handle.write(config)
        # api_contract_hooks.py drops the seven disagreements OpenAPI cannot avoid (its description says which).
        tools = os.path.dirname(os.path.abspath(__file__))
        python_path = os.pathsep.join(filter(None, [tools, os.environ.get("PYTHONPATH")]))
        environment = dict(os.environ, COLUMNS="120", NO_COLOR="1", PYTHONPATH=python_path,
                           SCHEMATHESIS_HOOKS="api_contract_hooks")
        try:
            result = subprocess.run(command, cwd=scratch, env=environment, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired as expired:
            output = expired.stdout or ""
            if isinstance(output, bytes):
                output = output.decode("utf-8", "replace")
            sys.stdout.write(output)
            print(f"api_contract: the run took over {args.timeout:g} s; lower --max-examples")
            return 1
    sys.stdout.write(result.stdout)
    if result.returncode == 1:
        print(f"api_contract: the server and {args.spec} disagree (findings above)")
        return 1
    if result.returncode != 0:
        print(f"api_contract: schemathesis exited {result.returncode} (output above)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
