"""The general reader's rules added once issue 19's held-out half was folded in: each rule on
a small body made for the test (the real bodies are in tests/realworld_open/), and each
able to fail."""

from __future__ import annotations

import json

import pytest

import errconv


def read(body: object, status: int | None = None) -> errconv.Fault:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return errconv.decode(data, status=status) if status is not None else errconv.decode(data)


def test_an_error_page_title_states_its_status() -> None:
    page = b"<html>\n<head><title>504 Gateway Time-out</title></head>\n<body><h1>504 Gateway Time-out</h1></body>\n</html>\n"
    fault = read(page)
    assert (fault.status, str(fault.next_step)) == (504, "wait")
    assert fault.origin.body == "general" or fault.origin.dialect == "general"
    assert ("status", "the HTML page's title") in fault.origin.evidence


def test_an_error_page_whose_title_and_heading_disagree_is_not_read() -> None:
    page = b"<html>\n<head><title>404 Not Found</title></head>\n<body><h1>502 Bad Gateway</h1></body>\n</html>\n"
    with pytest.raises(errconv.DecodeError):
        read(page)


def test_a_page_that_only_mentions_a_status_is_not_an_error_page() -> None:
    page = b"<html>\n<head><title>Our status page</title></head>\n<body><p>404 Not Found pages fell by half</p></body>\n</html>\n"
    with pytest.raises(errconv.DecodeError):
        read(page)


@pytest.mark.parametrize("status", [200, 201, 204])
def test_an_error_inside_a_2xx_body_is_refused(status: int) -> None:
    with pytest.raises(errconv.DecodeError, match=f"not an error response: {status}"):
        read({"status": "0", "message": "NOTOK", "result": "Max rate limit reached"}, status)


def test_a_status_flag_is_no_code_and_a_shout_yields_to_prose() -> None:
    fault = read({"status": "0", "message": "NOTOK", "result": "Max calls per sec rate limit reached (5/sec)"})
    assert fault.code is None
    assert str(fault.next_step) == "wait"
    assert fault.detail.startswith("Max calls")


def test_an_integer_code_in_an_error_envelope_is_neither_stripe_nor_openai() -> None:
    body = {"error": {"message": "Rate limit exceeded", "type": "invalid_api_usage", "code": 429, "errors": [{"reason": "rate_limit_exceeded", "message": "Rate limit exceeded"}]}}
    assert errconv.detect(json.dumps(body).encode()) == "general"
    fault = read(body)
    # The reason names the error; the type only its family; the integer code is the status.
    assert (fault.status, fault.code, str(fault.next_step)) == (429, "rate_limit_exceeded", "wait")


def test_a_string_code_keeps_its_stripe_claim() -> None:
    body = {"error": {"type": "card_error", "code": "card_declined", "message": "Your card was declined."}}
    assert errconv.detect(json.dumps(body).encode()) == "stripe"


def test_a_record_reference_type_is_no_code() -> None:
    body = {"sys": {"type": "Error", "id": "NotFound"}, "message": "The resource could not be found.", "details": {"type": "Entry", "id": "1zquSqZeokECU2Wike2cQi"}}
    fault = read(body, 404)
    assert fault.code == "NotFound"
    assert fault.param is None  # {"type", "id"} is a reference, not a map of fields


def test_a_cap_on_a_count_of_things_gives_up_even_as_429() -> None:
    fault = read({"error": "Too Many Requests", "status": 429, "message": "maximum subscriptions with type and condition exceeded"}, 429)
    assert str(fault.next_step) == "give_up"
    # A request rate at 429 still waits.
    assert str(read({"error": "Too Many Requests", "status": 429, "message": "maximum requests per second exceeded"}, 429).next_step) == "wait"


def test_a_family_code_yields_to_a_message_that_says_more() -> None:
    fault = read({"id": "invalid_params", "error": "You've reached your app limit of 100 apps."}, 422)
    assert (fault.code, str(fault.next_step)) == ("invalid_params", "give_up")
    fault = read({"error": {"type": "OAuthException", "code": 190, "message": "Error validating access token: Session has expired."}}, 400)
    assert (fault.code, str(fault.next_step)) == ("190", "give_up")


def test_a_specific_code_keeps_its_move_beside_a_reason_phrase() -> None:
    fault = read({"reason": "INVALID_CSS", "message": "Forbidden", "explanation": "the stylesheet does not parse"}, 403)
    assert (fault.code, str(fault.next_step)) == ("INVALID_CSS", "fix_request")


def test_catch_all_words_at_403_leave_the_move_to_the_status() -> None:
    assert str(read({"status": 403, "errorCode": "901", "message": "Invalid Merchant Account"}).next_step) == "give_up"
    assert str(read({"status": 400, "errorCode": "901", "message": "Invalid Merchant Account"}).next_step) == "fix_request"


@pytest.mark.parametrize(
    ("message", "step"),
    [
        ("Field 'resolution' does not exist or you do not have permission to view it.", "fix_request"),
        ("The path you tried to reach is unknown route", "fix_request"),
        ("Audio captioning is already enabled", "give_up"),
        ("Mandate in invalid state", "give_up"),
        ("You should specify one of workspace, parent, projects", "fix_request"),
        ("The access token is invalid", "give_up"),
        ("maximum context length exceeded", "fix_request"),  # a size, not a count of things held
        ("maximum webhooks per account reached", "give_up"),
    ],
)
def test_message_words_decide_the_move(message: str, step: str) -> None:
    # (`{"errors": [{"message"}]}` alone is GraphQL's: a code of no meaning beside the message
    # keeps the body the general reader's.)
    fault = read({"errorCode": "E100", "message": message}, 409 if "already" in message else 400)
    assert fault.origin.body == "general" or fault.origin.dialect == "general"
    assert str(fault.next_step) == step


