use mcp_llm::*;
use serde_json::json;
use std::time::Instant;

/// Deterministic counter for the pruning rules: one token per whitespace-separated word.
struct Words;
impl CountTokens for Words {
    fn count_text(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }
}

fn big(n: usize, word: &str) -> String {
    vec![word; n].join(" ")
}

/// system, question, three tool turns with large results.
fn agent_history() -> Vec<Message> {
    let mut m = vec![
        Message::system("You are a tariff assistant."),
        Message::user("Which tariffs apply in Bavaria?"),
    ];
    for (i, name) in ["search", "details", "compare"].iter().enumerate() {
        let id = format!("call_{i}");
        m.push(Message::assistant_tool_calls(
            None,
            vec![ToolCall::new(id.clone(), *name, json!({"q": i}))],
        ));
        m.push(Message::tool_result(id, *name, big(1000, "row")));
    }
    m
}

fn assert_well_formed(before: &[Message], after: &[Message]) {
    // system prompts and the first question are untouched
    assert_eq!(after[0], before[0]);
    assert_eq!(after[1], before[1]);
    // every tool call still has its answer right after it
    for (i, m) in after.iter().enumerate() {
        for (k, c) in m.tool_calls.iter().enumerate() {
            let ans = &after[i + 1 + k];
            assert_eq!(ans.role, Role::Tool);
            assert_eq!(ans.tool_call_id.as_deref(), Some(c.id.as_str()));
        }
        if m.role == Role::Tool {
            let id = m.tool_call_id.as_deref().unwrap();
            assert!(
                after[..i].iter().any(|p| p.tool_calls.iter().any(|c| c.id == id)),
                "orphan tool result {id}"
            );
        }
    }
}

#[test]
fn counter_selection() {
    assert_eq!(TokenCounter::for_model("gpt-4o").encoding(), "o200k_base");
    assert_eq!(
        TokenCounter::for_model("gpt-4o-mini-2024-07-18").encoding(),
        "o200k_base"
    );
    assert_eq!(TokenCounter::for_model("openai/gpt-4.1-mini").encoding(), "o200k_base");
    assert_eq!(TokenCounter::for_model("gpt-4").encoding(), "cl100k_base");
    assert_eq!(TokenCounter::for_model("gpt-35-turbo").encoding(), "cl100k_base");
    assert_eq!(TokenCounter::for_model("claude-sonnet-4-5").encoding(), "estimate");
    assert_eq!(TokenCounter::for_model("mistral-large-latest").encoding(), "estimate");
    assert_eq!(TokenCounter::for_model("my-azure-deployment").encoding(), "estimate");
    assert!(TokenCounter::for_model("gpt-4o").is_exact());
}

#[test]
fn bpe_counts_match_tiktoken() {
    let cl = TokenCounter::for_model("gpt-4");
    assert_eq!(cl.count_text("hello world"), 2);
    assert_eq!(cl.count_text("The quick brown fox jumps over the lazy dog"), 9);
    assert_eq!(cl.count_text(""), 0);
    let o = TokenCounter::for_model("gpt-4o");
    assert_eq!(o.count_text("hello world"), 2);
    assert_eq!(count_tokens("gpt-4o", "hello world"), 2);
}

#[test]
fn estimate_is_chars_based_and_pessimistic() {
    let e = TokenCounter::estimate();
    assert_eq!(e.count_text("abcdefghi"), 3);
    assert_eq!(e.count_text("abcdefghij"), 4);
    assert_eq!(e.count_text("äöü"), 3); // 2-byte chars: one token each
    assert_eq!(e.count_text("巴伐"), 3); // CJK: 1.5 each
    for text in [
        "这是一个关于巴伐利亚金属工业集体协议的问题。",
        "Какие тарифные соглашения действуют в Баварии?",
        "🙂🙂 emoji and ünïcödé",
        "Welche Tarifverträge gelten für die Metallindustrie in Bayern? Bitte mit Laufzeit und Entgeltgruppen.",
        r#"{"tarifgebiet":"Bayern","fachbereich":"Metall","search_terms":["Entgelt","Urlaub"]}"#,
        "The quick brown fox jumps over the lazy dog. It was a bright cold day in April.",
    ] {
        for model in ["gpt-4o", "gpt-4"] {
            let bpe = TokenCounter::for_model(model);
            assert!(
                e.count_text(text) >= bpe.count_text(text),
                "estimate must not undercount ({model}): {text}"
            );
        }
    }
}

#[test]
fn huge_text_is_counted_in_pieces() {
    let o = TokenCounter::for_model("gpt-4o");
    let text = "Tarifvertrag Metall Bayern 2024, Entgeltgruppe 5. ".repeat(2000); // ~100 KB
    let whole = o.count_text(&text);
    assert!(whole > 10_000);
    // a single 200 KB "word" stays fast (no quadratic BPE merge over the whole string)
    let t = Instant::now();
    let n = o.count_text(&"x".repeat(200_000));
    assert!(n > 0);
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
}

