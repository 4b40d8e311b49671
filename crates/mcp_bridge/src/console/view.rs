//! What the console's pages compute outside the database, without I/O: the entities of an
//! analysis as segments of the question text, and the geometry of the SVG charts. Neither
//! produces markup: the templates render both, so every text goes through the templating
//! engine's HTML escaping like every other field.

use serde_json::{json, Value};

/// The question split into segments, each either plain text or one entity (by its index in
/// `spans`). Offsets are characters (start inclusive, end exclusive), as mcp.analyze gives
/// them; a span that overlaps an earlier one, is empty or lies outside the text is left out.
pub fn highlight(text: &str, spans: &[(usize, usize)]) -> Vec<(String, Option<usize>)> {
    let chars: Vec<char> = text.chars().collect();
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| (spans[i].0, std::cmp::Reverse(spans[i].1)));
    let mut out = Vec::new();
    let mut at = 0usize;
    for i in order {
        let (s, e) = spans[i];
        if s < at || e <= s || e > chars.len() {
            continue;
        }
        if s > at {
            out.push((chars[at..s].iter().collect(), None));
        }
        out.push((chars[s..e].iter().collect(), Some(i)));
        at = e;
    }
    if at < chars.len() {
        out.push((chars[at..].iter().collect(), None));
    }
    out
}

/// A CSS class for a value shown in a chart: `prefix-` and the value when it is a plain word
/// (a run status: `s-completed`), else `prefix-other`.
pub fn class_of(prefix: &str, v: &str) -> String {
    if !v.is_empty() && v.len() <= 32 && v.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
        format!("{prefix}-{v}")
    } else {
        format!("{prefix}-other")
    }
}

/// Chart size (the SVG's viewBox; CSS scales it to the page width).
const W: f64 = 640.0;
const H: f64 = 220.0;
const LEFT: f64 = 48.0;
const BOTTOM: f64 = 36.0;
const TOP: f64 = 12.0;

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// A compact number for an axis label (1.2k, 3.4M).
pub fn compact(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else if a.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The geometry of a bar chart: one group per x value (a day), one bar per series in it,
/// stacked or side by side. `groups` are (x label, [(series, value)]) in display order;
/// `classes` names each series' CSS class. Returns {width, height, bars: [{x, y, w, h, class,
/// title}], xlabels: [{x, y, text}], ylabels: [{x, y, text}], legend: [{class, label}]}, for the
/// template to draw.
pub fn bar_chart(
    groups: &[(String, Vec<(String, f64)>)],
    stacked: bool,
    class: &dyn Fn(&str, usize) -> String,
) -> Value {
    let mut series: Vec<String> = Vec::new();
    for (_, vals) in groups {
        for (s, _) in vals {
            if !series.contains(s) {
                series.push(s.clone());
            }
        }
    }
    let max = groups
        .iter()
        .map(|(_, vals)| {
            if stacked {
                vals.iter().map(|(_, v)| v.max(0.0)).sum::<f64>()
            } else {
                vals.iter().map(|(_, v)| v.max(0.0)).fold(0.0, f64::max)
            }
        })
        .fold(0.0, f64::max);
    let max = if max > 0.0 { max } else { 1.0 };
    let plot_w = W - LEFT - 8.0;
    let plot_h = H - TOP - BOTTOM;
    let n = groups.len().max(1) as f64;
    let slot = plot_w / n;
    let bar_w = slot * 0.8;
    let mut bars = Vec::new();
    let mut xlabels = Vec::new();
    let label_every = (groups.len() / 8).max(1);
    for (gi, (x, vals)) in groups.iter().enumerate() {
        let gx = LEFT + slot * gi as f64 + slot * 0.1;
        let mut base = 0.0;
        for (s, v) in vals {
            let v = v.max(0.0);
            let si = series.iter().position(|x| x == s).unwrap_or(0);
            let h = v / max * plot_h;
            let (bx, bw, by) = if stacked {
                (gx, bar_w, TOP + plot_h - base - h)
            } else {
                let w = bar_w / series.len().max(1) as f64;
                (gx + w * si as f64, w, TOP + plot_h - h)
            };
            if stacked {
                base += h;
            }
            bars.push(json!({
                "x": round1(bx), "y": round1(by), "w": round1(bw.max(1.0)), "h": round1(h),
                "class": class(s, si), "title": format!("{x} · {s}: {}", compact(v)),
            }));
        }
        if gi % label_every == 0 {
            xlabels.push(json!({"x": round1(gx + bar_w / 2.0), "y": H - BOTTOM + 16.0, "text": x}));
        }
    }
    let ylabels: Vec<Value> = [0.0, 0.5, 1.0]
        .iter()
        .map(|f| json!({"x": LEFT - 6.0, "y": round1(TOP + plot_h * (1.0 - f) + 4.0), "text": compact(max * f)}))
        .collect();
    let legend: Vec<Value> = series
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"class": class(s, i), "label": s}))
        .collect();
    json!({
        "width": W, "height": H, "bars": bars, "xlabels": xlabels, "ylabels": ylabels,
        "legend": legend, "axis_y": TOP + plot_h, "axis_x0": LEFT, "axis_x1": W - 8.0,
        "empty": groups.is_empty(),
    })
}