def test_a_list_of_fields_names_the_param() -> None:
    fault = read({"fields": ["title"], "explanation": "this is too long (max: 50)", "message": "Bad Request", "reason": "TOO_LONG"}, 400)
    assert (fault.param, fault.detail, fault.code) == ("title", "this is too long (max: 50)", "TOO_LONG")


# --------------------------------------------------------------------------- issue 28's fold-in
# (r2_heldout, r3_rules and r3_heldout): each rule on a small made-up body.


def general(fault: errconv.Fault) -> bool:
    return fault.origin.body == "general" or fault.origin.dialect == "general"  # type: ignore[union-attr]


def evidence(fault: errconv.Fault) -> dict[str, str]:
    return dict(fault.origin.evidence)  # type: ignore[union-attr]


def test_an_xml_error_written_as_child_elements_is_read() -> None:
    fault = read(b"<errors>\n  <error>\n    <code>4711</code>\n    <message>widget id is required.</message>\n  </error>\n</errors>\n")
    assert general(fault)
    assert (fault.code, str(fault.next_step), fault.detail) == ("4711", "fix_request", "widget id is required.")
    assert evidence(fault)["code"] == "the <code> element"


def test_xml_child_elements_in_namespaces_and_capitals_are_read() -> None:
    soap = (
        b'<?xml version="1.0"?><s:Envelope xmlns:s="urn:x"><s:Body><r:status isSuccess="false">'
        b"<r:code>NO_SUCH_WIDGET</r:code><r:message>That widget does not exist.</r:message></r:status></s:Body></s:Envelope>"
    )
    assert read(soap).code == "NO_SUCH_WIDGET"
    shout = b'<?xml version="1.0"?>\n<EXCEPTION class="x"><ERRORCODE>badtoken</ERRORCODE><MESSAGE>Invalid token</MESSAGE></EXCEPTION>\n'
    fault = read(shout)
    assert (fault.code, str(fault.next_step)) == ("badtoken", "give_up")


def test_an_ocs_status_of_failure_makes_its_statuscode_the_code() -> None:
    failed = b"<ocs><meta><status>failure</status><statuscode>102</statuscode><message>Bad request</message></meta><data/></ocs>"
    assert read(failed).code == "102"
    ok = b"<ocs><meta><status>ok</status><statuscode>100</statuscode><message>OK</message></meta><data/></ocs>"
    with pytest.raises(errconv.DecodeError):
        read(ok)  # a success has no error element and says ok: not an error body


def test_an_xml_message_in_cdata_is_read() -> None:
    fault = read(b"<shop><errors><error><message><![CDATA[ Internal error. See the logs. ]]></message></error></errors></shop>")
    assert fault.detail == "Internal error. See the logs."
    assert str(fault.next_step) == "give_up"


def test_an_xml_document_cut_short_is_not_read_by_its_children() -> None:
    with pytest.raises(errconv.DecodeError):
        read(b"<errors>\n<error>\n<code>1</code>\n<message>Invalid key</message>\n</error>\n")


def test_a_csv_error_with_code_and_message_columns_is_read() -> None:
    fault = read(b"code,message\nQX01,You have submitted an incorrect dataset code.\n")
    assert (fault.code, fault.detail) == ("QX01", "You have submitted an incorrect dataset code.")
    with pytest.raises(errconv.DecodeError):
        read(b"name,price\nwidget,3\n")  # a CSV of something else


def test_a_status_stated_as_status_code_in_prose_is_the_status() -> None:
    text = b"Responding with error, status code: 404 (Not Found).\nDetails: no such thing here.\n"
    assert read(text).status == 404
    assert read({"errors": [{"message": "Supply a better header.", "statusText": "Responding with error, status code: 406 (Not Acceptable)."}]}).status == 406
    assert read(b'<Fault><Error code="12"><Message>statusCode=403</Message><Detail>No.</Detail></Error></Fault>').status == 403


def test_a_text_whose_first_line_is_a_status_line_is_read() -> None:
    fault = read(b"409: Conflict\n\nYour request had an invalid session-id header.\n\nResend it with the X-Widget-Session-Id header.\n")
    assert (fault.status, fault.param) == (409, "X-Widget-Session-Id")
    assert read(b"404 UNKNOWN PLACE: Xyzzy\n").status == 404
    with pytest.raises(errconv.DecodeError):
        read(b"500 items were skipped\nall is well\n")  # a number, no status line


def test_an_html_page_titled_with_a_number_and_its_own_words_states_it_in_both() -> None:
    page = b"<!doctype html><html><head><title>503 Backend fetch failed</title></head><body><h1>Error 503 Backend fetch failed</h1></body></html>"
    assert (read(page).status, str(read(page).next_step)) == (503, "wait")
    lone = b"<!doctype html><html><head><title>503 Backend fetch failed</title></head><body><p>hello</p></body></html>"
    with pytest.raises(errconv.DecodeError):
        read(lone)  # the number in the title alone is not enough


