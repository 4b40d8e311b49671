//! Tool calls written as text (issue 23): every family's fixtures through the chat path
//! (`parse_chat_response_with_tools`, what `mcp.chat` and `mcp.parse_llm_response(raw, tools)`
//! share), the safety properties, and the pre-check.

mod fixtures;

use fixtures::Case;
use mcp_llm::*;
use proptest::prelude::*;
use serde_json::{json, Value};

fn tools() -> Vec<ToolDef> {
    fixtures::tools()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(ToolDef::from_value)
        .collect()
}

fn body(content: &str, finish: &str) -> String {
    json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "open-model",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}]})
    .to_string()
}

/// What is wrong with the parse of one fixture (empty when it passes).
fn check(c: &Case, tools: &[ToolDef]) -> Vec<String> {
    let r = parse_chat_response_with_tools(&body(&c.text, c.finish), Some(tools));
    let mut bad = Vec::new();
    let complete: Vec<(String, Value)> = r
        .complete_tool_calls()
        .into_iter()
        .map(|t| (t.name, t.arguments))
        .collect();
    let want: Vec<(String, Value)> = c.calls.iter().map(|(n, a)| (n.to_string(), a.clone())).collect();
    if complete != want {
        bad.push(format!("complete calls {complete:?}, want {want:?}"));
    }
    let n_incomplete = r.incomplete_tool_calls().count();
    if n_incomplete != c.incomplete {
        bad.push(format!(
            "{n_incomplete} incomplete calls, want {}: {:?}",
            c.incomplete,
            r.incomplete_tool_calls().map(|c| c.error.clone()).collect::<Vec<_>>()
        ));
    }
    for ic in r.incomplete_tool_calls() {
        if ic.arguments.is_some() || ic.error.is_none() {
            bad.push(format!("incomplete call with arguments or without a reason: {ic:?}"));
        }
    }
    let want_content = c.content;
    if r.content.as_deref() != want_content {
        bad.push(format!("content {:?}, want {want_content:?}", r.content));
    }
    if r.reasoning.as_deref() != c.reasoning {
        bad.push(format!("reasoning {:?}, want {:?}", r.reasoning, c.reasoning));
    }
    // A cut-off answer never becomes an executable call; finish_reason stays `length`.
    if c.finish == "length" && r.finish_reason != FinishReason::Length {
        bad.push(format!("finish_reason {:?} for a cut-off answer", r.finish_reason));
    }
    if !c.calls.is_empty() && c.finish == "stop" && r.finish_reason != FinishReason::ToolCalls {
        bad.push(format!("finish_reason {:?}, want tool_calls", r.finish_reason));
    }
    let ids: std::collections::HashSet<&str> = r.tool_calls.iter().map(|c| c.id.as_str()).collect();
    if ids.len() != r.tool_calls.len() || ids.contains("") {
        bad.push("tool-call ids not unique".into());
    }
    bad
}

