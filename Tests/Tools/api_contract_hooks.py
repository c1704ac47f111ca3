"""schemathesis hooks for Tests/Tools/api_contract.py (loaded through SCHEMATHESIS_HOOKS).

Seven disagreements are dropped, and only these:
- POST /register-apns without a body but with `device_token` or `apns_token` in the query string
  is accepted. That is the query form docs/openapi.yaml describes for that operation (the FastAPI
  handler it replaces reads both fields from the query string). OpenAPI cannot state it beside the
  JSON body: the document declares the body required (an optional one would make a request with
  neither body nor query valid), so schemathesis calls such a request invalid.
- GET (and HEAD) /gateway/ws, and / (the same socket), without the WebSocket handshake is answered
  426, as documented: the
  route's only success is the upgrade (101), a handshake schemathesis does not make (its headers
  and key cannot be stated as parameters that would make it one). Tests/EndToEndTests/
  GatewayWebSocketEndToEndTests.swift checks the socket with a WebSocket client instead.
- POST /v1/questions/{id}/answer for a question that exists (its id taken from an earlier answer)
  is answered 403, as documented: the answer token is a capability only the question's push
  carried, so no generated request holds one, valid or not. QuestionPhoneEndToEndTests answers
  with the real token instead.
- POST /v1/questions answered 502 because the question reached no device, as documented: the
  devices schemathesis registered have made-up tokens and no content keys (so `"encrypt": true`
  reaches none of them). Any other 5xx of the route still fails the run.
- POST /v1/questions with two choices of one id answered 400, as documented: JSON Schema cannot
  say that the members of an array's objects are unique.
- POST /v1/withdraw whose `id` is over 64 bytes in UTF-8 answered 400, as documented: the limit is
  APNs' on a collapse id, in bytes, and JSON Schema counts characters.
- Bark's path forms posted with a body whose `delete` is set but whose `id` is missing, answered
  200 when the query string gives a non-empty `id`, as documented: `id` may come from any source,
  and JSON Schema cannot make a body's member depend on a query parameter.
Everything else it finds fails the run.

One request is changed before it is sent: GET (and HEAD) /v1/questions/{id}?wait=S of a pending
question is held S seconds (up to 60), as documented, past the tester's response-time limit; a wait
over 1 is sent as 1, still a valid value. QuestionPhoneEndToEndTests waits for an answer for real.
"""

import schemathesis
from schemathesis.core import NOT_SET
from schemathesis.core.failures import AcceptedNegativeData, ServerError
from schemathesis.openapi.checks import RejectedPositiveData

QUERY_FORM_FIELDS = ("device_token", "apns_token")


def is_query_form(case):
    """A body-less POST /register-apns that carries the registration in its query string."""
    if case.method.upper() != "POST" or case.operation.path != "/register-apns":
        return False
    if case.body is not NOT_SET and case.body not in (None, b"", ""):
        return False
    return any(field in (case.query or {}) for field in QUERY_FORM_FIELDS)


def is_socket_without_handshake(case, response):
    """GET or HEAD /gateway/ws or / answered 426: a plain request to the WebSocket route."""
    return (
        case.method.upper() in ("GET", "HEAD")
        and case.operation.path in ("/gateway/ws", "/")
        and response.status_code == 426
    )


def is_answer_without_its_token(case, response):
    """POST /v1/questions/{id}/answer answered 403: the token is not the question's."""
    return (
        case.method.upper() == "POST"
        and case.operation.path == "/v1/questions/{id}/answer"
        and response.status_code == 403
    )


def is_question_that_reached_no_device(case, response):
    """POST /v1/questions answered 502 saying the question reached no device."""
    if case.method.upper() != "POST" or case.operation.path != "/v1/questions" or response.status_code != 502:
        return False
    try:
        return response.json().get("error", "").startswith("the question reached no device")
    except (ValueError, AttributeError):
        return False


def is_question_with_repeated_choice(case, response):
    """POST /v1/questions answered 400 whose choices repeat an id."""
    if case.method.upper() != "POST" or case.operation.path != "/v1/questions" or response.status_code != 400:
        return False
    choices = case.body.get("choices") if isinstance(case.body, dict) else None
    if not isinstance(choices, list):
        return False
    ids = [choice.get("id") for choice in choices if isinstance(choice, dict)]
    return len(ids) != len(set(ids))


def is_withdrawal_id_over_64_bytes(case, response):
    """POST /v1/withdraw answered 400 whose `id` is at most 64 characters but over 64 bytes."""
    if case.method.upper() != "POST" or case.operation.path != "/v1/withdraw" or response.status_code != 400:
        return False
    identifier = case.body.get("id") if isinstance(case.body, dict) else None
    return isinstance(identifier, str) and len(identifier.encode("utf-8", "surrogatepass")) > 64


BARK_PATH_FORMS = ("/{key}/{body}", "/{key}/{title}/{body}", "/{key}/{title}/{subtitle}/{body}")
BARK_DELETE_NONE = (None, False, 0, "", "0", "false")


def is_bark_delete_with_query_id(case, response):
    """A Bark path form's POST answered 200 whose body sets `delete` without `id`, the query giving `id`."""
    if case.method.upper() != "POST" or case.operation.path not in BARK_PATH_FORMS or response.status_code != 200:
        return False
    if not isinstance(case.body, dict) or "id" in case.body:
        return False
    deleting = case.body.get("delete") not in BARK_DELETE_NONE or isinstance(case.body.get("delete"), (list, dict))
    query_id = (case.query or {}).get("id")
    return deleting and isinstance(query_id, str) and query_id != ""


@schemathesis.hook
def before_call(context, case, kwargs):
    """A question's `?wait=S` over 1 second is sent as 1 (see the module's description)."""
    if case.operation.path != "/v1/questions/{id}" or case.method.upper() not in ("GET", "HEAD"):
        return
    wait = (case.query or {}).get("wait")
    if isinstance(wait, int) and not isinstance(wait, bool) and 1 < wait <= 60:
        case.query["wait"] = 1
    elif isinstance(wait, str) and wait.isascii() and wait.isdigit() and 1 < int(wait) <= 60:
        case.query["wait"] = "1"


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Keep every failure but the seven the module's description names."""
    if isinstance(failure, AcceptedNegativeData) and is_query_form(case) and response.status_code == 200:
        return False
    if isinstance(failure, (AcceptedNegativeData, RejectedPositiveData)) and is_answer_without_its_token(case, response):
        return False
    if isinstance(failure, ServerError) and is_question_that_reached_no_device(case, response):
        return False
    if isinstance(failure, RejectedPositiveData) and is_question_with_repeated_choice(case, response):
        return False
    if isinstance(failure, RejectedPositiveData) and is_withdrawal_id_over_64_bytes(case, response):
        return False
    if isinstance(failure, AcceptedNegativeData) and is_bark_delete_with_query_id(case, response):
        return False
    return not (isinstance(failure, RejectedPositiveData) and is_socket_without_handshake(case, response))
