use mcp_audit::Scrubber;
use mcp_llm::*;

fn ne(provider: &str, status: u16, body: &str) -> ProviderError {
    normalize_error(provider, Some(status), body, None)
}

#[test]
fn openai_invalid_key_is_auth_and_scrubbed() {
    let body = r#"{
    "error": {
        "message": "Incorrect API key provided: sk-proj-AbC1****************************************************************HvAA. You can find your API key at https://platform.openai.com/account/api-keys.",
        "type": "invalid_request_error",
        "param": null,
        "code": "invalid_api_key"
    }
}"#;
    let e = ne("openai", 401, body);
    assert_eq!(e.kind, ErrorKind::Auth);
    assert_eq!(e.http_status, Some(401));
    assert_eq!(e.code.as_deref(), Some("invalid_api_key"));
    assert!(!e.message.contains("sk-"), "{}", e.message);
    assert!(!e.message.contains("HvAA"), "{}", e.message);
    assert!(
        e.message.starts_with("Incorrect API key provided: [redacted]"),
        "{}",
        e.message
    );
    assert!(!e.retryable());
}

#[test]
fn openai_rate_limit_with_retry_in_message() {
    let body = r#"{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc123 on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 1.4s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#;
    let e = ne("openai", 429, body);
    assert_eq!(e.kind, ErrorKind::RateLimited);
    assert_eq!(e.retry_after_s, Some(1.4));
    assert!(e.retryable());
    assert!(e.message.contains("Rate limit reached for gpt-4o"));
    // the header wins over the message
    let e = normalize_error("openai", Some(429), body, Some("20"));
    assert_eq!(e.retry_after_s, Some(20.0));
    // retry-after-ms wins over retry-after
    let e = normalize_error_with_headers(
        "openai",
        Some(429),
        body,
        &[("Retry-After", "20"), ("retry-after-ms", "1500")],
    );
    assert_eq!(e.retry_after_s, Some(1.5));
}

#[test]
fn openai_insufficient_quota_is_not_retryable() {
    let body = r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#;
    let e = ne("openai", 429, body);
    assert_eq!(e.kind, ErrorKind::RateLimited);
    assert!(!e.retryable());
}

#[test]
fn openai_context_length() {
    let body = r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
    let e = ne("openai", 400, body);
    assert_eq!(e.kind, ErrorKind::ContextLength);
    assert!(!e.retryable());
}

#[test]
fn openai_bad_request_and_server_error() {
    let e = ne(
        "openai",
        400,
        r#"{"error":{"message":"Invalid value for 'tool_choice': 'maybe'.","type":"invalid_request_error","param":"tool_choice","code":null}}"#,
    );
    assert_eq!(e.kind, ErrorKind::BadRequest);
    let e = ne(
        "openai",
        500,
        r#"{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}"#,
    );
    assert_eq!(e.kind, ErrorKind::Server);
    assert!(e.retryable());
}

#[test]
fn http_200_with_error_object() {
    let body = r#"{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}"#;
    let e = ne("openai", 200, body);
    assert_eq!(e.kind, ErrorKind::Server);
    let r = parse_llm_response(body);
    assert_eq!(r.finish_reason, FinishReason::Error);
    assert_eq!(r.error.as_ref().unwrap().kind, ErrorKind::Server);
    assert!(!r.has_tools());
}

#[test]
fn azure_content_filter() {
    let body = r#"{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":false,"severity":"safe"},"jailbreak":{"filtered":true,"detected":true},"self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":false,"severity":"safe"},"violence":{"filtered":false,"severity":"safe"}}}}}"#;
    let e = ne("azure", 400, body);
    assert_eq!(e.kind, ErrorKind::ContentFilter);
    assert_eq!(e.code.as_deref(), Some("content_filter"));
    assert!(!e.retryable());
}

#[test]
fn azure_openai_rate_limit_retry_after_seconds_in_message() {
    let body = r#"{"error":{"code":"429","message": "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-15-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."}}"#;
    let e = ne("azure", 429, body);
    assert_eq!(e.kind, ErrorKind::RateLimited);
    assert_eq!(e.retry_after_s, Some(6.0));
    assert!(e.message.contains("exceeded token rate limit"), "{}", e.message);
}

