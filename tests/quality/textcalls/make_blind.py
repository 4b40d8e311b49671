#!/usr/bin/env python3
"""Generates blind.jsonl: an independent evaluation set for recovering tool calls
that open models return as text.  Written blind (see README.md).  Run:
    python3 tests/quality/textcalls/make_blind.py
"""
import json, os

TPL = "llama-cpp-python 0.3.36 sdist vendor/llama.cpp/models/templates/"
VT = "vllm 0.33.0 sdist tests/tool_parsers/"
cases = []


def J(o, ascii=False):
    return json.dumps(o, ensure_ascii=ascii)


def add(family, variant, source, text, calls=(), incomplete=0, content=None,
        reasoning=None, finish="stop"):
    cid = "%s-%02d-%s" % (family, sum(1 for c in cases if c["family"] == family) + 1, variant)
    cases.append({"id": cid, "family": family, "variant": variant, "source": source,
                  "finish": finish, "text": text,
                  "calls": [{"name": n, "arguments": a} for n, a in calls],
                  "incomplete": incomplete, "content": content, "reasoning": reasoning})


W_BERLIN = ("get_weather", {"city": "Berlin"})
W_MUC3 = ("get_weather", {"city": "München", "days": 3, "unit": "c"})
S_NESTED = ("search_docs", {"query": "Größe der Übergabe", "filters": {"lang": "de", "tags": ["api", "ä"], "since": {"year": 2024}}, "limit": 5})
T_MARK = lambda m: ("create_ticket", {"title": "Parser bricht bei %s ab" % m, "priority": 2, "tags": ["parser"]})
EMPTY = ("search_docs", {})

# ---------------------------------------------------------------- DeepSeek V3 / R1
SRC = TPL + "llama-cpp-deepseek-r1.jinja; " + VT + "test_deepseekv3_tool_parser.py"
def ds3(name, args_text):
    return "<｜tool▁call▁begin｜>function<｜tool▁sep｜>%s\n```json\n%s\n```<｜tool▁call▁end｜>" % (name, args_text)
def ds3s(*calls, sep=""):
    return "<｜tool▁calls▁begin｜>" + sep.join(calls) + "<｜tool▁calls▁end｜>"
F = "deepseek_v3"
add(F, "single", SRC, ds3s(ds3("get_weather", J({"city": "Berlin"}))), [W_BERLIN])
add(F, "parallel_prose", SRC, "Ich sehe nach.\n\n" + ds3s(ds3("get_weather", J(W_MUC3[1])), ds3("create_ticket", J({"title": "Wetter", "tags": []})), sep="\n"),
    [W_MUC3, ("create_ticket", {"title": "Wetter", "tags": []})], 0, "Ich sehe nach.")
add(F, "r1_think_with_marker", SRC,
    "<think>\nI could emit <｜tool▁calls▁begin｜> but the user only wants an explanation.\n</think>\n\nDeepSeek starts its calls with `<｜tool▁calls▁begin｜>`.",
    [], 0, "DeepSeek starts its calls with `<｜tool▁calls▁begin｜>`.",
    "I could emit <｜tool▁calls▁begin｜> but the user only wants an explanation.")
add(F, "r1_think_then_call_nested", SRC,
    "<think>\nNeed the docs search with filters.\n</think>\n\n" + ds3s(ds3("search_docs", J(S_NESTED[1]))),
    [S_NESTED], 0, None, "Need the docs search with filters.")
