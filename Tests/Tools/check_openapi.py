#!/usr/bin/env python3
"""Check recorded HTTP exchanges against an OpenAPI 3.1 document.

Usage: check_openapi.py [--require-all] SPEC.yaml EXCHANGES.jsonl

EXCHANGES.jsonl holds one JSON object per line (blank lines are skipped):
  {"method": "POST", "path": "/api/v1/devices/abcd", "status": 200,
   "content_type": "application/json", "body": "<response body text>",
   "headers": {"retry-after": "30"}}

For each exchange the method and concrete path must match an operation of the document (literal
paths before templated ones, as OpenAPI says), the status must be documented for it, the content
type must be a documented one, a JSON body must validate (JSON Schema draft 2020-12, `$ref`s
resolved within the document) and every response header the document marks `required` must be
present and valid. Requests that match no operation are accepted only with a status listed in the
document's top-level `x-unmatched-routes.responses` (404 for an unknown path, 405 for a known path
and another method, whose Allow must name the path's methods; 401 for either), and are checked
against that response.

The document's own examples are validated against their schemas, and the document itself with
openapi_spec_validator when that module is installed.

Prints one line per failure and `checked N exchanges against M operations: K failures`; lists
operations no exchange exercised on standard error (failures with --require-all).
Exit status: 0 no failure, 1 failures, 2 usage error or unreadable file.
"""

import argparse
import json
import re
import sys

try:
    import yaml
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError as error:  # pragma: no cover - depends on the machine
    sys.stderr.write(f"check_openapi: {error}; install python3-yaml and python3-jsonschema\n")
    sys.exit(2)

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_SCHEMA_ERRORS = 5
MAX_MESSAGE = 240


class UnreadableInput(Exception):
    """A file that cannot be read or is not what it should be (exit 2)."""


class SpecLoader(yaml.SafeLoader):
    """YAML loader that keeps timestamps as strings, as JSON would."""


SpecLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def shorten(text, limit=MAX_MESSAGE):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def load_spec(path):
    try:
        with open(path, encoding="utf-8") as handle:
            spec = yaml.load(handle, Loader=SpecLoader)
    except OSError as error:
        raise UnreadableInput(f"cannot read {path}: {error.strerror}")
    except yaml.YAMLError as error:
        raise UnreadableInput(f"{path} is not valid YAML: {shorten(error)}")
    if not isinstance(spec, dict) or not isinstance(spec.get("paths"), dict):
        raise UnreadableInput(f"{path} is not an OpenAPI document (no paths object)")
    return spec


def load_exchanges(path):
    try:
        if path == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
    except OSError as error:
        raise UnreadableInput(f"cannot read {path}: {error.strerror}")
    except UnicodeDecodeError:
        raise UnreadableInput(f"{path} is not UTF-8 text")
    exchanges = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            exchange = json.loads(line)
        except json.JSONDecodeError as error:
            raise UnreadableInput(f"{path}:{number}: not JSON: {error.msg} at column {error.colno}")
        if not isinstance(exchange, dict):
            raise UnreadableInput(f"{path}:{number}: not a JSON object")
        for key in ("method", "path", "status"):
            if key not in exchange:
                raise UnreadableInput(f"{path}:{number}: missing \"{key}\"")
        try:
            exchange["status"] = int(exchange["status"])
        except (TypeError, ValueError):
            raise UnreadableInput(f"{path}:{number}: status {exchange['status']!r} is not a number")
        if not isinstance(exchange["method"], str) or not isinstance(exchange["path"], str):
            raise UnreadableInput(f"{path}:{number}: method and path must be strings")
        headers = exchange.get("headers") or {}
        if not isinstance(headers, dict):
            raise UnreadableInput(f"{path}:{number}: headers must be an object")
        exchange["headers"] = {str(name).lower(): str(value) for name, value in headers.items()}
        exchange["line"] = number
        exchanges.append(exchange)
    return exchanges


def resolve_pointer(spec, ref):
    """The object a local `$ref` ("#/a/b") names; KeyError when it names nothing."""
    if not ref.startswith("#"):
        raise KeyError(f"only local $refs are supported: {ref}")
    node = spec
    for part in ref[1:].split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise KeyError(f"unresolvable $ref {ref}")
    return node


def deref(spec, node, seen=()):
    """Follows a chain of Reference Objects ({"$ref": ...}) to the object they name."""
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if ref in seen:
            raise KeyError(f"$ref cycle at {ref}")
        seen = seen + (ref,)
        node = resolve_pointer(spec, ref)
    return node


