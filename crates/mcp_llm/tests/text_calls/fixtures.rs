//! Model answers with tool calls written as text, one set per family, written from the
//! families' official chat templates (what the template renders for an assistant turn with
//! `tool_calls`, and what the model therefore writes). Each fixture has its expected complete
//! calls, the number of calls that must come back incomplete (never executed), the content and
//! the reasoning. Shared by the tests (`main.rs`) and the benchmark example.

#![allow(dead_code)]

use serde_json::{json, Value};

pub struct Case {
    pub family: &'static str,
    pub variant: &'static str,
    pub text: String,
    /// `stop` or `length`.
    pub finish: &'static str,
    /// The complete (executable) calls expected, in order: name and arguments.
    pub calls: Vec<(&'static str, Value)>,
    /// Calls expected back incomplete (cut off, malformed, unknown tool).
    pub incomplete: usize,
    pub content: Option<&'static str>,
    pub reasoning: Option<&'static str>,
}

/// The tools every fixture is parsed against (the request's `tools`).
pub fn tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
          "parameters": {"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer"}, "unit": {"type": "string", "enum": ["c", "f"]}},
            "required": ["city"]}}},
        {"type": "function", "function": {"name": "get_time", "description": "Time in a zone",
          "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}}},
        {"type": "function", "function": {"name": "search", "description": "Search documents",
          "parameters": {"type": "object", "properties": {
            "query": {"type": "string"}, "filters": {"type": "object"}, "limit": {"type": "integer"},
            "exact": {"type": "boolean"}, "zip": {"type": "string"}}}}},
        {"type": "function", "function": {"name": "noop", "description": "No arguments",
          "parameters": {"type": "object", "properties": {}}}}
    ])
}

fn case(
    family: &'static str,
    variant: &'static str,
    text: impl Into<String>,
    calls: Vec<(&'static str, Value)>,
    incomplete: usize,
    content: Option<&'static str>,
    reasoning: Option<&'static str>,
) -> Case {
    Case {
        family,
        variant,
        text: text.into(),
        finish: "stop",
        calls,
        incomplete,
        content,
        reasoning,
    }
}

/// An answer without calls or reasoning: its text comes back as it is.
fn untouched(family: &'static str, variant: &'static str, text: &'static str) -> Case {
    case(family, variant, text, vec![], 0, Some(text), None)
}

fn cut(mut c: Case) -> Case {
    c.finish = "length";
    c
}

fn paris() -> Value {
    json!({"city": "Paris"})
}

fn nested() -> Value {
    json!({"query": "Überstunden 残業 🚀", "filters": {"region": "Bayern", "tags": ["Tarif", "Metall"]}, "limit": 5, "exact": true})
}

pub fn all() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(hermes());
    v.extend(qwen3_coder());
    v.extend(glm());
    v.extend(deepseek());
    v.extend(kimi());
    v.extend(harmony());
    v.extend(gemma());
    v.extend(llama());
    v.extend(mistral());
    v.extend(cohere());
    v.extend(minimax());
    v.extend(step3());
    v.extend(plain());
    v
}