def test_an_html_page_titled_with_a_reason_phrase_alone_has_that_status() -> None:
    page = b"<html><head><title>Unauthorized</title></head><body><h1>Unauthorized</h1>Please verify your <pre>key=</pre> parameter.</body></html>"
    fault = read(page)
    assert (fault.status, fault.param) == (401, "key")


def test_an_html_page_that_says_error_in_words_with_a_move_is_read() -> None:
    page = b"<html>\n<head><title>Response</title></head>\n<body>\n<p><strong>Error</strong>: the server is too busy to handle your request.</p>\n</body>\n</html>\n"
    assert str(read(page).next_step) == "wait"
    chatter = b"<html>\n<head><title>Blog</title></head>\n<body>\n<p>Error: a word we like.</p>\n</body>\n</html>\n"
    with pytest.raises(errconv.DecodeError):
        read(chatter)


@pytest.mark.parametrize(
    ("message", "status", "step"),
    [
        ("Server busy, please try again later.", 400, "wait"),
        ("Something broke. Please wait a moment and try your request again.", 500, "wait"),
        ("Access is denied. Retrying will not help.", 429, "give_up"),
    ],
)
def test_an_instruction_in_the_prose_outranks_a_code(message: str, status: int, step: str) -> None:
    fault = read({"errorCode": "ACCESS_DENIED" if step == "wait" else "RATE_LIMITED", "error": message}, status)
    assert str(fault.next_step) == step


def test_a_gone_endpoint_that_names_its_successor_is_fix_request() -> None:
    fault = read(b"This endpoint is deprecated. Please rely on the new API endpoints under /v2/.", 410)
    assert str(fault.next_step) == "fix_request"
    assert str(read(b"This endpoint is deprecated.", 410).next_step) == "give_up"


def test_text_in_brackets_is_not_json() -> None:
    fault = read(b"[ERROR 400] Invalid API key.", 400)
    assert (fault.status, str(fault.next_step)) == (400, "give_up")
    with pytest.raises(errconv.DecodeError, match="not valid JSON"):
        read(b"[true, 1", 400)  # a word JSON knows: JSON cut short, refused as before


@pytest.mark.parametrize(
    ("message", "seconds"),
    [
        ("rate limited, try again in 15.314237833 secs", 16),
        ("attempt 20 limit 10 - retry in 43074 millis", 44),
        ("Request limit reached. Please retry after one minute.", 60),
    ],
)
def test_prose_delays_in_more_spellings(message: str, seconds: int) -> None:
    assert read({"msg": message, "result": "error"}, 429).retry_after_seconds == seconds


def test_a_too_many_request_code_in_the_singular_is_a_rate_limit() -> None:
    assert str(read({"errorCode": "TooManyRequestError", "message": "slow"}, 400).next_step) == "wait"


def test_a_proxied_error_body_inside_a_string_is_read() -> None:
    inner = json.dumps({"errcode": "UPSTREAM_BUSY", "retry_after_ms": 2500})
    fault = read({"errcode": "OUTER", "error": inner}, 429)
    assert (fault.code, fault.retry_after_seconds) == ("OUTER", 3)


def test_member_spellings_for_status_code_and_message() -> None:
    assert read({"cod": 429, "message": "slow down"}).status == 429
    assert read({"error": {"message": "boom", "http-code": 500}}).status == 500
    assert read({"Code": "bad_request.thing", "Message": "Thing is not authorised", "Errors": [{"ErrorCode": "X.Y.Z"}]}).code == "bad_request.thing"
    naver = read({"message": "Authentication failed", "resultcode": "024"})
    assert (naver.code, str(naver.next_step)) == ("024", "give_up")
    assert read({"status_code": 7, "status_message": "Invalid page: pages start at 1."}).code == "7"
    assert read({"status": "The API key is invalid.", "status_code": "K0001"}).code == "K0001"


def test_a_zero_result_code_is_success_not_a_code() -> None:
    with pytest.raises(errconv.DecodeError):
        read({"message": "ok", "resultcode": "00"})


def test_failure_flags_and_self_named_error_values_make_an_error_body() -> None:
    omdb = read({"Response": "False", "Error": "Movie not found!"})
    assert (omdb.detail, str(omdb.next_step)) == ("Movie not found!", "give_up")
    assert read({"status": 0, "request": "ERROR_ZERO_BALANCE"}).code == "ERROR_ZERO_BALANCE"
    assert str(read({"status": 0, "request": "ERROR_ZERO_BALANCE"}).next_step) == "give_up"
    assert read({"meta": {"rc": "error", "msg": "Login refused: invalid credentials"}, "data": []}).detail.startswith("Login refused")
    assert read({"err": "Unable to proxy the request", "details": "page not found"}).status == 404
    assert str(read({"status": "not enough lines [table=t]"}).next_step) == "fix_request"


def test_a_list_of_one_failed_entry_is_an_error_body() -> None:
    body = {"data": [{"code": "INVALID_DATA", "details": {"expected_data_type": "jsonarray", "api_name": "Tags"}, "message": "invalid data", "status": "error"}]}
    fault = read(body)
    assert (fault.code, fault.param) == ("INVALID_DATA", "Tags")  # a map naming its field is no map of fields
    with pytest.raises(errconv.DecodeError):
        read({"data": [{"code": "SUCCESS", "message": "record added", "status": "success"}]})