class SchemaChecker:
    """Validates instances against schemas of one document, resolving its `$ref`s."""

    def __init__(self, spec):
        # The schema to check goes under allOf in a root that holds the document's parts, so
        # "#/components/..." refs resolve the same way with old (RefResolver) and new
        # (referencing) jsonschema releases.
        self.base = {key: spec[key] for key in ("components", "paths") if key in spec}

    def errors(self, schema, instance):
        root = dict(self.base)
        root["allOf"] = [schema]
        validator = Draft202012Validator(root)
        found = []
        try:
            for error in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path)):
                where = "$" + "".join(
                    f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path
                )
                message = error.message
                if error.context:
                    message += " (" + jsonschema.exceptions.best_match(error.context).message + ")"
                found.append(f"{where}: {shorten(message)}")
        except Exception as error:  # unresolvable $ref and the like: a fault of the document
            ref = getattr(error, "ref", None)
            found.append(f"schema cannot be used: {f'unresolvable $ref {ref}' if ref else shorten(error)}")
        return found


def parse_media_type(text):
    parts = [part.strip() for part in (text or "").split(";")]
    base = parts[0].lower()
    params = {}
    for part in parts[1:]:
        if "=" in part:
            name, value = part.split("=", 1)
            params[name.strip().lower()] = value.strip().strip('"').lower()
    return base, params


def media_type_matches(documented, actual):
    doc_base, doc_params = parse_media_type(documented)
    act_base, act_params = parse_media_type(actual)
    if doc_base in ("*/*", act_base):
        base_ok = True
    elif doc_base.endswith("/*"):
        base_ok = act_base.startswith(doc_base[:-1])
    else:
        base_ok = False
    return base_ok and all(act_params.get(name) == value for name, value in doc_params.items())


def is_json_media_type(text):
    base, _ = parse_media_type(text)
    return base == "application/json" or base.endswith("+json")


class Route:
    """One templated path of the document, with its regular expression."""

    def __init__(self, template, item):
        self.template = template
        self.item = item
        segments = template.split("/")
        self.templated = sum(1 for segment in segments if "{" in segment)
        pattern = ""
        for piece in re.split(r"(\{[^}/]+\})", template):
            pattern += "[^/]+" if piece.startswith("{") and piece.endswith("}") else re.escape(piece)
        self.regex = re.compile(pattern + r"\Z")

    def methods(self):
        return [method for method in HTTP_METHODS if isinstance(self.item.get(method), dict)]