/// Rows (x, series, value), ordered by x, as the groups of [`bar_chart`].
pub fn group_rows(rows: &[(String, String, f64)]) -> Vec<(String, Vec<(String, f64)>)> {
    let mut out: Vec<(String, Vec<(String, f64)>)> = Vec::new();
    for (x, s, v) in rows {
        match out.last_mut() {
            Some((lx, vals)) if lx == x => vals.push((s.clone(), *v)),
            _ => out.push((x.clone(), vec![(s.clone(), *v)])),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_become_segments() {
        let t = "Urlaub in Bayern für Einzelhandel";
        let segs = highlight(t, &[(21, 33), (10, 16)]);
        assert_eq!(
            segs,
            vec![
                ("Urlaub in ".to_string(), None),
                ("Bayern".to_string(), Some(1)),
                (" für ".to_string(), None),
                ("Einzelhandel".to_string(), Some(0)),
            ]
        );
        // characters, not bytes: "für" holds a two-byte letter
        let segs = highlight("für Bayern", &[(4, 10)]);
        assert_eq!(segs[1], ("Bayern".to_string(), Some(0)));
        // overlapping, empty and out-of-range spans are left out; the text is kept whole
        let segs = highlight("abcdef", &[(0, 3), (2, 4), (5, 5), (4, 99)]);
        assert_eq!(segs, vec![("abc".into(), Some(0)), ("def".into(), None)]);
        assert_eq!(highlight("", &[]), vec![]);
    }

    #[test]
    fn chart_geometry() {
        let groups = group_rows(&[
            ("11-30".into(), "completed".into(), 3.0),
            ("11-30".into(), "failed".into(), 1.0),
            ("12-01".into(), "completed".into(), 2.0),
        ]);
        assert_eq!(groups.len(), 2);
        let c = bar_chart(&groups, true, &|s, _| class_of("s", s));
        let bars = c["bars"].as_array().unwrap();
        assert_eq!(bars.len(), 3);
        // the tallest stack fills the plot; stacked bars sit on each other
        let (b0, b1) = (&bars[0], &bars[1]);
        let plot_h = H - TOP - BOTTOM;
        assert!((b0["h"].as_f64().unwrap() + b1["h"].as_f64().unwrap() - plot_h).abs() < 0.3);
        assert!(
            (b1["y"].as_f64().unwrap() + b1["h"].as_f64().unwrap() - b0["y"].as_f64().unwrap())
                .abs()
                < 0.3
        );
        assert_eq!(b1["class"], "s-failed");
        assert_eq!(c["legend"].as_array().unwrap().len(), 2);
        // side by side: bars of one group do not overlap
        let c = bar_chart(&groups, false, &|_, i| format!("c{i}"));
        let bars = c["bars"].as_array().unwrap();
        assert!(
            bars[1]["x"].as_f64().unwrap()
                >= bars[0]["x"].as_f64().unwrap() + bars[0]["w"].as_f64().unwrap() - 0.2
        );
        assert!(bar_chart(&[], true, &|_, _| String::new())["empty"]
            .as_bool()
            .unwrap());
        assert_eq!(class_of("s", "<script>"), "s-other");
        assert_eq!(compact(1234.0), "1.2k");
        assert_eq!(compact(12.0), "12");
    }
}