def test_a_named_error_outranks_a_minus_one_flag() -> None:
    assert read({"status": "error", "code": -1, "name": "Invalid_Key", "message": "Invalid API key"}).code == "Invalid_Key"
    assert read({"status": "error", "code": -1, "message": "Timeout"}, 408).code == "-1"  # alone, -1 is the code


def test_a_field_entry_reason_yields_to_the_response_code() -> None:
    body = {"type": "invalid_arguments", "message": "invalid argument(s)", "details": [{"argument_name": "size", "reason": "required"}]}
    fault = read(body, 400)
    assert (fault.code, fault.param) == ("invalid_arguments", "size")


def test_a_nested_http_status_is_no_code_and_extended_payload_is_read() -> None:
    body = {"statusCode": 400, "errorType": "DEVICE_COMMUNICATION_ERROR", "message": "", "extendedPayload": {"httpStatusCode": "NotFound", "code": "404", "reason": "DEVICE_OFFLINE"}}
    fault = read(body)
    assert (fault.status, fault.code, str(fault.next_step)) == (400, "DEVICE_OFFLINE", "wait")


def test_an_extra_block_holds_the_delay() -> None:
    assert read({"error": "Too many requests", "error_extra": {"retry_after": 66}, "http_code": 429}).retry_after_seconds == 66


def test_a_quoted_name_outranks_an_unquoted_one_and_fluentvalidation_names_are_camel_case() -> None:
    assert read({"error": "Invalid 'key' field: invalid key format"}, 400).param == "key"
    body = [{"propertyName": "RootFolder.Path", "errorMessage": "Path is already configured", "attemptedValue": "x"}]
    assert read(body).param == "rootFolder.path"


def test_an_incident_id_is_no_code() -> None:
    assert read({"error_id": "66d2544e57004d5695fb93b9b3cd5524", "message": "internal error", "status": 500}).code is None


def test_a_bearer_challenge_code_says_where_it_came_from() -> None:
    response = b'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nWWW-Authenticate: Bearer error="invalid_token"\r\n\r\n{"error": "The access token is invalid"}'
    fault = errconv.decode(response)
    assert fault.code == "invalid_token"
    assert evidence(fault)["code"] == "header WWW-Authenticate"


def test_a_named_error_tag_outranks_a_numbered_code() -> None:
    assert read({"error": "Too many requests", "error_code": 35, "error_tag": "LIMITS_HIT", "http_code": 429}).code == "LIMITS_HIT"


def test_an_xml_symbol_element_is_the_code() -> None:
    fault = read(b"<?xml version=\"1.0\"?>\n<error>\n  <symbol>not_found</symbol>\n  <description>No such account</description>\n</error>\n")
    assert (fault.code, str(fault.next_step)) == ("not_found", "give_up")


def test_a_message_key_naming_an_error_is_the_code() -> None:
    assert read({"id": "api.context.permissions.app_error", "message": "No.", "status_code": 403}).code == "api.context.permissions.app_error"
    assert read({"meta": {"rc": "error", "msg": "api.err.Invalid"}, "data": []}).code == "api.err.Invalid"
    assert read({"id": "shop.orders.list", "message": "No.", "status_code": 403}).code is None  # a key naming no error


def test_the_one_member_wrapping_an_error_names_it() -> None:
    assert read({"itemNotFound": {"message": "Volume 1 could not be found.", "code": 404}}).code == "itemNotFound"
    assert read({"widget": {"message": "hello", "code": 404}}).code is None  # a name with no meaning


def test_a_status_code_that_is_no_http_status_is_the_code() -> None:
    assert read({"statusCode": 190, "message": "Too Many Requests", "body": {}}, 429).code == "190"


def test_hours_of_half_a_day_or_more_are_a_long_period() -> None:
    message = "Too many requests. Accounts are limited to 500 requests over a 24 hour period."
    assert str(read({"status": "error", "code": "rateLimited", "message": message}, 429).next_step) == "give_up"
    assert str(read({"status": "error", "code": "rateLimited", "message": "Limited to 5 requests per hour."}, 429).next_step) == "wait"


@pytest.mark.parametrize("message", ["No such column 'foo' on sobject of type Bar", "Provided external ID field does not exist or is not accessible: rid"])
def test_a_field_that_does_not_exist_is_a_request_to_fix(message: str) -> None:
    assert str(read([{"message": message, "errorCode": "NOT_FOUND"}], 404).next_step) == "fix_request"


# --------------------------------------------------------------------------- round 4 (r4_heldout)


def test_a_status_written_as_a_json_double_is_the_status() -> None:
    assert read({"error": 404.0, "status": "No objects found."}).status == 404
    assert read({"code": 503.0, "message": "Back soon"}).status == 503
    assert read({"code": 503.5, "message": "Back soon"}, 400).status == 400  # not a whole number: no status


def test_an_integer_error_member_is_the_status_and_a_token_the_code() -> None:
    fault = read({"error": 404, "status": "No objects found."})
    assert (fault.status, fault.code) == (404, None)
    assert read({"error": "not_found", "reason": "missing"}, 404).code == "not_found"


def test_the_only_member_a_list_of_error_entries_is_read() -> None:
    fault = read({"results": [{"code": 500, "errors": ["Attribute 'host_name': Attribute must not be empty."], "status": "Object could not be created."}]})
    assert (fault.status, fault.param) == (500, "host_name")
    with pytest.raises(errconv.DecodeError):
        read({"results": [{"name": "a", "status": "ok"}]})  # a list of records, not of errors