class Checker:
    def __init__(self, spec):
        self.spec = spec
        self.schemas = SchemaChecker(spec)
        self.failures = []
        self.routes = []
        for template, item in spec["paths"].items():
            try:
                item = deref(spec, item)
            except KeyError as error:
                self.fail(f"spec: paths.{template}: {error.args[0]}")
                continue
            if isinstance(item, dict):
                self.routes.append(Route(str(template), item))
        # OpenAPI: concrete paths match before templated ones.
        self.routes.sort(key=lambda route: route.templated)
        self.operations = [(method.upper(), route.template) for route in self.routes for method in route.methods()]
        self.exercised = set()

    def fail(self, line):
        self.failures.append(line)
        print(line)

    # The document itself.

    def check_document(self):
        try:
            import openapi_spec_validator as osv
        except ImportError:
            sys.stderr.write("check_openapi: openapi_spec_validator not installed; "
                             "the document itself is not validated (only its examples)\n")
        else:
            for message in spec_validator_errors(osv, self.spec):
                self.fail(f"spec: {message}")
        self.check_examples()

    def check_examples(self):
        for route in self.routes:
            for method in route.methods():
                operation = route.item[method]
                name = f"{method.upper()} {route.template}"
                try:
                    body = deref(self.spec, operation.get("requestBody"))
                    if isinstance(body, dict):
                        self.check_content_examples(f"{name} request", body.get("content"))
                    for status, response in (operation.get("responses") or {}).items():
                        response = deref(self.spec, response)
                        if isinstance(response, dict):
                            self.check_content_examples(f"{name} {status}", response.get("content"))
                except KeyError as error:
                    self.fail(f"spec: {name}: {error.args[0]}")

    def check_content_examples(self, where, content):
        for media_type, media in (content or {}).items():
            if not isinstance(media, dict) or "schema" not in media:
                continue
            samples = []
            if "example" in media:
                samples.append(("example", media["example"]))
            for label, example in (media.get("examples") or {}).items():
                example = deref(self.spec, example)
                if isinstance(example, dict) and "value" in example:
                    samples.append((f"example {label}", example["value"]))
            for label, value in samples:
                for error in self.schemas.errors(media["schema"], value)[:MAX_SCHEMA_ERRORS]:
                    self.fail(f"spec: {where} {media_type} {label}: {error}")

    # Exchanges.

    def match(self, path):
        """The routes whose template matches the concrete path, most specific first. A path the
        document lists literally is that path item's alone (OpenAPI matches concrete paths before
        templated ones), so a method it lacks is not looked up in a templated path."""
        path = path.split("?", 1)[0].split("#", 1)[0]
        routes = [route for route in self.routes if route.regex.match(path)]
        literal = [route for route in routes if route.templated == 0]
        return literal or routes

    def check_exchange(self, exchange):
        method = exchange["method"].upper()
        status = exchange["status"]
        name = exchange_name(exchange)
        routes = self.match(exchange["path"])
        for route in routes:
            operation = route.item.get(method.lower())
            if isinstance(operation, dict):
                self.exercised.add((method, route.template))
                where = f"{method} {route.template}"
                responses = operation.get("responses") or {}
                response = lookup_status(responses, status)
                if response is None:
                    documented = ", ".join(sorted(str(code) for code in responses))
                    self.fail(f"{name}: status {status} is not documented for {where} (documented: {documented})")
                    return
                self.check_response(name, where, response, exchange)
                return
        unmatched = (self.spec.get("x-unmatched-routes") or {}).get("responses") or {}
        response = lookup_status(unmatched, status)
        if routes:
            allowed = sorted({m.upper() for route in routes for m in route.methods()})
            explanation = f"{route_names(routes)} has no {method} (only {', '.join(allowed)})"
            if response is None or status == 404:
                self.fail(f"{name}: {explanation}; expected 405 with Allow")
                return
            if status == 405:
                allow_header = exchange["headers"].get("allow", "")
                listed = {part.strip().upper() for part in allow_header.split(",") if part.strip()}
                # The most specific path is the one a router picks; Allow names exactly its methods.
                methods = {m.upper() for m in routes[0].methods()}
                missing = sorted(methods - listed)
                extra = sorted(listed - methods - {"HEAD", "OPTIONS"})
                if allow_header and missing:
                    self.fail(f"{name}: Allow {allow_header!r} does not name {', '.join(missing)}")
                if extra:
                    self.fail(f"{name}: Allow {allow_header!r} names {', '.join(extra)}, which {routes[0].template} does not have")
        else:
            if response is None:
                self.fail(f"{name}: no path of the document matches {exchange['path']}")
                return
            if status == 405:
                self.fail(f"{name}: 405 for a path the document does not have; expected 404")
                return
        self.check_response(name, "unmatched route", response, exchange)

    def check_response(self, name, where, response, exchange):
        try:
            response = deref(self.spec, response)
            self.check_headers(name, where, response, exchange["headers"])
            self.check_body(name, where, response, exchange)
        except KeyError as error:
            self.fail(f"{name}: spec: {where}: {error.args[0]}")

    def check_headers(self, name, where, response, headers):
        for header, definition in (response.get("headers") or {}).items():
            if header.lower() == "content-type":
                continue  # OpenAPI: described by the content map, ignored here
            definition = deref(self.spec, definition)
            value = headers.get(header.lower())
            if value is None:
                if definition.get("required"):
                    self.fail(f"{name}: missing header {header} (required by {where})")
                continue
            schema = definition.get("schema")
            if schema is None:
                continue
            typed = coerce_header(value, deref(self.spec, schema))
            for error in self.schemas.errors(schema, typed)[:MAX_SCHEMA_ERRORS]:
                self.fail(f"{name}: header {header}: {value!r}: {error.split(': ', 1)[-1]}")

    def check_body(self, name, where, response, exchange):
        body = exchange.get("body")
        body = "" if body is None else body
        content_type = exchange.get("content_type") or exchange["headers"].get("content-type")
        content = response.get("content") or {}
        if not content:
            if body:
                self.fail(f"{name}: body of {len(body)} characters where {where} documents none")
            return
        if not content_type:
            self.fail(f"{name}: no content type; documented: {', '.join(content)}")
            return
        matches = [key for key in content if media_type_matches(key, content_type)]
        if not matches:
            self.fail(f"{name}: content type {content_type!r} is not documented (documented: {', '.join(content)})")
            return
        # The most specific documented type wins: exact base type, then more parameters.
        matches.sort(key=lambda key: ("*" in key, -len(parse_media_type(key)[1])))
        media = content[matches[0]] or {}
        schema = media.get("schema")
        if not is_json_media_type(content_type):
            if schema is not None:
                for error in self.schemas.errors(schema, body)[:MAX_SCHEMA_ERRORS]:
                    self.fail(f"{name}: body: {error}")
            return
        try:
            document = json.loads(body)
        except (json.JSONDecodeError, TypeError) as error:
            self.fail(f"{name}: body is not JSON ({shorten(error)}): {shorten(repr(body), 80)}")
            return
        if schema is None:
            return
        errors = self.schemas.errors(schema, document)
        for error in errors[:MAX_SCHEMA_ERRORS]:
            self.fail(f"{name}: body{'' if error.startswith('$') else ':'} {error}")
        if len(errors) > MAX_SCHEMA_ERRORS:
            self.fail(f"{name}: body: {len(errors) - MAX_SCHEMA_ERRORS} more schema errors")

    def check_coverage(self, require_all):
        missing = [op for op in self.operations if op not in self.exercised]
        sys.stdout.flush()
        for method, template in missing:
            sys.stderr.write(f"not exercised: {method} {template}\n")
            if require_all:
                self.fail(f"{method} {template}: never exercised (--require-all)")