fn run_family(cases: Vec<Case>) {
    let tools = tools();
    let mut failures = Vec::new();
    for c in &cases {
        let bad = check(c, &tools);
        if !bad.is_empty() {
            failures.push(format!("{} / {}:\n    {}", c.family, c.variant, bad.join("\n    ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn hermes_qwen() {
    run_family(fixtures::hermes());
}

#[test]
fn qwen3_coder_xml() {
    run_family(fixtures::qwen3_coder());
}

#[test]
fn glm_4_5_to_4_7() {
    run_family(fixtures::glm());
}

#[test]
fn deepseek_v3_v3_1_v3_2() {
    run_family(fixtures::deepseek());
}

#[test]
fn kimi_k2() {
    run_family(fixtures::kimi());
}

#[test]
fn gpt_oss_harmony() {
    run_family(fixtures::harmony());
}

#[test]
fn gemma_4() {
    run_family(fixtures::gemma());
}

#[test]
fn llama_3_and_4() {
    run_family(fixtures::llama());
}

#[test]
fn mistral_v3_v11_v13() {
    run_family(fixtures::mistral());
}

#[test]
fn cohere_command() {
    run_family(fixtures::cohere());
}

#[test]
fn minimax_m1_m2() {
    run_family(fixtures::minimax());
}

#[test]
fn step_3() {
    run_family(fixtures::step3());
}

#[test]
fn plain_answers_untouched() {
    run_family(fixtures::plain());
}

/// Every fixture, cut anywhere (and reported as `length`): no call made from a prefix is
/// executable unless that same call is whole in the full text with the same arguments.
#[test]
fn every_prefix_of_every_fixture_is_safe() {
    let tools = tools();
    for c in fixtures::all() {
        let full = parse_chat_response_with_tools(&body(&c.text, "stop"), Some(&tools));
        let whole: Vec<ToolCall> = full.complete_tool_calls();
        for end in (0..c.text.len()).filter(|&e| c.text.is_char_boundary(e)) {
            let r = parse_chat_response_with_tools(&body(&c.text[..end], "length"), Some(&tools));
            for call in r.complete_tool_calls() {
                assert!(
                    whole
                        .iter()
                        .any(|w| w.name == call.name && w.arguments == call.arguments),
                    "{} / {} cut at {end}: {call:?} is not a call of the whole text",
                    c.family,
                    c.variant
                );
                assert!(tools.iter().any(|t| t.name == call.name));
            }
        }
    }
}

/// Without the request's tools (`mcp.parse_llm_response(raw)`): the marked families still
/// parse; the marker-less forms (bare JSON, pythonic) are not taken for calls.
#[test]
fn without_tools_marked_formats_parse_and_bare_forms_do_not() {
    let r = parse_chat_response(&body("<|tool_calls_section_begin|><|tool_call_begin|>functions.anything:0<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|><|tool_calls_section_end|>", "stop"));
    assert_eq!(r.complete_tool_calls()[0].name, "anything");
    assert_eq!(r.tool_calls[0].id, "functions.anything:0");
    let bare = "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}";
    let r = parse_chat_response(&body(bare, "stop"));
    assert!(!r.has_tools());
    assert_eq!(r.content.as_deref(), Some(bare));
    let r = parse_chat_response(&body("[get_weather(city=\"Paris\")]", "stop"));
    assert!(!r.has_tools());
}

#[test]
fn issue_example_tool_calls_not_json_is_never_complete() {
    for tools in [None, Some(tools())] {
        let r = parse_chat_response_with_tools(&body("[TOOL_CALLS] not json at all", "stop"), tools.as_deref());
        assert_eq!(r.tool_calls.len(), 1);
        assert!(!r.tool_calls[0].complete);
        assert!(r.complete_tool_calls().is_empty());
        assert_ne!(r.tool_calls[0].name, "not json at all");
        assert_ne!(r.finish_reason, FinishReason::ToolCalls);
    }
}

#[test]
fn unknown_tool_is_answered_with_the_offered_names() {
    let r = parse_chat_response_with_tools(
        &body(
            "<tool_call>{\"name\": \"drop_database\", \"arguments\": {}}</tool_call>",
            "stop",
        ),
        Some(&tools()),
    );
    let e = r.tool_calls[0].error.as_deref().unwrap();
    assert!(e.contains("drop_database") && e.contains("get_weather"), "{e}");
}

#[test]
fn native_tool_calls_win_and_reasoning_is_still_split() {
    let raw = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
        "content": "<think>use the tool</think>On it.",
        "tool_calls": [{"id": "n1", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]}}]})
    .to_string();
    let r = parse_chat_response_with_tools(&raw, Some(&tools()));
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(r.tool_calls[0].id, "n1");
    assert_eq!(r.content.as_deref(), Some("On it."));
    assert_eq!(r.reasoning.as_deref(), Some("use the tool"));
}

#[test]
fn provider_reasoning_content_is_kept() {
    let raw = json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
        "content": "42", "reasoning_content": "6 times 7"}}]})
    .to_string();
    let r = parse_chat_response(&raw);
    assert_eq!(r.reasoning.as_deref(), Some("6 times 7"));
    assert_eq!(r.content.as_deref(), Some("42"));
    assert_eq!(r.to_json()["reasoning"], "6 times 7");
}