/// Hermes 2/3, Qwen2.5, Qwen3 (`<tool_call>` JSON, reasoning in `<think>`).
pub fn hermes() -> Vec<Case> {
    let f = "hermes";
    vec![
        case(f, "single", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", vec![("get_weather", paris())], 0, None, None),
        case(f, "parallel, prose before",
            "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\": \"CET\"}}\n</tool_call>",
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, Some("Let me check."), None),
        case(f, "qwen3 think then call",
            "<think>\nThe user wants the weather.\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            vec![("get_weather", paris())], 0, None, Some("The user wants the weather.")),
        case(f, "no call, think", "<think>\nsimple\n</think>\n\nIt is sunny.", vec![], 0, Some("It is sunny."), Some("simple")),
        case(f, "think opened in the prompt", "The user greets me.\n</think>\n\nHello!", vec![], 0, Some("Hello!"), Some("The user greets me.")),
        case(f, "nested unicode",
            format!("<tool_call>\n{{\"name\": \"search\", \"arguments\": {}}}\n</tool_call>", nested()),
            vec![("search", nested())], 0, None, None),
        case(f, "empty arguments", "<tool_call>\n{\"name\": \"noop\", \"arguments\": {}}\n</tool_call>", vec![("noop", json!({}))], 0, None, None),
        case(f, "marker inside an argument string",
            "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"what does </tool_call><tool_call> mean\"}}\n</tool_call>",
            vec![("search", json!({"query": "what does </tool_call><tool_call> mean"}))], 0, None, None),
        case(f, "marker inside reasoning",
            "<think>I could write <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}</tool_call> but no.</think>It is sunny.",
            vec![], 0, Some("It is sunny."), Some("I could write <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}</tool_call> but no.")),
        cut(case(f, "cut off", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par", vec![], 1, None, None)),
        cut(case(f, "cut off after a whole call",
            "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\": \"CET\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"ci",
            vec![("get_time", json!({"tz": "CET"}))], 1, None, None)),
        case(f, "malformed body", "<tool_call>\nnot json at all\n</tool_call>", vec![], 1, None, None),
        case(f, "unknown tool", "<tool_call>\n{\"name\": \"drop_database\", \"arguments\": {}}\n</tool_call>", vec![], 1, None, None),
        case(f, "arguments not an object", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": [\"Paris\"]}\n</tool_call>", vec![], 1, None, None),
    ]
}

/// Qwen3-Coder, Qwen3.5: XML parameters typed by the schema.
pub fn qwen3_coder() -> Vec<Case> {
    let f = "qwen3_coder";
    vec![
        case(f, "single, integer typed", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
            vec![("get_weather", json!({"city": "Paris", "days": 3}))], 0, None, None),
        case(f, "parallel",
            "I will look both up.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_time>\n<parameter=tz>\nCET\n</parameter>\n</function>\n</tool_call>",
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, Some("I will look both up."), None),
        untouched(f, "no call", "Paris is sunny today."),
        case(f, "nested unicode, object and boolean parsed",
            "<tool_call>\n<function=search>\n<parameter=query>\nÜberstunden 残業 🚀\n</parameter>\n<parameter=filters>\n{\"region\": \"Bayern\", \"tags\": [\"Tarif\", \"Metall\"]}\n</parameter>\n<parameter=limit>\n5\n</parameter>\n<parameter=exact>\nTrue\n</parameter>\n</function>\n</tool_call>",
            vec![("search", nested())], 0, None, None),
        case(f, "string schema keeps digits a string", "<tool_call>\n<function=search>\n<parameter=zip>\n01067\n</parameter>\n</function>\n</tool_call>",
            vec![("search", json!({"zip": "01067"}))], 0, None, None),
        case(f, "empty arguments", "<tool_call>\n<function=noop>\n</function>\n</tool_call>", vec![("noop", json!({}))], 0, None, None),
        case(f, "marker inside an argument value", "<tool_call>\n<function=search>\n<parameter=query>\nwhat is <tool_call> for\n</parameter>\n</function>\n</tool_call>",
            vec![("search", json!({"query": "what is <tool_call> for"}))], 0, None, None),
        case(f, "marker inside reasoning", "<think>maybe <tool_call>\n<function=noop>\n</function>\n</tool_call></think>No tool needed.",
            vec![], 0, Some("No tool needed."), Some("maybe <tool_call>\n<function=noop>\n</function>\n</tool_call>")),
        cut(case(f, "cut off", "<tool_call>\n<function=get_weather>\n<parameter=city>\nPar", vec![], 1, None, None)),
        case(f, "malformed: function never closed", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</tool_call>", vec![], 1, None, None),
        case(f, "without the tool_call wrapper", "<function=get_time>\n<parameter=tz>\nUTC\n</parameter>\n</function>", vec![("get_time", json!({"tz": "UTC"}))], 0, None, None),
        case(f, "unknown tool", "<tool_call>\n<function=rm_rf>\n</function>\n</tool_call>", vec![], 1, None, None),
    ]
}

/// GLM 4.5, 4.6 (newline form), 4.7 (compact form).
pub fn glm() -> Vec<Case> {
    let f = "glm";
    vec![
        case(f, "4.5 single", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
            vec![("get_weather", json!({"city": "Paris", "days": 3}))], 0, None, None),
        case(f, "4.7 compact", "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>", vec![("get_weather", paris())], 0, None, None),
        case(f, "parallel with think",
            "<think>Two lookups.</think>\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>\n<tool_call>get_time\n<arg_key>tz</arg_key>\n<arg_value>CET</arg_value>\n</tool_call>",
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, None, Some("Two lookups.")),
        case(f, "no call", "<think></think>\nIt is sunny.", vec![], 0, Some("It is sunny."), None),
        case(f, "nested unicode (non-strings as JSON)",
            "<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>Überstunden 残業 🚀</arg_value>\n<arg_key>filters</arg_key>\n<arg_value>{\"region\": \"Bayern\", \"tags\": [\"Tarif\", \"Metall\"]}</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>5</arg_value>\n<arg_key>exact</arg_key>\n<arg_value>true</arg_value>\n</tool_call>",
            vec![("search", nested())], 0, None, None),
        case(f, "empty arguments", "<tool_call>noop\n</tool_call>", vec![("noop", json!({}))], 0, None, None),
        case(f, "marker inside an argument value", "<tool_call>search<arg_key>query</arg_key><arg_value>the <tool_call> tag</arg_value></tool_call>",
            vec![("search", json!({"query": "the <tool_call> tag"}))], 0, None, None),
        case(f, "marker inside reasoning", "<think>call <tool_call>noop</tool_call>?</think>No.", vec![], 0, Some("No."), Some("call <tool_call>noop</tool_call>?")),
        cut(case(f, "cut off", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Pa", vec![], 1, None, None)),
        case(f, "malformed: value never closed", "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</tool_call>", vec![], 1, None, None),
    ]
}

/// DeepSeek V3 / R1 (fenced JSON), V3.1 (raw JSON), V3.2 (DSML).
pub fn deepseek() -> Vec<Case> {
    let f = "deepseek";
    let v3 = |name: &str, args: &str| {
        format!("<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}\n```<｜tool▁call▁end｜>")
    };
    let v31 = |name: &str, args: &str| format!("<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{args}<｜tool▁call▁end｜>");
    let wrap = |calls: String| format!("<｜tool▁calls▁begin｜>{calls}<｜tool▁calls▁end｜>");
    vec![
        case(f, "v3 single fenced", wrap(v3("get_weather", "{\"city\": \"Paris\"}")), vec![("get_weather", paris())], 0, None, None),
        case(f, "v3 parallel", wrap(format!("{}\n{}", v3("get_weather", "{\"city\": \"Paris\"}"), v3("get_time", "{\"tz\": \"CET\"}"))),
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, None, None),
        case(f, "r1 reasoning closed without opening", format!("The user wants weather.\n</think>\n\n{}", wrap(v3("get_weather", "{\"city\": \"Paris\"}"))),
            vec![("get_weather", paris())], 0, None, Some("The user wants weather.")),
        case(f, "v3.1 single raw", wrap(v31("get_weather", "{\"city\": \"Paris\"}")), vec![("get_weather", paris())], 0, None, None),
        case(f, "v3.1 parallel, prose before", format!("Checking.{}", wrap(format!("{}{}", v31("get_weather", "{\"city\": \"Paris\"}"), v31("get_time", "{\"tz\": \"CET\"}")))),
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, Some("Checking."), None),
        case(f, "v3.1 nested unicode", wrap(v31("search", &nested().to_string())), vec![("search", nested())], 0, None, None),
        case(f, "v3.1 empty arguments", wrap(v31("noop", "{}")), vec![("noop", json!({}))], 0, None, None),
        case(f, "v3.1 marker inside an argument string", wrap(v31("search", "{\"query\": \"<｜tool▁call▁end｜><｜tool▁calls▁end｜>\"}")),
            vec![("search", json!({"query": "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"}))], 0, None, None),
        case(f, "marker inside reasoning", format!("<think>{}</think>No call.", wrap(v31("noop", "{}"))), vec![], 0, Some("No call."), Some("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>noop<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>")),
        cut(case(f, "v3.1 cut off", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Pa", vec![], 1, None, None)),
        cut(case(f, "v3 cut off inside the fence", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}", vec![], 1, None, None)),
        case(f, "malformed: no separator", wrap("<｜tool▁call▁begin｜>get_weather {\"city\": \"Paris\"}<｜tool▁call▁end｜>".into()), vec![], 1, None, None),
        case(f, "v3.2 dsml single",
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">Paris</｜DSML｜parameter>\n<｜DSML｜parameter name=\"days\" string=\"false\">3</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
            vec![("get_weather", json!({"city": "Paris", "days": 3}))], 0, None, None),
        case(f, "v3.2 dsml parallel nested",
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"search\">\n<｜DSML｜parameter name=\"query\" string=\"true\">Überstunden 残業 🚀</｜DSML｜parameter>\n<｜DSML｜parameter name=\"filters\" string=\"false\">{\"region\": \"Bayern\", \"tags\": [\"Tarif\", \"Metall\"]}</｜DSML｜parameter>\n<｜DSML｜parameter name=\"limit\" string=\"false\">5</｜DSML｜parameter>\n<｜DSML｜parameter name=\"exact\" string=\"false\">true</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"noop\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
            vec![("search", nested()), ("noop", json!({}))], 0, None, None),
        case(f, "v4 dsml tool_calls wrapper, think",
            "<think>weather</think>\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
            vec![("get_weather", paris())], 0, None, Some("weather")),
        case(f, "v3.2 dsml marker inside a string value",
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"search\">\n<｜DSML｜parameter name=\"query\" string=\"true\">what is </｜DSML｜invoke></｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
            vec![("search", json!({"query": "what is </｜DSML｜invoke>"}))], 0, None, None),
        cut(case(f, "v3.2 dsml cut off", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">Par", vec![], 1, None, None)),
    ]
}

/// Kimi K2 (Instruct, Thinking).
pub fn kimi() -> Vec<Case> {
    let f = "kimi_k2";
    let call = |name: &str, i: u32, args: &str| {
        format!("<|tool_call_begin|>functions.{name}:{i}<|tool_call_argument_begin|>{args}<|tool_call_end|>")
    };
    let wrap = |calls: String| format!("<|tool_calls_section_begin|>{calls}<|tool_calls_section_end|>");
    vec![
        case(f, "single", wrap(call("get_weather", 0, "{\"city\": \"Paris\"}")), vec![("get_weather", paris())], 0, None, None),
        case(f, "parallel, prose before", format!("Sure.{}", wrap(format!("{}{}", call("get_weather", 0, "{\"city\": \"Paris\"}"), call("get_time", 1, "{\"tz\": \"CET\"}")))),
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, Some("Sure."), None),
        case(f, "thinking then call", format!("<think>need weather</think>{}", wrap(call("get_weather", 0, "{\"city\": \"Paris\"}"))), vec![("get_weather", paris())], 0, None, Some("need weather")),
        case(f, "nested unicode", wrap(call("search", 0, &nested().to_string())), vec![("search", nested())], 0, None, None),
        case(f, "empty arguments", wrap(call("noop", 0, "{}")), vec![("noop", json!({}))], 0, None, None),
        case(f, "marker inside an argument string", wrap(call("search", 0, "{\"query\": \"<|tool_call_end|><|tool_call_begin|>functions.noop:1\"}")),
            vec![("search", json!({"query": "<|tool_call_end|><|tool_call_begin|>functions.noop:1"}))], 0, None, None),
        case(f, "marker inside reasoning", format!("<think>{}</think>Done.", wrap(call("noop", 0, "{}"))), vec![], 0, Some("Done."),
            Some("<|tool_calls_section_begin|><|tool_call_begin|>functions.noop:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>")),
        cut(case(f, "cut off", "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Pa", vec![], 1, None, None)),
        case(f, "malformed: no argument marker", wrap("<|tool_call_begin|>functions.get_weather:0 {\"city\": \"Paris\"}<|tool_call_end|>".into()), vec![], 1, None, None),
        case(f, "unknown tool", wrap(call("shutdown", 0, "{}")), vec![], 1, None, None),
    ]
}

/// gpt-oss (Harmony): analysis = reasoning, commentary with a recipient = call, final = answer.
pub fn harmony() -> Vec<Case> {
    let f = "harmony";
    vec![
        case(f, "single, recipient after the channel",
            "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>",
            vec![("get_weather", paris())], 0, None, Some("Need the weather.")),
        case(f, "single, recipient in the role header",
            "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{\"city\":\"Paris\"}<|call|>",
            vec![("get_weather", paris())], 0, None, None),
        case(f, "call token stripped by the server",
            "<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{\"tz\":\"CET\"}",
            vec![("get_time", json!({"tz": "CET"}))], 0, None, None),
        case(f, "parallel",
            "<|channel|>analysis<|message|>Two.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|><|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{\"tz\":\"CET\"}<|call|>",
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, None, Some("Two.")),
        case(f, "no call: analysis and final",
            "<|channel|>analysis<|message|>Simple question.<|end|><|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>",
            vec![], 0, Some("It is sunny."), Some("Simple question.")),
        case(f, "nested unicode", format!("<|channel|>commentary to=functions.search <|constrain|>json<|message|>{}<|call|>", nested()), vec![("search", nested())], 0, None, None),
        case(f, "empty arguments", "<|channel|>commentary to=functions.noop <|constrain|>json<|message|>{}<|call|>", vec![("noop", json!({}))], 0, None, None),
        case(f, "marker inside an argument string",
            "<|channel|>commentary to=functions.search <|constrain|>json<|message|>{\"query\":\"<|call|><|start|>assistant to=functions.noop\"}<|call|>",
            vec![("search", json!({"query": "<|call|><|start|>assistant to=functions.noop"}))], 0, None, None),
        case(f, "marker inside reasoning",
            "<|channel|>analysis<|message|>I should not use to=functions.noop here.<|end|><|start|>assistant<|channel|>final<|message|>No tool.<|return|>",
            vec![], 0, Some("No tool."), Some("I should not use to=functions.noop here.")),
        cut(case(f, "cut off", "<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Pa", vec![], 1, None, Some("x"))),
        case(f, "malformed body", "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>city is Paris<|call|>", vec![], 1, None, None),
    ]
}

/// Gemma 4: `<|tool_call>call:NAME{…}<tool_call|>`, strings between `<|"|>`.
pub fn gemma() -> Vec<Case> {
    let f = "gemma4";
    vec![
        case(f, "single", "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>,days:3}<tool_call|>", vec![("get_weather", json!({"city": "Paris", "days": 3}))], 0, None, None),
        case(f, "parallel, prose before", "Checking.<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|><|tool_call>call:get_time{tz:<|\"|>CET<|\"|>}<tool_call|>",
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, Some("Checking."), None),
        untouched(f, "no call", "It is sunny in Paris."),
        case(f, "nested unicode",
            "<|tool_call>call:search{query:<|\"|>Überstunden 残業 🚀<|\"|>,filters:{region:<|\"|>Bayern<|\"|>,tags:[<|\"|>Tarif<|\"|>,<|\"|>Metall<|\"|>]},limit:5,exact:true}<tool_call|>",
            vec![("search", nested())], 0, None, None),
        case(f, "empty arguments", "<|tool_call>call:noop{}<tool_call|>", vec![("noop", json!({}))], 0, None, None),
        case(f, "thinking channel then call", "<|channel>thought\nThe weather tool.\n<channel|><|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|>",
            vec![("get_weather", paris())], 0, None, Some("The weather tool.")),
        case(f, "nested keys quoted", "<|tool_call>call:search{filters:{<|\"|>region<|\"|>:<|\"|>Bayern<|\"|>}}<tool_call|>",
            vec![("search", json!({"filters": {"region": "Bayern"}}))], 0, None, None),
        case(f, "marker inside an argument string", "<|tool_call>call:search{query:<|\"|>a <tool_call|> b, c:d}<|\"|>}<tool_call|>",
            vec![("search", json!({"query": "a <tool_call|> b, c:d}"}))], 0, None, None),
        case(f, "marker inside reasoning", "<think><|tool_call>call:noop{}<tool_call|></think>No.", vec![], 0, Some("No."), Some("<|tool_call>call:noop{}<tool_call|>")),
        cut(case(f, "cut off", "<|tool_call>call:get_weather{city:<|\"|>Par", vec![], 1, None, None)),
        case(f, "malformed body", "<|tool_call>call:get_weather{city <|\"|>Paris<|\"|>}<tool_call|>", vec![], 1, None, None),
    ]
}

/// Llama 3.1 `<|python_tag|>`, Llama 3 bare JSON, Llama 3.2 / 4 pythonic.
pub fn llama() -> Vec<Case> {
    let f = "llama";
    vec![
        case(f, "3.1 python_tag json", "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}<|eom_id|>", vec![("get_weather", paris())], 0, None, None),
        case(f, "3.1 python_tag parallel (;)", "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}; {\"name\": \"get_time\", \"parameters\": {\"tz\": \"CET\"}}",
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, None, None),
        case(f, "3.1 custom <function=NAME> (functionary v3.1)", "<function=get_weather>{\"city\": \"Paris\"}</function>", vec![("get_weather", paris())], 0, None, None),
        case(f, "3.1 built-in call, tool not offered", "<|python_tag|>brave_search.call(query=\"weather Paris\")<|eom_id|>", vec![], 1, None, None),
        case(f, "3 bare json", "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}", vec![("get_weather", paris())], 0, None, None),
        case(f, "3 bare json nested unicode", format!("{{\"name\": \"search\", \"parameters\": {}}}", nested()), vec![("search", nested())], 0, None, None),
        case(f, "3 bare json empty arguments", "{\"name\": \"noop\", \"parameters\": {}}", vec![("noop", json!({}))], 0, None, None),
        case(f, "3 bare json, unknown name: an answer", "{\"name\": \"Paris\", \"parameters\": {\"population\": 2100000}}", vec![], 0, Some("{\"name\": \"Paris\", \"parameters\": {\"population\": 2100000}}"), None),
        untouched(f, "3 json inside prose: an answer", "Use {\"name\": \"get_weather\", \"parameters\": {}} to call it."),
        case(f, "4 pythonic parallel", "[get_weather(city=\"Paris\"), get_time(tz='CET')]", vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, None, None),
        case(f, "4 pythonic nested unicode", "[search(query=\"Überstunden 残業 🚀\", filters={\"region\": \"Bayern\", \"tags\": [\"Tarif\", \"Metall\"]}, limit=5, exact=True)]", vec![("search", nested())], 0, None, None),
        case(f, "4 pythonic empty arguments", "[noop()]", vec![("noop", json!({}))], 0, None, None),
        case(f, "4 pythonic marker inside a string", "[search(query=\"[get_weather(city='x')]\")]", vec![("search", json!({"query": "[get_weather(city='x')]"}))], 0, None, None),
        case(f, "4 python_start wrapper", "<|python_start|>[get_weather(city=\"Paris\")]<|python_end|>", vec![("get_weather", paris())], 0, None, None),
        case(f, "4 pythonic unknown name: an answer", "[see_also(page=\"x\")]", vec![], 0, Some("[see_also(page=\"x\")]"), None),
        untouched(f, "markdown link is not a call", "[get_weather](https://example.com)"),
        cut(case(f, "python_tag cut off", "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Pa", vec![], 1, None, None)),
        case(f, "python_tag malformed", "<|python_tag|>get weather for Paris", vec![], 1, None, None),
    ]
}

/// Mistral v3 (JSON list), v11 (`NAME[ARGS]`), v13+ (`NAME[CALL_ID]id[ARGS]`), Magistral `[THINK]`.
pub fn mistral() -> Vec<Case> {
    let f = "mistral";
    vec![
        case(f, "v3 list", "[TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}, \"id\": \"abc123DEF\"}]", vec![("get_weather", paris())], 0, None, None),
        case(f, "v3 parallel", "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"get_time\", \"arguments\": {\"tz\": \"CET\"}}]",
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, None, None),
        case(f, "v11 single", "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}", vec![("get_weather", paris())], 0, None, None),
        case(f, "v11 parallel", "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}[TOOL_CALLS]get_time[ARGS]{\"tz\": \"CET\"}",
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, None, None),
        case(f, "v13 call id", "[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{\"city\": \"Paris\"}", vec![("get_weather", paris())], 0, None, None),
        case(f, "magistral think then call", "[THINK]Weather needed.[/THINK][TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}", vec![("get_weather", paris())], 0, None, Some("Weather needed.")),
        case(f, "no call, think", "[THINK]easy[/THINK]It is sunny.", vec![], 0, Some("It is sunny."), Some("easy")),
        case(f, "nested unicode", format!("[TOOL_CALLS]search[ARGS]{}", nested()), vec![("search", nested())], 0, None, None),
        case(f, "empty arguments", "[TOOL_CALLS]noop[ARGS]{}", vec![("noop", json!({}))], 0, None, None),
        case(f, "marker inside an argument string", "[TOOL_CALLS]search[ARGS]{\"query\": \"what is [TOOL_CALLS]x[ARGS]{}\"}",
            vec![("search", json!({"query": "what is [TOOL_CALLS]x[ARGS]{}"}))], 0, None, None),
        case(f, "marker inside reasoning", "[THINK]maybe [TOOL_CALLS]noop[ARGS]{}[/THINK]No.", vec![], 0, Some("No."), Some("maybe [TOOL_CALLS]noop[ARGS]{}")),
        cut(case(f, "cut off", "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Pa", vec![], 1, None, None)),
        case(f, "malformed: not json at all", "[TOOL_CALLS] not json at all", vec![], 1, None, None),
        case(f, "malformed: name with spaces", "[TOOL_CALLS]get the weather[ARGS]{}", vec![], 1, None, None),
    ]
}

/// Cohere Command R7B / Command A.
pub fn cohere() -> Vec<Case> {
    let f = "cohere";
    vec![
        case(f, "single with thinking",
            "<|START_THINKING|>I need the weather.<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n]<|END_ACTION|>",
            vec![("get_weather", paris())], 0, None, Some("I need the weather.")),
        case(f, "parallel", "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}},\n    {\"tool_call_id\": \"1\", \"tool_name\": \"get_time\", \"parameters\": {\"tz\": \"CET\"}}\n]<|END_ACTION|>",
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, None, None),
        case(f, "no call: response", "<|START_RESPONSE|>It is sunny.<|END_RESPONSE|>", vec![], 0, Some("It is sunny."), None),
        case(f, "nested unicode, empty", format!("<|START_ACTION|>[{{\"tool_call_id\": \"0\", \"tool_name\": \"search\", \"parameters\": {}}}, {{\"tool_call_id\": \"1\", \"tool_name\": \"noop\", \"parameters\": {{}}}}]<|END_ACTION|>", nested()),
            vec![("search", nested()), ("noop", json!({}))], 0, None, None),
        case(f, "marker inside an argument string", "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"search\", \"parameters\": {\"query\": \"<|END_ACTION|>\"}}]<|END_ACTION|>",
            vec![("search", json!({"query": "<|END_ACTION|>"}))], 0, None, None),
        case(f, "marker inside reasoning", "<|START_THINKING|><|START_ACTION|>[]<|END_ACTION|><|END_THINKING|><|START_RESPONSE|>No.<|END_RESPONSE|>", vec![], 0, Some("No."), Some("<|START_ACTION|>[]<|END_ACTION|>")),
        case(f, "command r+ Action fence", "I will search.\nAction:\n```json\n[\n    {\n        \"tool_name\": \"get_weather\",\n        \"parameters\": {\"city\": \"Paris\"}\n    }\n]\n```",
            vec![("get_weather", paris())], 0, Some("I will search."), None),
        case(f, "command r+ directly-answer is no call", "Action:\n```json\n[\n    {\n        \"tool_name\": \"directly-answer\",\n        \"parameters\": {}\n    }\n]\n```", vec![], 0, None, None),
        cut(case(f, "cut off", "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Pa", vec![], 1, None, None)),
    ]
}

/// MiniMax-M2 (`<minimax:tool_call>` XML), MiniMax-M1 (`<tool_calls>` JSON lines).
pub fn minimax() -> Vec<Case> {
    let f = "minimax";
    vec![
        case(f, "m2 single with think", "<think>weather</think>\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n</invoke>\n</minimax:tool_call>",
            vec![("get_weather", json!({"city": "Paris", "days": 3}))], 0, None, Some("weather")),
        case(f, "m2 parallel", "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n<invoke name=\"get_time\">\n<parameter name=\"tz\">CET</parameter>\n</invoke>\n</minimax:tool_call>",
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, None, None),
        case(f, "m2 nested unicode", "<minimax:tool_call>\n<invoke name=\"search\">\n<parameter name=\"query\">Überstunden 残業 🚀</parameter>\n<parameter name=\"filters\">{\"region\": \"Bayern\", \"tags\": [\"Tarif\", \"Metall\"]}</parameter>\n<parameter name=\"limit\">5</parameter>\n<parameter name=\"exact\">true</parameter>\n</invoke>\n</minimax:tool_call>",
            vec![("search", nested())], 0, None, None),
        case(f, "m2 empty arguments", "<minimax:tool_call>\n<invoke name=\"noop\">\n</invoke>\n</minimax:tool_call>", vec![("noop", json!({}))], 0, None, None),
        cut(case(f, "m2 cut off", "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Pa", vec![], 1, None, None)),
        case(f, "m1 json lines", "<tool_calls>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n{\"name\": \"get_time\", \"arguments\": {\"tz\": \"CET\"}}\n</tool_calls>",
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, None, None),
        case(f, "m1 marker inside an argument string", "<tool_calls>\n{\"name\": \"search\", \"arguments\": {\"query\": \"</tool_calls>\"}}\n</tool_calls>",
            vec![("search", json!({"query": "</tool_calls>"}))], 0, None, None),
    ]
}

/// Step-3: `<｜tool_calls_begin｜>` around `<steptml:invoke>` XML.
pub fn step3() -> Vec<Case> {
    let f = "step3";
    let call = |inv: &str| format!("<｜tool_call_begin｜>function<｜tool_sep｜>{inv}<｜tool_call_end｜>");
    let wrap = |c: String| format!("<｜tool_calls_begin｜>{c}<｜tool_calls_end｜>");
    vec![
        case(f, "single", wrap(call("<steptml:invoke name=\"get_weather\"><steptml:parameter name=\"city\">Paris</steptml:parameter><steptml:parameter name=\"days\">3</steptml:parameter></steptml:invoke>")),
            vec![("get_weather", json!({"city": "Paris", "days": 3}))], 0, None, None),
        case(f, "parallel", wrap(format!("{}{}", call("<steptml:invoke name=\"get_weather\"><steptml:parameter name=\"city\">Paris</steptml:parameter></steptml:invoke>"),
            call("<steptml:invoke name=\"get_time\"><steptml:parameter name=\"tz\">CET</steptml:parameter></steptml:invoke>"))),
            vec![("get_weather", paris()), ("get_time", json!({"tz": "CET"}))], 0, None, None),
        case(f, "empty arguments", wrap(call("<steptml:invoke name=\"noop\"></steptml:invoke>")), vec![("noop", json!({}))], 0, None, None),
        cut(case(f, "cut off", "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_weather\"><steptml:parameter name=\"city\">Pa", vec![], 1, None, None)),
    ]
}

/// Answers without markup: untouched.
pub fn plain() -> Vec<Case> {
    let f = "plain";
    vec![
        untouched(f, "prose", "Bayern hat drei Tarifverträge für die Metallindustrie."),
        untouched(
            f,
            "prose with brackets and tags",
            "Use `<b>` for bold [1] and a list [a, b].",
        ),
        untouched(f, "a JSON answer", "{\"answer\": 42}"),
    ]
}