def test_an_errmsg_beside_a_not_ok_flag_is_an_error() -> None:
    fault = read({"stCode": 7001, "errMsg": "invalid session token", "stat": "Not_Ok"})
    assert (fault.code, str(fault.next_step)) == ("7001", "give_up")


def test_an_inactive_account_gives_up() -> None:
    assert str(read(b"Developer Inactive").next_step) == "give_up"
    assert str(read(b"Account is inactive", 400).next_step) == "give_up"


def test_please_retry_your_request_says_wait() -> None:
    assert str(read(b"An internal error has occurred. Please retry your request.", 500).next_step) == "wait"
    assert str(read(b"Invalid date. Please try again with a valid date.", 400).next_step) == "fix_request"


def test_an_xml_reason_element_is_the_message() -> None:
    body = b'<?xml version="1.0" encoding="UTF-8"?>\n<Error id="x1">\n  <reason>Service busy. Please retry your request.</reason>\n</Error>\n'
    fault = read(body)
    assert (fault.detail, str(fault.next_step)) == ("Service busy. Please retry your request.", "wait")


def test_a_page_of_several_lines_with_no_status_is_read_only_when_it_says_what_to_do() -> None:
    assert str(read(b"Oops.\n\nThe service is unavailable.\nPlease try again later.\n").next_step) == "wait"
    with pytest.raises(errconv.DecodeError):
        read(b"Hello.\n\nThis is a README.\n")


def test_a_charset_in_content_encoding_is_no_coding() -> None:
    response = b'HTTP/1.1 400 Bad Request\r\nContent-Encoding: UTF-8\r\nContent-Type: application/json\r\n\r\n{"message": "Invalid field"}'
    assert errconv.decode(response).status == 400
    with pytest.raises(errconv.DecodeError, match="not an error response: 201"):
        errconv.decode(b"HTTP/1.1 201 Created\r\nContent-Encoding: UTF-8\r\n\r\n{}")
    with pytest.raises(errconv.DecodeError, match="coding"):
        errconv.decode(b'HTTP/1.1 400 Bad Request\r\nContent-Encoding: br\r\n\r\n{"message": "x"}')


def test_two_fields_named_together_name_no_one_param() -> None:
    assert read({"error": True, "reason": "Parameter 'latitude' and 'longitude' must have the same number of elements"}).param is None
    assert read({"error": True, "reason": "Parameter 'latitude' must be a number"}).param == "latitude"


@pytest.mark.parametrize("body", [
    {"error": {"message": "Rate limit reached on tokens per minute. Please try again in 17.3s.", "type": "tokens", "code": "rate_limit_exceeded"}},
    {"error": {"message": "request reached max RPM: 3, please try again after 1 seconds", "type": "rate_limit_reached_error"}},
])  # fmt: skip
def test_an_envelope_wait_takes_its_delay_from_the_message(body: dict[str, object]) -> None:
    fault = read(body, 429)
    assert (str(fault.next_step), fault.retry_after_seconds is not None) == ("wait", True)
    assert fault.basis("retry_after_seconds").kind == "stated"


def test_a_code_of_camel_words_led_by_one_capital_is_not_redacted() -> None:
    from errconv._agent_text import redact

    assert redact("OAuthRateLimitException") == "OAuthRateLimitException"
    assert redact("OXq7vRtLmZpW2sKdJfHbNcYe") == "[redacted]"  # random, whatever its capitals


def test_a_key_naming_an_error_is_the_code_and_one_naming_a_field_the_param() -> None:
    fault = read({"error": {"key": "rate_limiting", "message": "Slow down", "hint": None}}, 429)
    assert (fault.code, fault.param) == ("rate_limiting", None)
    fault = read({"error": {"key": "postcode", "message": "must be five digits"}}, 400)
    assert (fault.code, fault.param) == (None, "postcode")


def test_an_error_objects_numbered_type_is_its_code() -> None:
    assert read([{"error": {"type": 7, "address": "/x", "description": "invalid value"}}]).code == "7"
    assert read({"type": 7, "message": "invalid value", "status": 400}).code is None  # not inside an error object


def test_a_cause_entrys_code_is_the_specific_one() -> None:
    body = {"message": "Invalid amount", "error": "bad_request", "status": 400, "cause": [{"code": 4020, "description": "Invalid amount", "data": None}]}
    assert read(body).code == "4020"


def test_an_xml_error_number_is_the_code_even_negative() -> None:
    body = b'<?xml version="1.0"?>\n<Response><Error><Number>-2147000001</Number><Description>Invalid City.</Description></Error></Response>'
    assert read(body).code == "-2147000001"


def test_an_invalid_state_code_is_a_field_not_a_records_state() -> None:
    assert str(read({"message": "Invalid State Code."}, 400).next_step) == "fix_request"
    assert str(read({"message": "Invalid state for this order."}, 400).next_step) == "give_up"


@pytest.mark.parametrize("message, param", [
    ("limit param out of bounds (1-1000)", "limit"),
    ("invalid institution_id provided", "institution_id"),
    ("invalid request provided", None),  # no field's form
])  # fmt: skip
def test_a_field_named_bare_in_prose(message: str, param: str | None) -> None:
    assert read({"error": 6, "message": message}).param == param