#[test]
fn reasoning_is_never_the_assistant_message() {
    let r = parse_chat_response_with_tools(&body("<think>secret plan</think>Hello.", "stop"), Some(&tools()));
    assert_eq!(r.to_assistant_message().content.as_deref(), Some("Hello."));
}

#[test]
fn unclosed_reasoning_is_all_reasoning() {
    let r = parse_chat_response_with_tools(
        &body("<think>still thinking about <tool_call>{\"name\": \"noop\"", "length"),
        Some(&tools()),
    );
    assert!(!r.has_tools());
    assert_eq!(r.content, None);
    assert!(r.reasoning.unwrap().starts_with("still thinking"));
}

#[test]
fn qwen3_coder_value_not_fitting_its_schema_stays_a_string_for_validation() {
    let r = parse_chat_response_with_tools(
        &body("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\nthree\n</parameter>\n</function>\n</tool_call>", "stop"),
        Some(&tools()),
    );
    // Complete as a call; the validation step (mcp_tools) rejects "three" for an integer.
    assert_eq!(
        r.complete_tool_calls()[0].arguments,
        json!({"city": "Paris", "days": "three"})
    );
}

#[test]
fn deep_nesting_in_text_formats_is_malformed_not_a_crash() {
    let t = tools();
    let deep_py = format!("[search(filters={}{})]", "[".repeat(5000), "]".repeat(5000));
    let deep_gemma = format!(
        "<|tool_call>call:search{{a:{}{}}}<tool_call|>",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    let deep_json = format!(
        "<tool_call>{{\"name\": \"search\", \"arguments\": {}{}}}</tool_call>",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    for text in [deep_py, deep_gemma, deep_json] {
        let r = parse_chat_response_with_tools(&body(&text, "stop"), Some(&t));
        assert!(r.complete_tool_calls().is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// Properties

/// Pieces of the markup of every family, glued at random with random text.
fn piece() -> impl Strategy<Value = String> {
    let markers: Vec<&'static str> = vec![
        "<tool_call>",
        "</tool_call>",
        "<function=",
        "</function>",
        "<parameter=",
        "</parameter>",
        "<arg_key>",
        "</arg_key>",
        "<arg_value>",
        "</arg_value>",
        "<｜tool▁calls▁begin｜>",
        "<｜tool▁call▁begin｜>",
        "<｜tool▁sep｜>",
        "<｜tool▁call▁end｜>",
        "<｜tool▁calls▁end｜>",
        "function",
        "```json\n",
        "```",
        "<｜DSML｜function_calls>",
        "<｜DSML｜invoke name=\"",
        "<｜DSML｜parameter name=\"",
        "</｜DSML｜invoke>",
        "<|tool_calls_section_begin|>",
        "<|tool_call_begin|>",
        "functions.",
        ":0",
        "<|tool_call_argument_begin|>",
        "<|tool_call_end|>",
        "<|start|>assistant",
        " to=functions.",
        "<|channel|>",
        "analysis",
        "commentary",
        "final",
        "<|constrain|>json",
        "<|message|>",
        "<|call|>",
        "<|end|>",
        "<|return|>",
        "<|tool_call>",
        "call:",
        "<tool_call|>",
        "<|\"|>",
        "<|python_tag|>",
        "<|python_start|>",
        "<|python_end|>",
        "[TOOL_CALLS]",
        "[ARGS]",
        "[CALL_ID]",
        "[THINK]",
        "[/THINK]",
        "<think>",
        "</think>",
        "<|START_ACTION|>",
        "<|END_ACTION|>",
        "<minimax:tool_call>",
        "<invoke name=\"",
        "</invoke>",
        "<tool_calls>",
        "<steptml:invoke name=\"",
        "{",
        "}",
        "[",
        "]",
        "(",
        ")",
        "\"",
        ":",
        ",",
        "=",
        "\n",
        "name",
        "arguments",
        "parameters",
        "{\"name\": \"",
        "\", \"arguments\": {",
        "city",
        "Paris",
    ];
    prop_oneof![
        3 => proptest::sample::select(markers).prop_map(String::from),
        1 => "[a-z_]{1,12}",
        1 => ".{0,8}",
    ]
}

/// Names that are never offered.
fn unknown_name() -> impl Strategy<Value = String> {
    "[a-z_]{1,10}".prop_filter("not offered", |n| {
        !["get_weather", "get_time", "search", "noop"].contains(&n.as_str())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    /// Random markup: whatever comes out as complete names an offered tool and has an object.
    #[test]
    fn random_markup_never_yields_a_foreign_or_argumentless_call(parts in proptest::collection::vec(piece(), 0..40), cut in any::<bool>()) {
        let text: String = parts.concat();
        let t = tools();
        let r = parse_chat_response_with_tools(&body(&text, if cut { "length" } else { "stop" }), Some(&t));
        for c in r.complete_tool_calls() {
            prop_assert!(t.iter().any(|x| x.name == c.name), "{c:?} from {text:?}");
            prop_assert!(c.arguments.is_object());
        }
        for c in &r.tool_calls {
            prop_assert!(c.complete || c.arguments.is_none());
        }
    }

    /// Every family's call shape around a name that is not offered: never executable.
    #[test]
    fn unknown_names_are_never_executable(name in unknown_name(), args in "[a-z\" {}:,]{0,20}") {
        let t = tools();
        let shapes = [
            format!("<tool_call>{{\"name\": \"{name}\", \"arguments\": {{}}}}</tool_call>"),
            format!("<tool_call>\n<function={name}>\n</function>\n</tool_call>"),
            format!("<tool_call>{name}<arg_key>a</arg_key><arg_value>{args}</arg_value></tool_call>"),
            format!("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{{}}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
            format!("<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0<|tool_call_argument_begin|>{{}}<|tool_call_end|>"),
            format!("<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{{}}<|call|>"),
            format!("<|tool_call>call:{name}{{}}<tool_call|>"),
            format!("{{\"name\": \"{name}\", \"parameters\": {{}}}}"),
            format!("[{name}()]"),
            format!("[TOOL_CALLS]{name}[ARGS]{{}}"),
            format!("[TOOL_CALLS]{name}[CALL_ID]abc[ARGS]{{}}"),
            format!("<|START_ACTION|>[{{\"tool_name\": \"{name}\", \"parameters\": {{}}}}]<|END_ACTION|>"),
            format!("<minimax:tool_call><invoke name=\"{name}\"></invoke></minimax:tool_call>"),
            format!("<|python_tag|>{{\"name\": \"{name}\", \"parameters\": {{}}}}"),
        ];
        for s in shapes {
            let r = parse_chat_response_with_tools(&body(&s, "stop"), Some(&t));
            prop_assert!(r.complete_tool_calls().is_empty(), "{s}");
        }
    }

    /// Text without any marker character is returned as it is (U+0000 aside: PostgreSQL
    /// cannot store it, it becomes U+FFFD everywhere).
    #[test]
    fn prose_is_untouched(text in "[^<\\[{\\x00]{1,200}") {
        let r = parse_chat_response_with_tools(&body(&text, "stop"), Some(&tools()));
        prop_assert!(!r.has_tools());
        prop_assert_eq!(r.reasoning, None);
        prop_assert_eq!(r.content.as_deref(), Some(text.as_str()));
    }
}

#[test]
fn extract_text_calls_reports_the_family() {
    let t = tools();
    let cases = [
        (
            "<tool_call>{\"name\": \"noop\", \"arguments\": {}}</tool_call>",
            "tool_call",
        ),
        ("<|tool_call>call:noop{}<tool_call|>", "gemma4"),
        ("[TOOL_CALLS]noop[ARGS]{}", "mistral"),
        ("<|channel|>commentary to=functions.noop <|message|>{}", "harmony"),
        ("[noop()]", "pythonic"),
    ];
    for (text, fam) in cases {
        let found = extract_text_calls(text, Some(&t), false).unwrap();
        assert_eq!(found.format, Some(fam), "{text}");
        assert!(found.calls[0].complete, "{text}");
    }
    assert!(extract_text_calls("Just an answer.", Some(&t), false).is_none());
}

/// Inputs of about 1 MB built to make a per-call rescan of the rest quadratic (many calls each
/// missing an optional end marker, many unclosed values): each parses in linear time. Found by
/// the fuzz target (a Kimi K2 section of 12,000 calls without a section end took minutes).
#[test]
fn adversarial_megabyte_inputs_parse_in_linear_time() {
    let t = tools();
    let inputs = [
        "<|tool_call_begin|>functions.noop:0<|tool_call_argument_begin|>{}<|tool_call_end|>".repeat(12_000),
        "<|tool_call_begin|>functions.noop:0".repeat(30_000),
        "<|start|>assistant<|channel|>analysis<|message|>x<|end|>".repeat(18_000),
        "<|channel|>commentary to=functions.noop <|message|>{}".repeat(18_000),
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>noop\n```json\n{}\n```".repeat(15_000),
        "<｜tool▁call▁begin｜>noop".repeat(40_000),
        "[TOOL_CALLS]noop".repeat(60_000),
        "<tool_call>{</tool_call>".repeat(40_000),
        format!(
            "<tool_call><function=search>{}</function></tool_call>",
            "<parameter=q>v".repeat(70_000)
        ),
        format!(
            "<minimax:tool_call><invoke name=\"search\">{}</invoke>",
            "x<parameter name=\"q\">v</parameter>".repeat(25_000)
        ),
        "<tool_call>noop<arg_key>a</arg_key>".repeat(30_000),
        "<".repeat(1_000_000),
    ];
    for text in inputs {
        let t0 = std::time::Instant::now();
        let r = parse_chat_response_with_tools(&body(&text, "stop"), Some(&t));
        let took = t0.elapsed();
        assert!(
            took < std::time::Duration::from_secs(20),
            "{:?}… took {took:?}",
            &text[..40]
        );
        let _ = r.to_json();
    }
}

/// A marker that is the whole of an inline code span is prose naming it: the answer stays as
/// written, with no call and no incomplete call; a real call after such a mention still counts.
#[test]
fn a_marker_quoted_as_inline_code_is_prose() {
    let tools = tools();
    for text in [
        "Hermes-Modelle beginnen Aufrufe mit `<tool_call>`; hier ist keiner nötig.",
        "Mistral beginnt Aufrufe mit `[TOOL_CALLS]`, hier brauche ich keinen.",
        "DeepSeek starts its calls with `<｜tool▁calls▁begin｜>`.",
        "<|START_RESPONSE|>Aufrufe stehen nach `<|START_ACTION|>`.<|END_RESPONSE|>",
    ] {
        let r = parse_chat_response_with_tools(&body(text, "stop"), Some(&tools));
        assert!(r.tool_calls.is_empty(), "{text}: {:?}", r.tool_calls);
        let want = text.replace("<|START_RESPONSE|>", "").replace("<|END_RESPONSE|>", "");
        assert_eq!(r.content.as_deref(), Some(want.as_str()), "{text}");
    }
    let text = "Das Format ist `<tool_call>`.\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Köln\"}}</tool_call>";
    let r = parse_chat_response_with_tools(&body(text, "stop"), Some(&tools));
    let calls: Vec<_> = r
        .complete_tool_calls()
        .into_iter()
        .map(|c| (c.name, c.arguments))
        .collect();
    assert_eq!(calls, vec![("get_weather".to_string(), json!({"city": "Köln"}))]);
    assert_eq!(r.content.as_deref(), Some("Das Format ist `<tool_call>`."));
}