def exchange_name(exchange):
    return f"{exchange['method'].upper()} {exchange['path']} {exchange['status']} (line {exchange['line']})"


def route_names(routes):
    return " / ".join(route.template for route in routes)


def lookup_status(responses, status):
    """The response for a status: exact code, then its range (4XX), then default."""
    normalized = {str(code).upper(): response for code, response in responses.items()}
    for key in (str(status), f"{str(status)[0]}XX", "DEFAULT"):
        if key in normalized:
            return normalized[key]
    return None


def coerce_header(value, schema):
    """A header's text as the type its schema names, so integer headers validate as integers."""
    types = schema.get("type") if isinstance(schema, dict) else None
    types = types if isinstance(types, list) else [types]
    text = value.strip()
    if "integer" in types and re.fullmatch(r"[+-]?[0-9]+", text):
        return int(text)
    if "number" in types:
        try:
            return float(text)
        except ValueError:
            pass
    if "boolean" in types and text.lower() in ("true", "false"):
        return text.lower() == "true"
    return value


def spec_validator_errors(osv, spec):
    """Messages of openapi_spec_validator about the document, across its API versions."""
    messages = []
    try:
        validator_class = getattr(osv, "OpenAPIV31SpecValidator", None)
        if validator_class is not None:
            errors = validator_class(spec).iter_errors()
        elif hasattr(getattr(osv, "openapi_v31_spec_validator", None), "iter_errors"):
            errors = osv.openapi_v31_spec_validator.iter_errors(spec)
        else:
            osv.validate_spec(spec)
            errors = []
        for error in errors:
            path = "/".join(str(part) for part in getattr(error, "path", []) or [])
            messages.append(shorten((f"at {path}: " if path else "") + getattr(error, "message", str(error))))
    except Exception as error:  # the validator stops at an unresolvable $ref
        ref = getattr(error, "ref", None)
        messages.append(f"unresolvable $ref {ref}" if ref else shorten(f"{type(error).__name__}: {error}"))
    return messages


def main(argv):
    parser = argparse.ArgumentParser(
        prog="check_openapi.py",
        description="Check recorded HTTP exchanges (JSON Lines) against an OpenAPI 3.1 document.",
    )
    parser.add_argument("spec", help="the OpenAPI document (YAML or JSON)")
    parser.add_argument("exchanges", help="the exchanges, one JSON object per line ('-': standard input)")
    parser.add_argument("--require-all", action="store_true",
                        help="fail when an operation (method and path) was never exercised")
    arguments = parser.parse_args(argv)
    try:
        spec = load_spec(arguments.spec)
        exchanges = load_exchanges(arguments.exchanges)
    except UnreadableInput as error:
        sys.stderr.write(f"check_openapi: {error}\n")
        return 2
    checker = Checker(spec)
    checker.check_document()
    for exchange in exchanges:
        try:
            checker.check_exchange(exchange)
        except Exception as error:  # a fault in the document must not hide the other exchanges
            checker.fail(f"{exchange_name(exchange)}: cannot check: {shorten(f'{type(error).__name__}: {error}')}")
    checker.check_coverage(arguments.require_all)
    print(f"checked {len(exchanges)} exchanges against {len(checker.operations)} operations: "
          f"{len(checker.failures)} failures")
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