def test_a_member_whose_value_is_a_verdict_names_the_field() -> None:
    assert read({"user": "invalid", "errors": ["user identifier is not valid"], "status": 0}).param == "user"
    assert read({"result": "invalid", "errors": ["user identifier is not valid"], "status": 0}).param is None


def test_a_runtime_error_message_yields_to_the_description() -> None:
    fault = read({"code": "900800", "type": "Status report", "message": "Runtime Error", "description": "Message throttled out"})
    assert (str(fault.next_step), fault.detail) == ("wait", "Message throttled out")


@pytest.mark.parametrize("message, param", [
    ("Please specify a value for 'label'.", "label"),
    ("content-type: must be multipart/form-data", "content-type"),
    ("Bad Request - Invalid BusinessShortCode", "BusinessShortCode"),
    ("Bad Request - Invalid BusinessShortCode for this account type", None),  # not what the message ends on
    ("Invalid Request", None),
])  # fmt: skip
def test_more_fields_named_in_prose(message: str, param: str | None) -> None:
    assert read({"errorCode": "400.1", "errorMessage": message}).param == param


def test_an_exception_type_is_the_code() -> None:
    assert read({"exceptionType": "EntityNotFoundException", "httpStatusCode": 404, "message": "No such line"}).code == "EntityNotFoundException"


def test_an_oauth_problem_report_names_the_code() -> None:
    assert read(b"oauth_problem=token_rejected&debug=1", 401).code == "token_rejected"
    assert read(b"oauth_problem=nonce_used", 401).code == "nonce_used"


def test_a_small_integer_code_in_an_error_envelope_is_the_service_s_own() -> None:
    # Round 5 (issue 28): {"error": {"code": 10, "message": ...}} with no details is not
    # Google's (whose code is the HTTP status) nor APISIX's gRPC look-alike (which carries
    # details): the general reader keeps the code and reads the message.
    fault = read({"error": {"code": 10, "message": "Missing home_id"}})
    assert (fault.origin.dialect, fault.code, str(fault.next_step)) == ("general", "10", "fix_request")
    apisix = {"error": {"code": 14, "message": "unavailable", "details": [{"type_url": "type.googleapis.com/google.rpc.RetryInfo", "value": "\n\x02\x08<"}]}}
    assert read(apisix).origin.dialect == "google"


def test_an_http_status_in_an_envelope_beside_members_google_never_writes_is_read_by_its_words() -> None:
    # Keystone's 409: Google's reader would take the status alone (ABORTED: wait).
    fault = read({"error": {"message": "Conflict occurred attempting to store user - Duplicate Entry", "code": 409, "title": "Conflict"}})
    assert (fault.origin.dialect, fault.status, str(fault.next_step)) == ("general", 409, "fix_request")
    legacy = {"error": {"code": 400, "message": "m", "errors": [{"domain": "global", "reason": "invalid", "message": "m"}]}}
    assert read(legacy).origin.dialect == "google"


def test_a_string_path_is_a_rest_field_not_a_graphql_path() -> None:
    fault = read({"errors": [{"code": "NOT_UNIQUE", "message": "You're already a member. Please login", "path": "email", "arguments": ["email"]}]})
    assert (fault.origin.dialect, fault.code, fault.param) == ("general", "NOT_UNIQUE", "email")
    assert read({"errors": [{"message": "m", "path": ["user", 0]}]}).origin.dialect == "graphql"


@pytest.mark.parametrize("message", [
    "Bad API request, invalid api_dev_key",
    "application token is invalid",
    "Invalid session",
    "Invalid appid",
    "token invalid",
])  # fmt: skip
def test_a_credential_named_with_its_owner_is_no_field_to_mend(message: str) -> None:
    assert str(read({"message": message}, 400).next_step) == "give_up"


@pytest.mark.parametrize("message", ["primary key is invalid", "Your request had an invalid session-id header.", "invalid value for key"])
def test_a_key_that_is_no_credential_stays_a_request_to_mend(message: str) -> None:
    assert str(read({"message": message}, 400).next_step) == "fix_request"


@pytest.mark.parametrize("body, step", [
    ({"code": 10007, "msg": "bad symbol"}, "fix_request"),
    ({"s": "error", "code": -1031, "message": "recaptcha token is not provided"}, "fix_request"),
    ({"code": -1, "message": "API key not provided"}, "give_up"),
    ({"code": -1, "message": "bad gateway"}, "wait"),
])  # fmt: skip
def test_a_part_not_provided_or_a_bad_value_is_a_request_to_mend(body: dict[str, object], step: str) -> None:
    fault = read(body)
    assert (str(fault.next_step), fault.basis("next_step").kind) == (step, "inferred")


def test_please_try_again_after_a_refused_credential_is_no_wait() -> None:
    fault = read({"error": "Invalid login, please try again", "errorcode": "invalidlogin"}, 401)
    assert str(fault.next_step) == "give_up"
    assert str(read({"error": "Server busy, please try again", "errorcode": "busy"}, 400).next_step) == "wait"