#[test]
fn azure_openai_invalid_subscription_key() {
    let body = r#"{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}}"#;
    let e = ne("azure", 401, body);
    assert_eq!(e.kind, ErrorKind::Auth);
    assert!(
        e.message.starts_with("Access denied due to invalid subscription key"),
        "{}",
        e.message
    );
}

#[test]
fn azure_api_management() {
    let e = ne(
        "azure",
        429,
        r#"{ "statusCode": 429, "message": "Rate limit is exceeded. Try again in 10 seconds." }"#,
    );
    assert_eq!(e.kind, ErrorKind::RateLimited);
    assert_eq!(e.retry_after_s, Some(10.0));
    assert_eq!(e.message, "Rate limit is exceeded. Try again in 10 seconds.");
    let e = ne(
        "azure",
        401,
        r#"{ "statusCode": 401, "message": "Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API." }"#,
    );
    assert_eq!(e.kind, ErrorKind::Auth);
    // APIM error with an HTTP 200 (misconfigured policy) still classifies by its statusCode
    let r =
        parse_llm_response(r#"{ "statusCode": 429, "message": "Rate limit is exceeded. Try again in 3 seconds." }"#);
    assert_eq!(r.finish_reason, FinishReason::Error);
    let e = r.error.unwrap();
    assert_eq!(e.kind, ErrorKind::RateLimited);
    assert_eq!(e.retry_after_s, Some(3.0));
}

#[test]
fn mistral_errors() {
    let e = ne(
        "mistral",
        400,
        r#"{"object":"error","message":"Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length","type":"invalid_request_error","param":null,"code":null}"#,
    );
    assert_eq!(e.kind, ErrorKind::ContextLength);
    let e = ne("mistral", 401, r#"{"detail":"Unauthorized"}"#);
    assert_eq!(e.kind, ErrorKind::Auth);
    assert_eq!(e.message, "Unauthorized");
    let e = ne(
        "mistral",
        422,
        r#"{"detail":[{"type":"missing","loc":["body","messages"],"msg":"Field required","input":{"model":"mistral-small-latest"}}]}"#,
    );
    assert_eq!(e.kind, ErrorKind::BadRequest);
    assert_eq!(e.message, "body.messages: Field required");
    let e = ne("mistral", 429, r#"{"message":"Requests rate limit exceeded"}"#);
    assert_eq!(e.kind, ErrorKind::RateLimited);
    assert!(e.retryable());
}

#[test]
fn anthropic_errors() {
    let e = ne(
        "anthropic",
        529,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}"#,
    );
    assert_eq!(e.kind, ErrorKind::Server);
    assert_eq!(e.code.as_deref(), Some("overloaded_error"));
    assert!(e.retryable());
    let e = ne(
        "anthropic",
        429,
        r#"{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."}}"#,
    );
    assert_eq!(e.kind, ErrorKind::RateLimited);
    let e = ne(
        "anthropic",
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    );
    assert_eq!(e.kind, ErrorKind::Auth);
    let e = ne(
        "anthropic",
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}"#,
    );
    assert_eq!(e.kind, ErrorKind::ContextLength);
    let e = ne(
        "anthropic",
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0.tool_use.input: Input should be a valid dictionary"}}"#,
    );
    assert_eq!(e.kind, ErrorKind::BadRequest);
    let e = ne(
        "anthropic",
        500,
        r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#,
    );
    assert_eq!(e.kind, ErrorKind::Server);
    // the same body as an HTTP 200 (or inside parse_llm_response)
    let r = parse_llm_response(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
    assert_eq!(r.finish_reason, FinishReason::Error);
    assert_eq!(r.error.as_ref().unwrap().kind, ErrorKind::Server);
}

#[test]
fn ollama_and_vllm_errors() {
    let e = ne(
        "ollama",
        404,
        r#"{"error":"model \"llama3\" not found, try pulling it first"}"#,
    );
    assert_eq!(e.kind, ErrorKind::BadRequest);
    assert_eq!(e.message, "model \"llama3\" not found, try pulling it first");
    let e = ne(
        "vllm",
        400,
        r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#,
    );
    assert_eq!(e.kind, ErrorKind::ContextLength);
}

#[test]
fn html_error_pages() {
    let nginx = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
    let e = ne("openai", 502, nginx);
    assert_eq!(e.kind, ErrorKind::Server);
    assert_eq!(e.message, "502 Bad Gateway");
    assert!(e.retryable());
    let cf = r#"<!DOCTYPE html><html lang="en-US"><head><title>api.openai.com | 524: A timeout occurred</title><meta charset="UTF-8" /></head><body><h1>A timeout occurred</h1></body></html>"#;
    let e = ne("openai", 524, cf);
    assert_eq!(e.kind, ErrorKind::Timeout);
    assert_eq!(e.message, "api.openai.com | 524: A timeout occurred");
    let e = ne(
        "azure",
        403,
        "<!DOCTYPE html><html><body><h1>403 Forbidden &amp; blocked</h1></body></html>",
    );
    assert_eq!(e.kind, ErrorKind::Auth);
    assert_eq!(e.message, "403 Forbidden & blocked");
    // an HTML page as a 200 body handed to the response parser
    let r = parse_llm_response(nginx);
    assert_eq!(r.finish_reason, FinishReason::Error);
    assert_eq!(r.error.as_ref().unwrap().kind, ErrorKind::InvalidResponse);
    assert_eq!(r.error.as_ref().unwrap().message, "502 Bad Gateway");
}

#[test]
fn empty_bodies_and_transport_failures() {
    let e = ne("openai", 503, "");
    assert_eq!(e.kind, ErrorKind::Server);
    assert_eq!(e.message, "HTTP 503 Service Unavailable with empty body");
    let e = ne("openai", 429, "   ");
    assert_eq!(e.kind, ErrorKind::RateLimited);
    let e = ne("openai", 408, "");
    assert_eq!(e.kind, ErrorKind::Timeout);
    let e = normalize_error("openai", None, "operation timed out after 30000 ms", None);
    assert_eq!(e.kind, ErrorKind::Timeout);
    assert_eq!(e.http_status, None);
    let e = normalize_error("openai", None, "connection refused (os error 111)", None);
    assert_eq!(e.kind, ErrorKind::Network);
    assert!(e.retryable());
    let e = normalize_error("openai", None, "", None);
    assert_eq!(e.kind, ErrorKind::Network);
    let r = parse_llm_response("");
    assert_eq!(r.finish_reason, FinishReason::Error);
    assert_eq!(r.error.unwrap().kind, ErrorKind::InvalidResponse);
}

#[test]
fn plain_text_error_and_unrecognized_success() {
    let e = ne(
        "openai",
        500,
        "upstream connect error or disconnect/reset before headers. reset reason: overflow",
    );
    assert_eq!(e.kind, ErrorKind::Server);
    let e = ne("openai", 200, r#"{"foo":"bar"}"#);
    assert_eq!(e.kind, ErrorKind::InvalidResponse);
}

#[test]
fn retry_after_header_forms() {
    // The one Retry-After reader (mcp_http::retry_after), as the normalization uses it.
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    let secs = |v: &str, now: SystemTime| mcp_http::retry_after(&[("retry-after", v)], now).map(|d| d.as_secs_f64());
    let at = |unix: u64| UNIX_EPOCH + Duration::from_secs(unix);
    let now = SystemTime::now();
    assert_eq!(secs("30", now), Some(30.0));
    assert_eq!(secs(" 1.5 ", now), Some(1.5));
    assert_eq!(secs("-3", now), None);
    assert_eq!(secs("soon", now), None);
    // Wed, 21 Oct 2015 07:28:00 GMT = 1445412480
    assert_eq!(secs("Wed, 21 Oct 2015 07:28:00 GMT", at(1_445_412_450)), Some(30.0));
    assert_eq!(secs("Wednesday, 21-Oct-15 07:28:00 GMT", at(1_445_412_470)), Some(10.0));
    assert_eq!(secs("Wed, 21 Oct 2015 07:28:00 GMT", at(1_500_000_000)), Some(0.0));
    assert!(secs("Mon, 01 Jan 2024 00:00:00 GMT", now).is_some());
    // through the normalization: a header value in seconds
    let e = normalize_error("openai", Some(429), "{}", Some("7"));
    assert_eq!(e.retry_after_s, Some(7.0));
    assert_eq!(
        retry_after_from_headers(&[
            ("x-ratelimit-reset-requests", "6m0s"),
            ("x-ratelimit-reset-tokens", "20ms")
        ]),
        Some(360.0)
    );
    assert_eq!(retry_after_from_headers(&[("RETRY-AFTER-MS", "250")]), Some(0.25));
    assert_eq!(retry_after_from_headers(&[]), None);
    // absurd dates do not overflow
    assert_eq!(secs("Wed, 21 Oct 99999999999999 07:28:00 GMT", now), None);
    let _ = secs("Wed, 21 Oct 2015 -1:28:00 GMT", now);
    assert_eq!(secs("Wed, 21 Oct 2015 99:28:00 GMT", now), None);
    let _ = retry_after_from_headers(&[("x-ratelimit-reset-requests", "1e999s")]);
}

#[test]
fn secrets_are_scrubbed() {
    let cases = [
        "Incorrect API key provided: sk-abc123XYZ7890abcdefghijklmnopqrstuvwxyz0123.",
        "bad key sk-ant-api03-R2D2C3PO-abcdefghijklmnopqrstuvwxyz0123456789_-ABCDEFG",
        "header was Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "request failed with api_key=0123456789abcdef0123456789abcdef",
        "invalid subscription key 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6'",
        "api-key: Zx9Qw8Er7Ty6Ui5Op4As3Df2",
        "key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY leaked",
    ];
    let secrets = [
        "sk-abc123",
        "sk-ant",
        "eyJhbGci",
        "0123456789abcdef0123",
        "a1b2c3d4e5f6",
        "Zx9Qw8Er7Ty6",
        "AIzaSyD",
    ];
    for (c, s) in cases.iter().zip(secrets) {
        let out = Scrubber::default().scrub_message(c);
        assert!(!out.contains(s), "{c:?} -> {out:?}");
        assert!(out.contains("[redacted]"), "{c:?} -> {out:?}");
    }
    // ordinary prose is left alone
    for ok in [
        "Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29500.",
        "exceeded token rate limit of your current OpenAI S0 pricing tier",
        "Access denied due to missing subscription key. Make sure to include subscription key",
        "The model `gpt-4o-2024-08-06` does not exist or you do not have access to it.",
    ] {
        assert_eq!(Scrubber::default().scrub_message(ok), ok);
    }
    // and through normalize_error, in any body kind
    let e = ne(
        "mistral",
        401,
        r#"{"detail":"Invalid token: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0"}"#,
    );
    assert!(!e.message.contains("9f8e7d6c"), "{}", e.message);
}

#[test]
fn messages_are_capped() {
    let long = format!(
        r#"{{"error":{{"message":"{}","type":"server_error"}}}}"#,
        "x ".repeat(3000)
    );
    let e = ne("openai", 500, &long);
    assert!(
        e.message.chars().count() <= MAX_MESSAGE_CHARS + 1,
        "{}",
        e.message.len()
    );
    assert!(e.message.ends_with('…'));
}

#[test]
fn error_json_shape() {
    let e = ne(
        "anthropic",
        529,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    );
    let v = e.to_json();
    assert_eq!(v["kind"], "server");
    assert_eq!(v["provider"], "anthropic");
    assert_eq!(v["http_status"], 529);
    assert_eq!(v["message"], "Overloaded");
    assert!(v["retry_after_s"].is_null());
}

#[test]
fn never_panics_on_odd_bodies() {
    let bodies = [
        "{",
        "[",
        "null",
        "[]",
        "[{}]",
        "\"str\"",
        "42",
        "{\"error\":null}",
        "{\"error\":{}}",
        "{\"error\":[1,2]}",
        "{\"statusCode\":\"abc\"}",
        "{\"statusCode\":99999999999}",
        "{\"detail\":[{}]}",
        "<html",
        "<title>",
        "<title></title>",
        "\u{0}\u{1}",
        "ÿÿÿ",
        "{\"error\":{\"code\":70000,\"message\":5}}",
    ];
    for b in bodies {
        for s in [None, Some(200), Some(400), Some(429), Some(500), Some(999)] {
            let _ = normalize_error("x", s, b, Some("Thu, 99 Foo 20x 25:61:61 GMT"));
        }
        let _ = parse_llm_response(b);
    }
}
