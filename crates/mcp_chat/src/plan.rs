//! What an execution plan changes in one run, decided by the host before the run:
//! tool results obtained before the first LLM request, the tools offered in the model phase, or
//! a question for the user instead of any model call. The engine applies it in `setup`/`drive`.

use mcp_llm::{Message, ToolCall, ToolDef};
use serde_json::Value;

/// A tool the plan ran before the model is called (`retrieve`/`tool` step).
#[derive(Debug, Clone, PartialEq)]
pub struct PreResult {
    pub tool: String,
    pub arguments: Value,
    /// The tool's answer as the model will read it.
    pub content: String,
}

/// Ask the user instead of calling the model (`ask` step whose entity is missing).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanAsk {
    pub question: String,
    /// The run's `needs_input` (`missing_parameters`, `plan`, …).
    pub request: Value,
}

/// The plan's effect on one run. `PlanRun::default()` changes nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanRun {
    pub pre_results: Vec<PreResult>,
    /// Tools offered in the model phase; `None` = every tool the host lists.
    pub tools: Option<Vec<String>>,
    pub ask: Option<PlanAsk>,
}

impl PlanRun {
    /// The tools of the model phase: the host's, narrowed to the plan's subset (its order kept).
    pub fn filter_tools(&self, tools: Vec<ToolDef>) -> Vec<ToolDef> {
        match &self.tools {
            None => tools,
            Some(keep) => tools
                .into_iter()
                .filter(|t| keep.contains(&t.name))
                .collect(),
        }
    }

    /// The pre-step results as the conversation carries them after the question: one assistant
    /// message calling the tools (ids `plan_1`, `plan_2`, …) and one tool answer per call.
    pub fn preface(&self) -> Vec<Message> {
        if self.pre_results.is_empty() {
            return Vec::new();
        }
        let id = |i: usize| format!("plan_{}", i + 1);
        let calls = self
            .pre_results
            .iter()
            .enumerate()
            .map(|(i, r)| ToolCall::new(id(i), r.tool.clone(), r.arguments.clone()))
            .collect();
        let mut out = vec![Message::assistant_tool_calls(None, calls)];
        for (i, r) in self.pre_results.iter().enumerate() {
            out.push(Message::tool_result(
                id(i),
                r.tool.clone(),
                r.content.clone(),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn def(name: &str) -> ToolDef {
        ToolDef {
            name: name.into(),
            description: String::new(),
            parameters: json!({"type": "object"}),
        }
    }

    #[test]
    fn default_changes_nothing() {
        let p = PlanRun::default();
        assert!(p.preface().is_empty());
        let names: Vec<_> = p
            .filter_tools(vec![def("a"), def("b")])
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn subset_keeps_host_order_and_drops_unknown() {
        let p = PlanRun {
            tools: Some(vec!["c".into(), "a".into(), "zz".into()]),
            ..PlanRun::default()
        };
        let names: Vec<_> = p
            .filter_tools(vec![def("a"), def("b"), def("c")])
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, ["a", "c"]);
        let none = PlanRun {
            tools: Some(vec![]),
            ..PlanRun::default()
        };
        assert!(none.filter_tools(vec![def("a")]).is_empty());
    }

    #[test]
    fn preface_pairs_every_call_with_its_answer() {
        let p = PlanRun {
            pre_results: vec![
                PreResult {
                    tool: "getTarifVertrag".into(),
                    arguments: json!({"tarifgebiet": "Bayern"}),
                    content: "[{\"id\": 1}]".into(),
                },
                PreResult {
                    tool: "x".into(),
                    arguments: json!({}),
                    content: "ok".into(),
                },
            ],
            ..PlanRun::default()
        };
        let m = p.preface();
        assert_eq!(m.len(), 3);
        assert_eq!(m[0].tool_calls.len(), 2);
        assert_eq!(m[0].tool_calls[0].id, "plan_1");
        assert_eq!(
            m[0].tool_calls[0].arguments,
            json!({"tarifgebiet": "Bayern"})
        );
        assert_eq!(m[1].tool_call_id.as_deref(), Some("plan_1"));
        assert_eq!(m[1].content.as_deref(), Some("[{\"id\": 1}]"));
        assert_eq!(m[2].tool_call_id.as_deref(), Some("plan_2"));
        assert_eq!(m[2].name.as_deref(), Some("x"));
    }
}