@pytest.mark.parametrize("message, step", [
    ("The period 'period' is not supported. Try any of the following instead: day, week, month", "fix_request"),
    ("Field 'snapshot-dependencies' is not supported. Supported are: number, status", "fix_request"),
    ("Listing builds this deep is not supported. Please narrow your query using filters", "fix_request"),
    ("Referrers.getAll with multiple sites or dates is not supported (yet).", "give_up"),
])  # fmt: skip
def test_a_refusal_that_lists_what_is_taken_instead_is_a_request_to_mend(message: str, step: str) -> None:
    assert str(read({"message": message}, 400 if step == "fix_request" else 501).next_step) == step


@pytest.mark.parametrize("message, step", [
    ("Additional Reserved IPv4 addresses require technical justification.  Please contact support describing your requirement.", "give_up"),
    ("Something went wrong. Please try again later or contact support.", "wait"),
    ("You must be logged in to do this.", "give_up"),
])  # fmt: skip
def test_only_a_person_or_a_login_gets_the_call_through(message: str, step: str) -> None:
    assert str(read({"message": message}, 400).next_step) == step


# --------------------------------------------------------------------------- round 5's fold-in


def test_a_numbered_error_leaf_of_an_xml_document_says_it_failed() -> None:
    body = b'<?xml version="1.0"?><response><ec>5</ec><PaystationErrorCode>5</PaystationErrorCode><PaystationErrorMessage>Insufficient Funds</PaystationErrorMessage></response>'
    fault = read(body)
    assert (fault.code, str(fault.next_step), fault.detail) == ("5", "give_up", "Insufficient Funds")
    ok = b'<?xml version="1.0"?><response><PaystationErrorCode>0</PaystationErrorCode><PaystationErrorMessage>Transaction successful</PaystationErrorMessage></response>'
    with pytest.raises(errconv.DecodeError):
        read(ok)


def test_a_numbered_error_in_markup_over_several_lines_is_read() -> None:
    fault = read(b'<?xml version="1.0" standalone="yes"?>\n<FONT FACE="Arial"><strong>Error 11:</strong> Not enough input parameters.</FONT>\n')
    assert (fault.code, str(fault.next_step)) == ("11", "fix_request")


def test_an_answer_that_failed_inside_a_call_that_went_through() -> None:
    fault = read({"status": "success", "answer": {"status": "error", "errors": [{"error_code": "INVALID_DATA", "error_text": "Login length cannot be greater than 12 characters"}]}})
    assert (fault.code, str(fault.next_step), fault.detail) == ("INVALID_DATA", "fix_request", "Login length cannot be greater than 12 characters")


def test_a_reason_beside_field_errors_is_an_error() -> None:
    fault = read({"code": 100, "reason": "Validation Failed", "validationErrors": [{"field": "buyToken", "code": 1000, "reason": "buyToken and sellToken must be different"}]})
    assert (fault.code, str(fault.next_step)) == ("100", "fix_request")


def test_a_small_code_beside_another_status_is_the_service_s_own() -> None:
    # google.rpc.Status JSON from a gateway comes with the status its code maps to; DNSExit's
    # code 6 (ALREADY_EXISTS's number) at 400 is its own.
    fault = read({"code": 6, "message": "JSON Defined Record Type not Supported"}, 400)
    assert (fault.origin.dialect, fault.code, fault.grpc_code) == ("general", "6", errconv.Code.INVALID_ARGUMENT)
    assert read({"code": 6, "message": "exists"}, 409).origin.dialect == "status-json"


@pytest.mark.parametrize("body, step", [
    ({"code": -1, "msg": "Sorry,APPID  is invalid"}, "give_up"),
    ({"error": "Invalid account authorization"}, "give_up"),
    ({"result": "error", "error_code": "107", "error_msg": "Parameter value is wrong"}, "fix_request"),
    ({"result": "error", "error_code": "108", "error_msg": "Unknown CryptoCurrency"}, "fix_request"),
    ({"result": "error", "error_code": "1", "error_msg": "Unknown error"}, "give_up"),
    ({"Error Message": "Limit Reach . Please upgrade your plan or visit our documentation"}, "give_up"),
])  # fmt: skip
def test_round_five_words(body: dict[str, object], step: str) -> None:
    assert str(read(body).next_step) == step


def test_a_link_s_words_are_not_the_message_s() -> None:
    body = {"error": {"code": "ACCESS_LIMIT_REACHED", "description": "You've reached the access limit for this client. See https://www.yelp.com/developers/documentation/v3/rate_limiting"}}
    # Yelp's daily access limit: the link's "rate_limiting" made it a rate limit (wait).
    assert "rate limit" not in read(body, 429).origin.next_step


def test_exceeding_a_subscription_s_limitation_is_a_spent_quota() -> None:
    body = {"cod": 429, "message": "Your account is temporary blocked due to exceeding of requests limitation of your subscription type. Please choose the proper subscription"}
    assert str(read(body).next_step) == "give_up"


@pytest.mark.parametrize("message, step", [
    ("Invalid 'key' field: invalid key format", "fix_request"),
    ("Match error: Unknown key in field dasd", "fix_request"),
    ("Credit card token is invalid.", "fix_request"),
    ("Invalid key", "give_up"),
    ("token invalid", "give_up"),
])  # fmt: skip
def test_a_document_s_key_or_a_card_s_token_is_no_credential(message: str, step: str) -> None:
    assert str(read({"error": message}, 400).next_step) == step


