//! Bounded recursion: every shape that makes the engine nest runs on a thread with a small
//! stack (512 KiB — a quarter of PostgreSQL's default `max_stack_depth` of 2 MB; in a debug
//! build, whose frames are several times larger than optimized ones). A stack overflow aborts
//! the whole test binary, so passing means none of these inputs can overflow a backend's stack.
//! Also: the interrupt and stack hooks of `mcp_repair::guard`.

use mcp_repair::guard::{self, Hooks};
use mcp_repair::{first_pass_doubtful, repair, repair_jsonb, repair_pass, MAX_DEPTH};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Stack of the test threads.
const SMALL_STACK: usize = 512 * 1024;

/// Run `f` on a thread with `SMALL_STACK` bytes of stack.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    guard::on_thread_with_stack(SMALL_STACK, f)
}

/// Shapes that nest `d` levels deep, each closed (where it has a closing form) or cut off.
fn shapes(d: usize) -> Vec<(&'static str, String)> {
    let r = |s: &str, n: usize| s.repeat(n);
    vec![
        ("arrays", format!("{}1{}", r("[", d), r("]", d))),
        ("arrays_open", r("[", d)),
        ("objects", format!("{}1{}", r("{\"a\":", d), r("}", d))),
        ("objects_open", format!("{}1", r("{\"a\":", d))),
        ("bare_keys", format!("{}1 x", r("{a:", d))),
        ("single_quotes", format!("{}'v'", r("{'k': [", d))),
        ("tuples", format!("{}1{}", r("(", d), r(")", d))),
        ("tuples_open", r("(1, ", d)),
        (
            "python_literals",
            format!("{}True{}", r("{'a': (None, [False, ", d), r("])}", d)),
        ),
        ("sets", format!("{}'x'", r("{'a', ", d))),
        ("calls", format!("{}1{}", r("f(", d), r(")", d))),
        ("mongo_calls", format!("[{}1", r("new ObjectId(", d))),
        ("implicit_objects", format!("{}1", r("[\"k\": ", d))),
        ("merged_arrays", format!("{}1", r("{\"a\": [1], [", d))),
        ("comments", format!("{}1", r("/* c */ [ // x\n # y\n", d))),
        (
            "concat_in_brackets",
            format!("{}\"y\"", r("[\"x\" + \"y\" + ", d)),
        ),
        (
            "concat_in_objects",
            format!("{}\"y\"", r("{\"a\": \"x\" + ", d)),
        ),
        // doubtful quotes: the second opinion (json_repair rules) runs at full depth too
        (
            "second_opinion",
            format!("{}\"x\" y\", \"b\": 1", r("{\"a\": ", d)),
        ),
        (
            "second_opinion_arrays",
            format!("{}\"x\" y\"", r("[\"a\" b\", ", d)),
        ),
        (
            "fenced_strings",
            format!("{{\"k\": \"x\" y\", \"a\": {}1", r("\"```json ", d)),
        ),
        ("fence_around_deep", format!("```json\n{}\n```", r("[", d))),
        (
            "prose_around_deep",
            format!("Here you go: {} thanks", r("{\"a\": [", d)),
        ),
        ("sse_deep", format!("data: {}\n\ndata: [DONE]\n", r("[", d))),
        (
            "tool_call_tag",
            format!("<tool_call>{}</tool_call>", r("{\"a\":", d)),
        ),
        ("merged_root", format!("{{\"a\": 1}}, \"b\": {}", r("[", d))),
        ("ndjson", format!("{}\n{}", r("[", d), r("{\"a\":", d))),
        ("escaped_quotes", format!("{}1", r("{\\\"a\\\": [", d))),
        ("mixed", {
            let mut s = String::new();
            for k in 0..d {
                s.push_str(["[", "{\"a\": ", "(", "f(", "{b: ", "[\"k\": "][k % 6]);
            }
            s.push_str("\"end\" + \"x\"");
            s
        }),
    ]
}

/// Every entry point of the crate on one input.
fn all_entry_points(input: &str) {
    let _ = repair(input);
    let _ = repair_jsonb(input);
    let _ = repair_pass(input, false);
    let _ = repair_pass(input, true);
    let _ = first_pass_doubtful(input);
}

#[test]
fn every_nesting_shape_fits_a_small_stack() {
    on_small_stack(|| {
        for d in [MAX_DEPTH - 2, MAX_DEPTH, MAX_DEPTH + 1, 5_000] {
            for (_, input) in shapes(d) {
                all_entry_points(&input);
            }
        }
        for (_, input) in shapes(100_000) {
            let _ = repair(&input);
        }
    });
}

