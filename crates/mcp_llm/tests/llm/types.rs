use mcp_llm::*;
use serde_json::json;

#[test]
fn tool_choice_parses_modes_and_object_forms() {
    assert_eq!(ToolChoice::parse("none").unwrap(), ToolChoice::None);
    assert_eq!(ToolChoice::parse(" AUTO ").unwrap(), ToolChoice::Auto);
    assert_eq!(ToolChoice::parse("").unwrap(), ToolChoice::Auto);
    assert_eq!(ToolChoice::parse("required").unwrap(), ToolChoice::Required);
    assert_eq!(ToolChoice::parse("any").unwrap(), ToolChoice::Required);
    assert_eq!(
        ToolChoice::parse("getTarifVertrag").unwrap(),
        ToolChoice::Function("getTarifVertrag".into())
    );
    assert_eq!(
        ToolChoice::parse(r#"{"type":"function","function":{"name":"getDialog"}}"#).unwrap(),
        ToolChoice::Function("getDialog".into())
    );
    assert_eq!(
        ToolChoice::from_value(&json!({"type":"tool","name":"x"})).unwrap(),
        ToolChoice::Function("x".into())
    );
    assert_eq!(
        ToolChoice::from_value(&json!({"type":"any"})).unwrap(),
        ToolChoice::Required
    );
    assert_eq!(ToolChoice::from_value(&json!(null)).unwrap(), ToolChoice::Auto);
    assert!(ToolChoice::parse("drop table; --").is_err());
    assert!(ToolChoice::parse("{not json").is_err());
    assert!(ToolChoice::from_value(&json!(42)).is_err());
    assert!(ToolChoice::from_value(&json!({"type":"function"})).is_err());
}

#[test]
fn tool_choice_serde_round_trip() {
    for tc in [
        ToolChoice::None,
        ToolChoice::Auto,
        ToolChoice::Required,
        ToolChoice::Function("f".into()),
    ] {
        let v = serde_json::to_value(&tc).unwrap();
        let back: ToolChoice = serde_json::from_value(v).unwrap();
        assert_eq!(back, tc);
    }
}

#[test]
fn message_constructors_and_serde() {
    let m = Message::tool_result("call_1", "getTarifVertrag", "3 Verträge");
    assert_eq!(m.role, Role::Tool);
    assert_eq!(m.tool_call_id.as_deref(), Some("call_1"));
    let v = serde_json::to_value(&m).unwrap();
    assert_eq!(v["role"], "tool");
    let back: Message = serde_json::from_value(v).unwrap();
    assert_eq!(back, m);

    let a = Message::assistant_tool_calls(None, vec![ToolCall::new("c", "f", json!({"a": 1}))]);
    assert!(a.has_tool_calls());
    let back: Message = serde_json::from_value(serde_json::to_value(&a).unwrap()).unwrap();
    assert_eq!(back, a);
    // developer role is read as system
    let d: Message = serde_json::from_value(json!({"role":"developer","content":"x"})).unwrap();
    assert_eq!(d.role, Role::System);
}

#[test]
fn tooldef_from_openai_and_anthropic_shapes() {
    let o = ToolDef::from_value(
        &json!({"type":"function","function":{"name":"a","description":"d","parameters":{"type":"object"}}}),
    )
    .unwrap();
    assert_eq!(o.name, "a");
    assert_eq!(o.parameters, json!({"type":"object"}));
    let a = ToolDef::from_value(&json!({"name":"b","input_schema":{"type":"object","properties":{}}})).unwrap();
    assert_eq!(a.name, "b");
    assert!(ToolDef::from_value(&json!({"description":"no name"})).is_none());
}