@pytest.mark.parametrize("body, status, step", [
    ({"errors": ["Your request was flagged by our content moderation system, as a result your request was denied"], "name": "content_moderation"}, 403, "fix_request"),
    ({"message": "This User has multiple Organizations with permissions to create a Space. Please pass the X-Contentful-Organization header in which Organization to create the Space."}, 404, "fix_request"),
    ({"RemoteException": {"exception": "IllegalArgumentException", "message": 'Invalid value for webhdfs parameter "permission": ...'}}, 400, "fix_request"),
    ({"message": "Invalid parmater for the scope.", "error": "bad_request", "status": 400}, 400, "fix_request"),
    ({"message": "Permission denied"}, 400, "give_up"),
    ({"message": "The token lacks the required scope"}, 403, "give_up"),
])  # fmt: skip
def test_words_of_a_parameter_are_not_a_refusal_of_the_caller(body: dict[str, object], status: int, step: str) -> None:
    assert str(read(body, status).next_step) == step


@pytest.mark.parametrize("body, status, step", [
    ({"error": "You have already voted on this poll"}, 422, "give_up"),
    ({"message": "Agent is already paused"}, 422, "give_up"),
    ({"fault": {"faultstring": "Invalid ApiKey for given resource", "detail": {"errorcode": "oauth.v2.InvalidApiKeyForGivenResource"}}}, 401, "give_up"),
])  # fmt: skip
def test_more_already_done_and_a_qualified_key(body: dict[str, object], status: int, step: str) -> None:
    assert str(read(body, status).next_step) == step


@pytest.mark.parametrize("message", [
    "Failed to forward request to remote service.",
    "failed to connect to server [localhost:27020] on first connect [MongoError: connect ECONNREFUSED 127.0.0.1:27020]",
])  # fmt: skip
def test_a_connection_the_server_could_not_make_is_a_wait(message: str) -> None:
    assert str(read({"error": {"message": message, "code": 0}}).next_step) == "wait"


def test_one_request_at_a_time_is_a_wait() -> None:
    assert str(read({"message": "Only one request may be made against a session at a time", "code": "CUR_SESSION_DISALLWD"}).next_step) == "wait"


@pytest.mark.parametrize("message, param", [
    ("Missing home_id", "home_id"),
    ('missing required parameter "client"', "client"),
    ("missing api_key and user_id", None),
])  # fmt: skip
def test_a_field_named_by_its_lack(message: str, param: str | None) -> None:
    assert read({"error": {"code": 10, "message": message}}).param == param


# --------------------------------------------------------------------------- round 6's fold-in


@pytest.mark.parametrize("body, code, param, step", [
    ({"code": 2003, "desc": "Required parameter missing", "missing": ["domainname", "recordid"]}, "2003", "domainname", "fix_request"),
    ({"error_class": "LW::Exception::DuplicateRecord", "field": "domain", "full_message": "Duplicate record for 'domain: mytest.com': "}, "LW::Exception::DuplicateRecord", "domain", "fix_request"),
    ({"success": 0, "data": {"code": 20003}}, "20003", None, "give_up"),
    ({"count": 20, "startIndex": 0, "message": "Invalid attribute value.", "totalResults": 0, "results": []}, None, None, "fix_request"),
])  # fmt: skip
def test_round_six_shapes(body: dict[str, object], code: str | None, param: str | None, step: str) -> None:
    fault = read(body)
    assert (fault.code, fault.param, str(fault.next_step)) == (code, param, step)


def test_a_status_two_levels_down_under_a_header() -> None:
    fault = read({"message": {"header": {"status_code": 401, "execute_time": 0.002, "hint": "renew"}}})
    assert (fault.status, str(fault.next_step)) == (401, "give_up")


def test_an_array_of_capitalised_errors() -> None:
    fault = read([{"Error": "8", "Description": "Key daily limit exceeded", "Cause": "The daily limit on the key has been exceeded."}])
    assert (fault.code, str(fault.next_step)) == ("8", "give_up")


def test_a_list_of_messages_is_no_field() -> None:
    fault = read({"validationErrors": {"messages": ["Domain TTL is required and must be greater than or equal to 300"]}, "code": 400}, 400)
    assert (fault.param, str(fault.next_step)) == (None, "fix_request")
    assert read({"status": "fail", "data": {"title": "A title is required"}}, 400).param == "title"


@pytest.mark.parametrize("message, step", [
    ("Unknown error - Please try again after some time", "wait"),
    ("The API allows 25 requests per 1 minutes. Please wait some time and retry your request or contact support to extend your quota.", "wait"),
])  # fmt: skip
def test_more_ways_to_say_wait(message: str, step: str) -> None:
    assert str(read({"error": message}).next_step) == step


def test_cannot_load_more_than_n_is_a_request_to_mend() -> None:
    assert str(read(b"Cannot load more than 20 items").next_step) == "fix_request"


def test_an_instruction_in_a_known_dialect_s_message_outranks_the_status_ladder() -> None:
    # An OData-shaped body with no status: the ladder of an assumed 500 said give_up.
    body = {"error": {"code": "OVER_RATE_LIMIT", "message": "You have exceeded your rate limit. Try again later or contact us for assistance"}}
    fault = read(body)
    assert (fault.origin.dialect, str(fault.next_step)) == ("odata", "wait")
    # A conditional sentence is no instruction for this call.
    azure = {"error": {"code": "DeploymentNotFound", "message": "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."}}
    assert str(read(azure, 404).next_step) == "give_up"