#[test]
fn long_runs_without_whitespace_are_counted_in_pieces() {
    let cl = TokenCounter::for_model("gpt-4");
    let bpe = tiktoken_rs::cl100k_base().unwrap();
    // Real text: the same count as tiktoken over the whole text.
    let text = "Die regelmäßige wöchentliche Arbeitszeit beträgt 35 Stunden, https://example.org/tarif/metall-bayern?jahr=2024 ".repeat(50);
    assert_eq!(cl.count_text(&text), bpe.encode_ordinary(&text).len());
    // A 1 MB run (quadratic BPE merging over it took minutes): about tiktoken's count.
    let run = "x".repeat(1_000_000);
    let n = cl.count_text(&run);
    let exact = bpe.encode_ordinary(&"x".repeat(16_384)).len() * 1_000_000 / 16_384;
    assert!(n >= exact * 9 / 10 && n <= exact * 2, "{n} vs ~{exact}");
    // Multi-byte characters in a run are never cut inside a character (no panic, all counted).
    let wide = "ä€😀".repeat(100_000);
    assert!(cl.count_text(&wide) >= 300_000);
}

#[test]
fn message_counting_includes_tool_calls() {
    let c = TokenCounter::for_model("gpt-4o");
    let plain = c.count_message(&Message::assistant(""));
    let with_call = c.count_message(&Message::assistant_tool_calls(
        None,
        vec![ToolCall::new("call_1", "search", json!({"q": "Bayern"}))],
    ));
    assert!(with_call > plain + 5);
    assert!(count_messages(&agent_history(), &c) > 3000);
    let tools = vec![ToolDef::new("search", "Search documents", json!({"type":"object"}))];
    assert!(count_tools(&tools, &c) > 5);
}

#[test]
fn context_windows() {
    assert_eq!(context_window("gpt-4o"), Some(128_000));
    assert_eq!(context_window("claude-sonnet-4-5"), Some(200_000));
    assert_eq!(context_window("something-unknown"), None);
}

#[test]
fn prune_noop_when_within_budget() {
    let mut m = agent_history();
    let before = m.clone();
    let r = prune(&mut m, 1_000_000, &Words);
    assert!(r.fits);
    assert!(r.pruned.is_empty());
    assert_eq!(r.summarize, None);
    assert_eq!(r.tokens_before, r.tokens_after);
    assert_eq!(m, before);
}

#[test]
fn prune_oldest_tool_results_first() {
    let mut m = agent_history();
    let before = m.clone();
    let total = count_messages(&m, &Words);
    // dropping one result (~1000 tokens) is enough
    let r = prune(&mut m, total - 500, &Words);
    assert!(r.fits, "{r:?}");
    assert_eq!(r.pruned.len(), 1);
    assert_eq!(r.pruned[0].index, 3);
    assert_eq!(r.pruned[0].tool, "search");
    assert_eq!(r.pruned[0].tool_call_id.as_deref(), Some("call_0"));
    assert_eq!(
        m[3].text(),
        "[tool result pruned: 1000 tokens from search dropped to fit the context window]"
    );
    assert_eq!(m[5], before[5], "newer result kept");
    assert_eq!(m[7], before[7], "latest turn kept");
    assert_eq!(m.len(), before.len());
    assert_eq!(r.tokens_after, count_messages(&m, &Words));
    assert_well_formed(&before, &m);
}

#[test]
fn prune_never_touches_latest_turn_system_or_question() {
    let mut m = agent_history();
    m[0] = Message::system(big(500, "rule"));
    m[1] = Message::user(big(500, "question"));
    let before = m.clone();
    let r = prune(&mut m, 10, &Words);
    assert!(!r.fits);
    assert_eq!(r.pruned.iter().map(|p| p.index).collect::<Vec<_>>(), [3, 5]);
    assert_eq!(m[0], before[0]);
    assert_eq!(m[1], before[1]);
    assert_eq!(m[6], before[6]);
    assert_eq!(m[7], before[7]);
    assert_well_formed(&before, &m);
    // a second run does not prune markers again
    let r2 = prune(&mut m, 10, &Words);
    assert!(r2.pruned.is_empty());
}

#[test]
fn prune_resolves_tool_name_from_call_and_keeps_last_user_question() {
    let mut m = agent_history();
    m[3].name = None;
    m.push(Message::assistant(big(10, "answer")));
    m.push(Message::user(big(800, "followup")));
    let r = prune(&mut m, 100, &Words);
    assert_eq!(r.pruned[0].tool, "search");
    assert!(m[3].text().contains("from search"));
    // the final user message is the latest turn and the current question: untouched
    assert_eq!(m.last().unwrap().text(), big(800, "followup"));
}