add(F, "marker_in_arg", SRC, ds3s(ds3("create_ticket", J(T_MARK("<｜tool▁call▁end｜>")[1]))), [T_MARK("<｜tool▁call▁end｜>")])
add(F, "cut_off", SRC, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Ham", [], 1, None, finish="length")
add(F, "unknown_tool", SRC, ds3s(ds3("send_email", J({"to": "a@b.de"}))), [], 1)
add(F, "garbage_body", SRC, ds3s(ds3("get_weather", "city = Berlin, days = drei")), [], 1)

# ---------------------------------------------------------------- DeepSeek V3.1
SRC = TPL + "deepseek-ai-DeepSeek-V3.1.jinja; " + VT + "test_deepseekv31_tool_parser.py"
def ds31(name, args_text):
    return "<｜tool▁call▁begin｜>%s<｜tool▁sep｜>%s<｜tool▁call▁end｜>" % (name, args_text)
F = "deepseek_v3.1"
add(F, "single", SRC, ds3s(ds31("get_weather", J({"city": "Berlin"}))), [W_BERLIN])
add(F, "parallel", SRC, ds3s(ds31("get_weather", J(W_MUC3[1])), ds31("search_docs", J({"query": "Föhn", "limit": 2}))),
    [W_MUC3, ("search_docs", {"query": "Föhn", "limit": 2})])
add(F, "no_call_mentions_marker", SRC, "Tool calls start with the `<｜tool▁calls▁begin｜>` token; nothing to call here.", [], 0,
    "Tool calls start with the `<｜tool▁calls▁begin｜>` token; nothing to call here.")
add(F, "empty_args_prose", SRC, "Moment.\n" + ds3s(ds31("search_docs", "{}")) , [EMPTY], 0, "Moment.")
add(F, "marker_in_arg", SRC, ds3s(ds31("create_ticket", J(T_MARK("<｜tool▁sep｜> und <｜tool▁calls▁end｜>")[1]))), [T_MARK("<｜tool▁sep｜> und <｜tool▁calls▁end｜>")])
add(F, "think_then_call_unicode_escaped", SRC,
    "<think>Wetter für Köln, 2 Tage.</think>" + ds3s(ds31("get_weather", J({"city": "Köln", "days": 2}, ascii=True))),
    [("get_weather", {"city": "Köln", "days": 2})], 0, None, "Wetter für Köln, 2 Tage.")
add(F, "cut_off_second", SRC, ds3s(ds31("get_weather", J({"city": "Berlin"}))).replace("<｜tool▁calls▁end｜>", "") + "<｜tool▁call▁begin｜>create_ticket<｜tool▁sep｜>{\"title\": \"Sturm", [W_BERLIN], 1, None, finish="length")
add(F, "args_not_object", SRC, ds3s(ds31("get_weather", J(["Berlin", 3]))), [], 1)

# ---------------------------------------------------------------- DeepSeek V3.2 (DSML)
SRC = TPL + "deepseek-ai-DeepSeek-V3.2.jinja; " + VT + "test_deepseekv32_tool_parser.py"
D = "｜DSML｜"
def dsml_inv(name, params):
    body = "".join('<%sparameter name="%s" string="%s">%s</%sparameter>\n' % (D, k, "true" if s else "false", v, D) for k, v, s in params)
    return '<%sinvoke name="%s">\n%s</%sinvoke>\n' % (D, name, body, D)
def dsml(*invs):
    return "<%sfunction_calls>\n" % D + "".join(invs) + "</%sfunction_calls>" % D
F = "deepseek_v3.2"
add(F, "single", SRC, dsml(dsml_inv("get_weather", [("city", "Berlin", True)])), [W_BERLIN])
add(F, "parallel_typed", SRC, "Ich prüfe beides.\n\n" + dsml(dsml_inv("get_weather", [("city", "München", True), ("days", "3", False), ("unit", "c", True)]),
    dsml_inv("create_ticket", [("title", "2024", True), ("priority", "1", False), ("tags", J(["wetter", "größe"], ascii=False), False)])),
    [W_MUC3, ("create_ticket", {"title": "2024", "priority": 1, "tags": ["wetter", "größe"]})], 0, "Ich prüfe beides.")
add(F, "nested_object", SRC, dsml(dsml_inv("search_docs", [("query", "Größe der Übergabe", True), ("filters", J(S_NESTED[1]["filters"]), False), ("limit", "5", False)])), [S_NESTED])
add(F, "think_with_marker", SRC,
    "<think>Maybe a <" + D + "function_calls> block? No, just answer.</think>Es sind 21 °C in Berlin.", [], 0,
    "Es sind 21 °C in Berlin.", "Maybe a <" + D + "function_calls> block? No, just answer.")
add(F, "no_params", SRC, dsml('<%sinvoke name="search_docs">\n</%sinvoke>\n' % (D, D)), [EMPTY])
add(F, "cut_off", SRC, "<%sfunction_calls>\n<%sinvoke name=\"get_weather\">\n<%sparameter name=\"city\" string=\"true\">Dres" % (D, D, D), [], 1, None, finish="length")
add(F, "unknown_tool", SRC, dsml(dsml_inv("delete_all", [("confirm", "true", False)])), [], 1)

# ---------------------------------------------------------------- gpt-oss Harmony
SRC = TPL + "openai-gpt-oss-120b.jinja (OpenAI harmony response format)"
F = "gpt_oss_harmony"
def an(t): return "<|channel|>analysis<|message|>%s<|end|><|start|>assistant" % t
def hc(name, args_text, end="<|call|>"):
    return "<|channel|>commentary to=functions.%s <|constrain|>json<|message|>%s%s" % (name, args_text, end)
add(F, "single_with_analysis", SRC, an("User wants Berlin weather. Call get_weather.") + hc("get_weather", J({"city": "Berlin"})), [W_BERLIN], 0, None, "User wants Berlin weather. Call get_weather.")
add(F, "template_order_to_before_channel", SRC, "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>" + J(W_MUC3[1]) + "<|call|>", [W_MUC3])
add(F, "final_answer_no_call", SRC, an("Simple question, no tool needed.") + "<|channel|>final<|message|>Harmony schickt Aufrufe über den Kanal `commentary` mit `to=functions.NAME`.<|return|>", [], 0,
    "Harmony schickt Aufrufe über den Kanal `commentary` mit `to=functions.NAME`.", "Simple question, no tool needed.")
add(F, "marker_in_analysis", SRC, an("I might send to=functions.create_ticket with {\"title\": \"x\"} but the user only asked a question.") + "<|channel|>final<|message|>Kein Ticket nötig.<|return|>", [], 0,
    "Kein Ticket nötig.", "I might send to=functions.create_ticket with {\"title\": \"x\"} but the user only asked a question.")
add(F, "nested_unicode", SRC, an("Search the docs.") + hc("search_docs", J(S_NESTED[1])), [S_NESTED], 0, None, "Search the docs.")
add(F, "marker_in_arg", SRC, hc("create_ticket", J(T_MARK("<|call|>")[1])), [T_MARK("<|call|>")])
add(F, "cut_off", SRC, an("Weather.") + "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Leip", [], 1, None, "Weather.", finish="length")
add(F, "unknown_builtin", SRC, an("Use the browser.") + "<|channel|>commentary to=browser.search <|constrain|>json<|message|>{\"query\":\"Berlin\"}<|call|>", [], 1, None, "Use the browser.")
add(F, "garbage_body", SRC, hc("get_weather", "city=Berlin; days=two"), [], 1)

# ---------------------------------------------------------------- Qwen3-Coder / Qwen3.5 XML
SRC = TPL + "Qwen3-Coder.jinja, Qwen3.5-4B.jinja; " + VT + "test_qwen3coder_tool_parser.py"
def qx(name, params):
    return "<tool_call>\n<function=%s>\n" % name + "".join("<parameter=%s>\n%s\n</parameter>\n" % (k, v) for k, v in params) + "</function>\n</tool_call>"
F = "qwen3_coder_xml"
add(F, "single", SRC, qx("get_weather", [("city", "Berlin")]), [W_BERLIN])
add(F, "parallel_typed_prose", SRC, "Ich schaue nach und lege ein Ticket an.\n\n" + qx("get_weather", [("city", "München"), ("days", "3"), ("unit", "c")]) + "\n" + qx("create_ticket", [("title", "42"), ("priority", "2"), ("tags", J(["wetter", "ü"], ascii=False))]),
    [W_MUC3, ("create_ticket", {"title": "42", "priority": 2, "tags": ["wetter", "ü"]})], 0, "Ich schaue nach und lege ein Ticket an.")
add(F, "nested_object", SRC, qx("search_docs", [("query", "Größe der Übergabe"), ("filters", J(S_NESTED[1]["filters"], ascii=False)), ("limit", "5")]), [S_NESTED])
add(F, "think_with_marker", SRC, "<think>\nShould I write <tool_call>\n<function=get_weather>? No, the answer is known.\n</think>\n\nIn Berlin sind es heute 18 °C.", [], 0,
    "In Berlin sind es heute 18 °C.", "Should I write <tool_call>\n<function=get_weather>? No, the answer is known.")
add(F, "no_call_backticks", SRC, "Qwen3-Coder beginnt Aufrufe mit `<tool_call>`; hier genügt Text.", [], 0, "Qwen3-Coder beginnt Aufrufe mit `<tool_call>`; hier genügt Text.")
add(F, "multiline_string_param", SRC, qx("create_ticket", [("title", "Zeile eins\nZeile zwei"), ("priority", "1")]), [("create_ticket", {"title": "Zeile eins\nZeile zwei", "priority": 1})])
add(F, "cut_off", SRC, "<tool_call>\n<function=get_weather>\n<parameter=city>\nBrem", [], 1, None, finish="length")
add(F, "unknown_tool", SRC, qx("run_shell", [("cmd", "ls")]), [], 1)

# ---------------------------------------------------------------- GLM 4.5-4.7
SRC = TPL + "GLM-4.6.jinja (newline form), GLM-4.7-Flash.jinja (compact form); " + VT + "test_glm4_moe_tool_parser.py, test_glm47_moe_tool_parser.py"
def glm_nl(name, params):
    return "<tool_call>%s\n" % name + "".join("<arg_key>%s</arg_key>\n<arg_value>%s</arg_value>\n" % (k, v) for k, v in params) + "</tool_call>"
def glm_c(name, params):
    return "<tool_call>%s" % name + "".join("<arg_key>%s</arg_key><arg_value>%s</arg_value>" % (k, v) for k, v in params) + "</tool_call>"
F = "glm"
add(F, "single_newline", SRC, glm_nl("get_weather", [("city", "Berlin")]), [W_BERLIN])
add(F, "single_compact_typed", SRC, glm_c("get_weather", [("city", "München"), ("days", "3"), ("unit", "c")]), [W_MUC3])
add(F, "parallel_think", SRC, "<think>Beides nötig.</think>\n" + glm_nl("get_weather", [("city", "Berlin")]) + "\n" + glm_nl("create_ticket", [("title", "7"), ("priority", "4"), ("tags", J(["a", "b"]))]),
    [W_BERLIN, ("create_ticket", {"title": "7", "priority": 4, "tags": ["a", "b"]})], 0, None, "Beides nötig.")
add(F, "nested_compact", SRC, glm_c("search_docs", [("query", "Größe der Übergabe"), ("filters", J(S_NESTED[1]["filters"], ascii=False)), ("limit", "5")]), [S_NESTED])
add(F, "no_args", SRC, "Ich suche.\n" + glm_c("search_docs", []), [EMPTY], 0, "Ich suche.")
add(F, "think_with_marker", SRC, "<think>A <tool_call>get_weather would be overkill.</think>Heute bleibt es trocken.", [], 0, "Heute bleibt es trocken.", "A <tool_call>get_weather would be overkill.")
add(F, "cut_off", SRC, "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Pots", [], 1, None, finish="length")
add(F, "unknown_tool", SRC, glm_nl("book_flight", [("to", "Rom")]), [], 1)

# ---------------------------------------------------------------- Kimi K2
SRC = TPL + "Kimi-K2-Instruct.jinja, Kimi-K2-Thinking.jinja; " + VT + "test_kimi_k2_tool_parser.py"
def kc(name, idx, args_text):
    return "<|tool_call_begin|>functions.%s:%d<|tool_call_argument_begin|>%s<|tool_call_end|>" % (name, idx, args_text)
def ks(*calls):
    return "<|tool_calls_section_begin|>" + "".join(calls) + "<|tool_calls_section_end|>"
F = "kimi_k2"
add(F, "single", SRC, ks(kc("get_weather", 0, J({"city": "Berlin"}))), [W_BERLIN])
add(F, "parallel_prose", SRC, "Ich rufe zwei Werkzeuge auf.\n" + ks(kc("get_weather", 0, J(W_MUC3[1])), kc("search_docs", 1, J(S_NESTED[1]))), [W_MUC3, S_NESTED], 0, "Ich rufe zwei Werkzeuge auf.")
add(F, "no_call_backticks", SRC, "Kimi nutzt `<|tool_calls_section_begin|>` und IDs wie `functions.get_weather:0`.", [], 0, "Kimi nutzt `<|tool_calls_section_begin|>` und IDs wie `functions.get_weather:0`.")
add(F, "thinking_then_call", SRC, "<think>Need weather, call functions.get_weather:0 via <|tool_calls_section_begin|>.</think>" + ks(kc("get_weather", 0, J({"city": "Zürich", "unit": "f"}))),
    [("get_weather", {"city": "Zürich", "unit": "f"})], 0, None, "Need weather, call functions.get_weather:0 via <|tool_calls_section_begin|>.")
add(F, "marker_in_arg", SRC, ks(kc("create_ticket", 0, J(T_MARK("<|tool_call_end|>")[1]))), [T_MARK("<|tool_call_end|>")])
add(F, "empty_args", SRC, ks(kc("search_docs", 3, "{}")), [EMPTY])
add(F, "cut_off", SRC, "<|tool_calls_section_begin|><|tool_call_begin|>functions.search_docs:0<|tool_call_argument_begin|>{\"query\": \"Über", [], 1, None, finish="length")
add(F, "garbage_body", SRC, ks(kc("get_weather", 0, "city: Berlin")), [], 1)
add(F, "unknown_and_known", SRC, ks(kc("send_email", 0, J({"to": "x@y.de"})), kc("get_weather", 1, J({"city": "Berlin"}))), [W_BERLIN], 1)

# ---------------------------------------------------------------- Hermes / Qwen2.5
SRC = TPL + "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja, Qwen-Qwen2.5-7B-Instruct.jinja, Qwen-Qwen3-0.6B.jinja; " + "vllm 0.33.0 sdist tests/entrypoints/tool_parsers/test_hermes_tool_parser.py"
def hm(name, args, ascii=False):
    return "<tool_call>\n" + J({"name": name, "arguments": args}, ascii) + "\n</tool_call>"
F = "hermes"
add(F, "single", SRC, hm(*W_BERLIN), [W_BERLIN])
add(F, "parallel_prose", SRC, "Einen Moment.\n" + hm(*W_MUC3) + "\n" + hm(*S_NESTED), [W_MUC3, S_NESTED], 0, "Einen Moment.")
add(F, "no_call_backticks", SRC, "Hermes-Modelle beginnen Aufrufe mit `<tool_call>`; hier ist keiner nötig.", [], 0, "Hermes-Modelle beginnen Aufrufe mit `<tool_call>`; hier ist keiner nötig.")
add(F, "qwen3_think_with_marker", SRC, "<think>\nI could output <tool_call>{\"name\": \"get_weather\"}</tool_call>, but it is not needed.\n</think>\n\nEs regnet nicht.", [], 0, "Es regnet nicht.", "I could output <tool_call>{\"name\": \"get_weather\"}</tool_call>, but it is not needed.")
add(F, "marker_in_arg", SRC, hm(*T_MARK("</tool_call>")), [T_MARK("</tool_call>")])
add(F, "unicode_escaped_empty", SRC, hm("get_weather", {"city": "Düsseldorf"}, ascii=True) + "\n" + hm("search_docs", {}), [("get_weather", {"city": "Düsseldorf"}), EMPTY])
add(F, "cut_off", SRC, "Ich prüfe das.\n<tool_call>\n{\"name\": \"create_ticket\", \"arguments\": {\"title\": \"Heiz", [], 1, "Ich prüfe das.", finish="length")
add(F, "garbage_body", SRC, "<tool_call>\nget_weather city=Berlin\n</tool_call>", [], 1)
add(F, "unknown_tool", SRC, hm("transfer_money", {"amount": 100}), [], 1)

# ---------------------------------------------------------------- Llama 3.1 JSON
SRC = TPL + "meta-llama-Llama-3.1-8B-Instruct.jinja, meta-llama-Llama-3.3-70B-Instruct.jinja; " + VT + "test_llama3_json_tool_parser.py"
def lj(name, args, ascii=False):
    return J({"name": name, "parameters": args}, ascii)
F = "llama3.1_json"
add(F, "python_tag_single", SRC, "<|python_tag|>" + lj(*W_BERLIN), [W_BERLIN])
add(F, "bare_json_single", SRC, lj(*W_MUC3), [W_MUC3])
add(F, "semicolon_parallel", SRC, "<|python_tag|>" + lj(*W_BERLIN) + "; " + lj(*S_NESTED), [W_BERLIN, S_NESTED])
add(F, "no_call_prose", SRC, "Mit Llama 3.1 beginnt ein Aufruf mit `<|python_tag|>`. Morgen wird es in Berlin sonnig.", [], 0, "Mit Llama 3.1 beginnt ein Aufruf mit `<|python_tag|>`. Morgen wird es in Berlin sonnig.")
add(F, "marker_in_arg", SRC, "<|python_tag|>" + lj(*T_MARK("<|python_tag|>")), [T_MARK("<|python_tag|>")])
add(F, "empty_params", SRC, lj("search_docs", {}), [EMPTY])
add(F, "cut_off", SRC, "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Kie", [], 1, None, finish="length")
add(F, "builtin_not_offered", SRC, "<|python_tag|>brave_search.call(query=\"Wetter Berlin\")", [], 1)

# ---------------------------------------------------------------- Llama 3.2 / 4 pythonic
SRC = TPL + "meta-llama-Llama-3.2-3B-Instruct.jinja; vllm 0.33.0 sdist rust/src/chat/tests/templates/vllm_examples/tool_chat_template_llama3.2_pythonic.jinja, tool_chat_template_llama4_pythonic.jinja; " + VT + "test_llama4_pythonic_tool_parser.py, test_pythonic_tool_parser.py"
F = "llama_pythonic"
add(F, "single", SRC, "[get_weather(city='Berlin')]", [W_BERLIN])
add(F, "parallel_typed", SRC, "[get_weather(city=\"München\", days=3, unit=\"c\"), create_ticket(title=\"Sturm\", priority=1, tags=[\"wetter\"])]",
    [W_MUC3, ("create_ticket", {"title": "Sturm", "priority": 1, "tags": ["wetter"]})])
add(F, "llama4_python_start_nested", SRC, "<|python_start|>[search_docs(query='Größe der Übergabe', filters={'lang': 'de', 'tags': ['api', 'ä'], 'since': {'year': 2024}}, limit=5)]<|python_end|>", [S_NESTED])
add(F, "no_args_and_literals", SRC, "[search_docs(), search_docs(query='x', filters={'exact': True, 'owner': None})]", [EMPTY, ("search_docs", {"query": "x", "filters": {"exact": True, "owner": None}})])
add(F, "no_call_brackets", SRC, "Die Vorhersage: [Mo 18 °C, Di 20 °C]. Mehr brauchst du nicht.", [], 0, "Die Vorhersage: [Mo 18 °C, Di 20 °C]. Mehr brauchst du nicht.")
add(F, "marker_in_arg", SRC, "[create_ticket(title=\"Parser bricht bei )] ab\", priority=2, tags=[\"parser\"])]", [("create_ticket", {"title": "Parser bricht bei )] ab", "priority": 2, "tags": ["parser"]})])
add(F, "cut_off", SRC, "[get_weather(city='Ros", [], 1, None, finish="length")
add(F, "unknown_tool", SRC, "[launch_rocket(target='moon')]", [], 1)

# ---------------------------------------------------------------- Mistral v3 / v11 / v13
SRC3 = TPL + "mistralai-Mistral-Nemo-Instruct-2407.jinja (v3 JSON list); vllm 0.33.0 sdist tests/parser/mistral/test_tool_calls.py"
SRC11 = TPL + "unsloth-mistral-Devstral-Small-2507.jinja, mistralai-Ministral-3-14B-Reasoning-2512.jinja (NAME[ARGS])"
SRC13 = TPL + "Mistral-Small-3.2-24B-Instruct-2506.jinja (NAME[CALL_ID]id[ARGS])"
F = "mistral"
add(F, "v3_list_single", SRC3, "[TOOL_CALLS][" + J({"name": "get_weather", "arguments": {"city": "Berlin"}, "id": "a1B2c3D4e"}) + "]", [W_BERLIN])
add(F, "v3_list_parallel_space", SRC3, "[TOOL_CALLS] [" + J({"name": "get_weather", "arguments": W_MUC3[1]}) + ", " + J({"arguments": S_NESTED[1], "name": "search_docs"}) + "]", [W_MUC3, S_NESTED])
add(F, "v11_single", SRC11, "[TOOL_CALLS]get_weather[ARGS]" + J({"city": "Berlin"}), [W_BERLIN])
add(F, "v11_parallel_prose", SRC11, "Ich erledige beides.[TOOL_CALLS]get_weather[ARGS]" + J(W_MUC3[1]) + "[TOOL_CALLS]create_ticket[ARGS]" + J({"title": "Föhn", "tags": []}),
    [W_MUC3, ("create_ticket", {"title": "Föhn", "tags": []})], 0, "Ich erledige beides.")
add(F, "v13_call_id", SRC13, "[TOOL_CALLS]get_weather[CALL_ID]Xy12Ab34c[ARGS]" + J({"city": "Köln", "days": 2}), [("get_weather", {"city": "Köln", "days": 2})])
add(F, "v13_call_id_parallel", SRC13, "[TOOL_CALLS]search_docs[CALL_ID]k9Lm3Np0q[ARGS]{}[TOOL_CALLS]get_weather[CALL_ID]Zz99Yy88x[ARGS]" + J({"city": "Berlin"}), [EMPTY, W_BERLIN])
add(F, "think_with_marker", SRC11, "[THINK]Maybe [TOOL_CALLS]get_weather[ARGS]{\"city\":\"Berlin\"}? No, I know it already.[/THINK]Es sind 19 °C.", [], 0, "Es sind 19 °C.", "Maybe [TOOL_CALLS]get_weather[ARGS]{\"city\":\"Berlin\"}? No, I know it already.")
add(F, "marker_in_arg", SRC11, "[TOOL_CALLS]create_ticket[ARGS]" + J(T_MARK("[TOOL_CALLS]x[ARGS]")[1]), [T_MARK("[TOOL_CALLS]x[ARGS]")])
add(F, "no_call_backticks", SRC11, "Mistral beginnt Aufrufe mit `[TOOL_CALLS]`, hier brauche ich keinen.", [], 0, "Mistral beginnt Aufrufe mit `[TOOL_CALLS]`, hier brauche ich keinen.")
add(F, "cut_off", SRC11, "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Main", [], 1, None, finish="length")
add(F, "garbage_body", SRC11, "[TOOL_CALLS]get_weather[ARGS]{city: Berlin, days: zwei}", [], 1)
add(F, "unknown_tool", SRC13, "[TOOL_CALLS]order_pizza[CALL_ID]Pz00Pz00p[ARGS]" + J({"size": "L"}), [], 1)

# ---------------------------------------------------------------- Cohere Command R7B / A
SRC = TPL + "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja, Cohere2MoE.jinja; vllm 0.33.0 sdist tests/parser/cohere/test_tool_calls.py"
def ca(*calls):
    return "<|START_ACTION|>[\n" + ",\n".join("    " + J({"tool_call_id": str(i), "tool_name": n, "parameters": a}, False) for i, (n, a) in enumerate(calls)) + "\n]<|END_ACTION|>"
F = "cohere"
add(F, "single_with_plan", SRC, "<|START_THINKING|>I will look up the weather in Berlin.<|END_THINKING|>" + ca(W_BERLIN), [W_BERLIN], 0, None, "I will look up the weather in Berlin.")
add(F, "parallel", SRC, "<|START_THINKING|>Wetter und Doku.<|END_THINKING|>" + ca(W_MUC3, S_NESTED), [W_MUC3, S_NESTED], 0, None, "Wetter und Doku.")
add(F, "response_no_call", SRC, "<|START_RESPONSE|>Cohere-Modelle schreiben Aufrufe nach `<|START_ACTION|>`. Heute kein Aufruf.<|END_RESPONSE|>", [], 0, "Cohere-Modelle schreiben Aufrufe nach `<|START_ACTION|>`. Heute kein Aufruf.")
add(F, "marker_in_thinking", SRC, "<|START_THINKING|>No need for <|START_ACTION|> here.<|END_THINKING|><|START_RESPONSE|>Es ist mild.<|END_RESPONSE|>", [], 0, "Es ist mild.", "No need for <|START_ACTION|> here.")
add(F, "marker_in_arg_empty", SRC, "<|START_THINKING|>Ticket.<|END_THINKING|>" + ca(T_MARK("<|END_ACTION|>"), EMPTY), [T_MARK("<|END_ACTION|>"), EMPTY], 0, None, "Ticket.")
add(F, "cut_off", SRC, "<|START_THINKING|>Wetter.<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Erf", [], 1, None, "Wetter.", finish="length")
add(F, "unknown_tool", SRC, "<|START_THINKING|>Web search.<|END_THINKING|>" + ca(("internet_search", {"query": "Berlin"})), [], 1, None, "Web search.")

# ---------------------------------------------------------------- MiniMax M1
SRC = TPL + "MiniMax-M1.jinja"
def m1(*calls):
    return "<tool_calls>\n" + "".join(J({"name": n, "arguments": a}, False) + "\n" for n, a in calls) + "</tool_calls>"
F = "minimax_m1"
add(F, "single_think", SRC, "<think>\nCall get_weather.\n</think>\n" + m1(W_BERLIN), [W_BERLIN], 0, None, "Call get_weather.")
add(F, "parallel", SRC, m1(W_MUC3, S_NESTED), [W_MUC3, S_NESTED])
add(F, "no_call_backticks", SRC, "<think>\nNo tool.\n</think>\nMiniMax-M1 listet Aufrufe zeilenweise in `<tool_calls>`.", [], 0, "MiniMax-M1 listet Aufrufe zeilenweise in `<tool_calls>`.", "No tool.")
add(F, "marker_in_arg_empty", SRC, m1(T_MARK("</tool_calls>"), EMPTY), [T_MARK("</tool_calls>"), EMPTY])
add(F, "cut_off", SRC, "<tool_calls>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Berlin\"}}\n{\"name\": \"create_ticket\", \"arguments\": {\"title\": \"Hag", [W_BERLIN], 1, None, finish="length")
add(F, "unknown_tool", SRC, m1(("shutdown", {})), [], 1)

# ---------------------------------------------------------------- MiniMax M2
SRC = TPL + "MiniMax-M2.jinja; " + VT + "test_minimax_m2_tool_parser.py"
def m2inv(name, params):
    return '<invoke name="%s">\n' % name + "".join('<parameter name="%s">%s</parameter>\n' % (k, v) for k, v in params) + "</invoke>\n"
def m2(*invs):
    return "<minimax:tool_call>\n" + "".join(invs) + "</minimax:tool_call>"
F = "minimax_m2"
add(F, "single_think", SRC, "<think>\nNeed weather.\n</think>\n\n" + m2(m2inv("get_weather", [("city", "Berlin")])), [W_BERLIN], 0, None, "Need weather.")
add(F, "parallel_typed", SRC, "Ich mache beides.\n" + m2(m2inv("get_weather", [("city", "München"), ("days", "3"), ("unit", "c")]), m2inv("create_ticket", [("title", "100"), ("priority", "3"), ("tags", J(["ä", "b"], ascii=False))])),
    [W_MUC3, ("create_ticket", {"title": "100", "priority": 3, "tags": ["ä", "b"]})], 0, "Ich mache beides.")
add(F, "nested_object", SRC, m2(m2inv("search_docs", [("query", "Größe der Übergabe"), ("filters", J(S_NESTED[1]["filters"], ascii=False)), ("limit", "5")])), [S_NESTED])
add(F, "think_with_marker", SRC, "<think>\nA <minimax:tool_call> is not needed.\n</think>\n\nKeine Aktion nötig.", [], 0, "Keine Aktion nötig.", "A <minimax:tool_call> is not needed.")
add(F, "no_params", SRC, m2('<invoke name="search_docs">\n</invoke>\n'), [EMPTY])
add(F, "cut_off", SRC, "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Wei", [], 1, None, finish="length")
add(F, "unknown_tool", SRC, m2(m2inv("format_disk", [("drive", "C")])), [], 1)

# ---------------------------------------------------------------- Step-3
SRC = VT + "test_step3_tool_parser.py (Step-3 steptml format)"
def s3inv(name, params, bare=False):
    return '<｜tool_call_begin｜>' + ('' if bare else 'function<｜tool_sep｜>') + '<steptml:invoke name="%s">' % name + "".join('<steptml:parameter name="%s">%s</steptml:parameter>' % (k, v) for k, v in params) + "</steptml:invoke><｜tool_call_end｜>"
def s3(*invs):
    return "<｜tool_calls_begin｜>" + "".join(invs) + "<｜tool_calls_end｜>"
F = "step3"
add(F, "single", SRC, s3(s3inv("get_weather", [("city", "Berlin")], bare=True)), [W_BERLIN])
add(F, "parallel_typed", SRC, s3(s3inv("get_weather", [("city", "München"), ("days", "3"), ("unit", "c")]), s3inv("create_ticket", [("title", "1"), ("priority", "5"), ("tags", "[]")])),
    [W_MUC3, ("create_ticket", {"title": "1", "priority": 5, "tags": []})])
add(F, "nested_think", SRC, "<think>Docs.</think>" + s3(s3inv("search_docs", [("query", "Größe der Übergabe"), ("filters", J(S_NESTED[1]["filters"], ascii=False)), ("limit", "5")])), [S_NESTED], 0, None, "Docs.")
add(F, "no_call", SRC, "Step-3 beginnt Aufrufe mit `<｜tool_calls_begin｜>`; hier genügt eine Antwort.", [], 0, "Step-3 beginnt Aufrufe mit `<｜tool_calls_begin｜>`; hier genügt eine Antwort.")
add(F, "cut_off", SRC, "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_weather\"><steptml:parameter name=\"city\">Ul", [], 1, None, finish="length")
add(F, "unknown_tool", SRC, s3(s3inv("get_time", [("timezone", "Europe/Berlin")])), [], 1)

# ---------------------------------------------------------------- Gemma 4
SRC = TPL + "google-gemma-4-31B-it.jinja"
Q = '<|"|>'
F = "gemma4"
add(F, "single", SRC, "<|tool_call>call:get_weather{city:%sBerlin%s}<tool_call|>" % (Q, Q), [W_BERLIN])
add(F, "parallel_typed", SRC, "<|tool_call>call:get_weather{city:%sMünchen%s,days:3,unit:%sc%s}<tool_call|><|tool_call>call:create_ticket{tags:[%swetter%s],title:%sSturm%s}<tool_call|>" % (Q, Q, Q, Q, Q, Q, Q, Q),
    [W_MUC3, ("create_ticket", {"title": "Sturm", "tags": ["wetter"]})])
add(F, "nested_thought", SRC, "<|channel>thought\nSearch docs with filters.\n<channel|><|tool_call>call:search_docs{filters:{lang:%sde%s,since:{year:2024},tags:[%sapi%s,%sä%s]},limit:5,query:%sGröße der Übergabe%s}<tool_call|>" % ((Q,) * 8),
    [S_NESTED], 0, None, "Search docs with filters.")
add(F, "no_call_backticks", SRC, "Gemma beginnt Aufrufe mit `<|tool_call>`; hier nicht nötig.", [], 0, "Gemma beginnt Aufrufe mit `<|tool_call>`; hier nicht nötig.")
add(F, "cut_off", SRC, "<|tool_call>call:get_weather{city:%sAach" % Q, [], 1, None, finish="length")
add(F, "unknown_tool", SRC, "<|tool_call>call:play_music{song:%sHey%s}<tool_call|>" % (Q, Q), [], 1)

# ---------------------------------------------------------------- plain answers, no call at all
F = "plain"
SRC = "no template markup (plain assistant prose)"
for v, t in [
    ("prose", "In Berlin sind es morgen 21 °C und es bleibt trocken."),
    ("json_answer_not_call", "Hier die Daten: {\"temperature\": 21, \"unit\": \"c\"}"),
    ("mentions_tool_names", "Ich könnte get_weather(city=\"Berlin\") aufrufen, aber du hast nur nach der Bedeutung von Föhn gefragt."),
    ("cut_off_prose", "Die Übergabe der Größe erfolgt in drei Schr"),
]:
    add(F, v, SRC, t, [], 0, t, finish="length" if v == "cut_off_prose" else "stop")

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "blind.jsonl")
ids = [c["id"] for c in cases]
assert len(ids) == len(set(ids))
with open(out, "w", encoding="utf-8") as f:
    for c in cases:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
from collections import Counter
for k, n in Counter(c["family"] for c in cases).items():
    print("%-18s %d" % (k, n))
print("total", len(cases))