/// Shapes whose every level opens a container.
const NESTING: &[&str] = &[
    "arrays",
    "arrays_open",
    "objects",
    "objects_open",
    "bare_keys",
    "single_quotes",
    "tuples",
    "python_literals",
    "calls",
    "mongo_calls",
    "implicit_objects",
    "merged_arrays",
    "comments",
    "concat_in_brackets",
    "second_opinion",
    "fence_around_deep",
    "prose_around_deep",
    "sse_deep",
    "tool_call_tag",
    "merged_root",
    "escaped_quotes",
    "mixed",
];

#[test]
fn nesting_beyond_the_limit_is_an_error() {
    on_small_stack(|| {
        for (name, input) in shapes(MAX_DEPTH + 5) {
            if !NESTING.contains(&name) {
                continue;
            }
            let e = repair(&input);
            assert!(
                e.as_ref()
                    .is_err_and(|e| e.message.contains("nesting deeper than 128")),
                "{name}: {e:?}"
            );
        }
        // at the limit it still parses
        let ok = format!("{}1{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(repair(&ok).is_ok());
    });
}

/// The input that overflowed the stack before nesting was bounded: `"x" + ` 20,000 times
/// recursed ~13,000 deep (SIGSEGV).
#[test]
fn long_concatenation_chains_do_not_recurse() {
    on_small_stack(|| {
        for n in [20_000, 200_000] {
            let input = format!("{{\"a\": {}\"y\"}}", "\"x\" + ".repeat(n));
            let r = repair(&input).expect("repairs");
            let want = format!("{}y", "x".repeat(n));
            assert_eq!(r.value["a"].as_str(), Some(want.as_str()));
            assert_eq!(
                r.fixes
                    .iter()
                    .filter(|f| f.kind == "string_concatenation")
                    .count(),
                n
            );
            // the same chain as an array element, as bare top-level text and cut off
            let _ = repair(&format!("[{}\"y\"]", "'x' + ".repeat(n)));
            let _ = repair(&format!("{}\"y\"", "\"x\" + ".repeat(n)));
            let _ = repair(&format!("{{\"a\": {}", "\"x\" + ".repeat(n)));
            let _ = repair(&format!("{{\"a\": {}", "\"x\" +\n// c\n".repeat(n)));
        }
    });
}

#[test]
fn the_host_stack_check_stops_nesting() {
    on_small_stack(|| {
        let hooks = Hooks {
            interrupt: || {},
            stack_exhausted: || true,
        };
        let e = guard::with_hooks(hooks, || repair("[[1]")).unwrap_err();
        assert!(e.message.contains("stack"), "{e}");
        // hooks are restored afterwards
        assert!(repair("[[1]").is_ok());
        assert!(guard::installed().is_none());
    });
}

static POLLS: AtomicUsize = AtomicUsize::new(0);

#[test]
fn long_work_polls_for_interrupts() {
    // about 2 MB of work of each kind: values, string bytes, look-ahead of the second opinion
    let inputs = [
        format!("[{}", "1,".repeat(1 << 20)),
        format!("{{\"a\": \"{}", "x".repeat(2 << 20)),
        format!("{{\"a\": \"{}\" tail", "x,".repeat(1 << 20)),
        format!("{{\"a\": {}\"y\"}}", "\"x\" + ".repeat(1 << 18)),
    ];
    for input in inputs {
        POLLS.store(0, Ordering::SeqCst);
        let hooks = Hooks {
            interrupt: || {
                POLLS.fetch_add(1, Ordering::SeqCst);
            },
            stack_exhausted: || false,
        };
        guard::with_hooks(hooks, || {
            let _ = repair(&input);
        });
        let polls = POLLS.load(Ordering::SeqCst);
        assert!(polls >= 1, "{} bytes: {polls} polls", input.len());
    }
}

#[test]
fn an_interrupt_abandons_the_computation() {
    // the host's interrupt raises (PostgreSQL: ereport → Rust panic); the engine unwinds and
    // the thread stays usable
    let hooks = Hooks {
        interrupt: || panic!("canceling statement due to user request"),
        stack_exhausted: || false,
    };
    let input = format!("[{}", "{\"a\": [1, 'x', True], ".repeat(1 << 17));
    let r = std::panic::catch_unwind(|| guard::with_hooks(hooks, || repair(&input)));
    assert!(r.is_err());
    assert!(guard::installed().is_none());
    assert!(repair("{'a': 1,}").is_ok());
}