#[test]
fn summarize_range_when_pruning_is_not_enough_and_apply() {
    let mut m = agent_history();
    // assistant text turns that cannot be pruned
    m.insert(4, Message::assistant(big(3000, "thinking")));
    let before = m.clone();
    let r = prune(&mut m, 2000, &Words);
    assert!(!r.fits);
    let range = r.summarize.clone().expect("a range to summarize");
    assert_eq!(range.start, 2, "starts right after the first question");
    // whole turns only, never the latest turn (indices 7..9)
    assert!(range.end <= 7, "{range:?}");
    assert!(r.summarize_tokens > 3000);
    let text = render_for_summary(&m, range.clone());
    assert!(text.contains("assistant called search"));
    let applied = apply_summary(&mut m, range.clone(), "Found TV Metall Bayern.").unwrap();
    assert_eq!(applied, range);
    assert_eq!(m[2].role, Role::Assistant);
    assert!(m[2].text().starts_with(SUMMARY_PREFIX));
    assert!(m[2].text().ends_with("Found TV Metall Bayern."));
    assert_eq!(m[0], before[0]);
    assert_eq!(m[1], before[1]);
    assert_eq!(m.last(), before.last());
    assert_well_formed(&before, &m);
    assert!(count_messages(&m, &Words) <= 2000);
}

#[test]
fn apply_summary_widens_to_whole_turns_and_refuses_bad_ranges() {
    let mut m = agent_history();
    // start on a tool result and end after an assistant tool-call message: widened to 2..6
    let applied = apply_summary(&mut m, 3..5, "s").unwrap();
    assert_eq!(applied, 2..6);
    assert_eq!(m.len(), 8 - 4 + 1);
    assert_well_formed(&agent_history(), &m);
    let mut m = agent_history();
    assert!(apply_summary(&mut m, 0..3, "s").is_err(), "system prompt inside");
    assert!(apply_summary(&mut m, 5..5, "s").is_err());
    assert!(apply_summary(&mut m, 5..99, "s").is_err());
    assert_eq!(m, agent_history());
}

#[test]
fn prune_with_nothing_to_summarize() {
    let mut m = vec![Message::system(big(100, "s")), Message::user(big(100, "q"))];
    let r = prune(&mut m, 10, &Words);
    assert!(!r.fits);
    assert_eq!(r.summarize, None);
    let mut empty: Vec<Message> = Vec::new();
    let r = prune(&mut empty, 0, &Words);
    assert!(r.fits || r.tokens_after <= 3);
}

#[test]
fn tokenizer_costs() {
    // Measured, printed with --nocapture; the bounds only catch pathologies.
    let t = Instant::now();
    let c = TokenCounter::for_model("gpt-4o");
    let _ = c.count_text("warm up");
    let first = t.elapsed();
    let msg = "Welche Tarifverträge gelten für die Metallindustrie in Bayern? ".repeat(16); // ~1 KB
    let t = Instant::now();
    let mut n = 0;
    for _ in 0..200 {
        n += c.count_text(&msg);
    }
    let per_call = t.elapsed() / 200;
    let big_text = "row | Tarifvertrag Metall | Bayern | 2024-01-01 | 5 |\n".repeat(2000); // ~110 KB
    let t = Instant::now();
    let nb = c.count_text(&big_text);
    let big_call = t.elapsed();
    let t = Instant::now();
    let _ = TokenCounter::for_model("gpt-4").count_text("warm up");
    let cl_first = t.elapsed();
    println!(
        "o200k first use (init + count): {first:?}; cl100k first use: {cl_first:?}; 1 KB message: {per_call:?} ({} tokens); 110 KB tool result: {big_call:?} ({nb} tokens)",
        n / 200
    );
    assert!(first.as_secs() < 60 && per_call.as_millis() < 500);
}

#[test]
fn the_byte_bound_is_never_below_the_count() {
    let texts = [
        "",
        "hello world",
        "1234567890 0987654321 3.14159",
        "!!!???...;;;:::(((}}}",
        "Grüße aus München, Ærøskøbing",
        "日本語のテキストと中文",
        "🙂🎉👩‍👩‍👧 emoji",
        "{\"id\": 7, \"name\": \"item 7\", \"price\": 7.70}",
        &"x".repeat(5000),
        &"ab cd ".repeat(3000),
    ];
    for counter in [
        TokenCounter::for_model("gpt-4o-mini"),
        TokenCounter::for_model("gpt-4"),
        TokenCounter::for_model("claude-sonnet-4"),
    ] {
        for t in texts {
            assert!(
                counter.text_bound(t) >= counter.count_text(t),
                "{}: {t:?}",
                counter.encoding()
            );
        }
        let history = vec![
            Message::system(texts[4]),
            Message::user(texts[5]),
            Message::assistant_tool_calls(
                Some(texts[6].to_string()),
                vec![ToolCall::new("call_1", "get_item", json!({"id": 7}))],
            ),
            Message::tool_result("call_1", "get_item", texts[7]),
        ];
        for m in &history {
            assert!(counter.message_bound(m) >= counter.count_message(m));
        }
        let tools = vec![ToolDef {
            name: "get_item".into(),
            description: texts[4].into(),
            parameters: json!({"type": "object", "properties": {"id": {"type": "integer"}}}),
        }];
        assert!(counter.tools_bound(&tools) >= count_tools(&tools, &counter));
    }
}
