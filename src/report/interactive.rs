//! What makes `report.html` interactive, with scripting on: a hover and click target over
//! every point of the plots, the data of every (method, threshold)'s listed errors, and the
//! script that shows a point's values on hover and its errors on click.
//!
//! With scripting off the page stays whole: each target carries an SVG `<title>` (the
//! browser's own tooltip), the static error analysis of every best threshold is HTML, and
//! the data block is inert JSON. Everything is inline; nothing is fetched.
//!
//! The script also reads the address's fragment, `&`-separated parts `pick=METHOD@T` (show
//! that run's errors), `hover=METHOD@T` (show that point's tooltip) and `focus=ID` (hide what
//! comes before element ID), so a headless browser, which cannot scroll before its
//! screenshot, can render those states (`eval/report_screenshot.sh`).
//!
//! Invariant: the JSON holds no `<` (written as `\u003c`), so it cannot close its element.

use std::fmt::Write as _;

use crate::explain::render::esc;

use super::charts::Chart;
use super::errors::ErrorAnalysis;
use super::SweepRow;

/// The chart's SVG with a target over every point: a transparent circle carrying the
/// method and threshold (`data-m`, `data-t`) and a `<title>` with the run's values.
pub fn with_targets(chart: &Chart, rows: &[SweepRow]) -> String {
    let svg = chart.svg.trim();
    let Some(end) = svg.rfind("</svg>") else {
        return svg.to_string();
    };
    let mut g = String::from("<g class=\"fd-hits\">");
    for p in &chart.points {
        let Some(r) = rows
            .iter()
            .find(|r| r.method == p.method && r.threshold == p.threshold)
        else {
            continue;
        };
        let mut title = format!(
            "{} at {}: F1 {:.4}, precision {:.4}, recall {:.4}; found {}, common {}, truth {}",
            r.method, r.threshold, r.f1, r.precision, r.recall, r.found, r.common, r.truth_pairs,
        );
        if let Some((lo, hi)) = r.seconds_range() {
            let _ = write!(title, "; {lo:.4}");
            if hi > lo {
                let _ = write!(title, "-{hi:.4}");
            }
            let _ = write!(title, " s");
        }
        if let Some((lo, hi)) = r.peak_range() {
            let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
            let _ = write!(title, ", {:.1}", mib(lo));
            if hi > lo {
                let _ = write!(title, "-{:.1}", mib(hi));
            }
            let _ = write!(title, " MiB");
        }
        if let Some(n) = r.repeats {
            let _ = write!(title, " ({n} runs)");
        }
        let _ = write!(
            g,
            "<circle cx=\"{}\" cy=\"{}\" r=\"7\" data-m=\"{}\" data-t=\"{}\"><title>{}</title></circle>",
            p.px,
            p.py,
            esc(&p.method),
            p.threshold,
            esc(&title)
        );
    }
    g.push_str("</g>");
    format!("{}{}{}", &svg[..end], g, &svg[end..])
}

/// The errors of every run, their pair views and documents, as an inert JSON block.
pub fn data_script(rows: &[SweepRow], errors: &ErrorAnalysis) -> String {
    let runs: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| serde_json::json!([r.method, r.threshold, r.unique_ours, r.unique_truth]))
        .collect();
    let list: Vec<serde_json::Value> = errors
        .errors
        .iter()
        .map(|e| {
            serde_json::json!([
                e.method,
                e.threshold,
                e.kind.name(),
                e.a,
                e.b,
                e.exact,
                e.estimate,
                e.score,
                e.shared,
                (e.view < errors.views.len()).then_some(e.view)
            ])
        })
        .collect();
    let data = serde_json::json!({
        "runs": runs,
        "errors": list,
        "views": errors.views.iter().map(|v| serde_json::json!([v.a, v.b, v.passages_a, v.passages_b])).collect::<Vec<_>>(),
        "docs": errors.docs.iter().map(|d| serde_json::json!([d.id, d.text])).collect::<Vec<_>>(),
    });
    let json = data.to_string().replace('<', "\\u003c");
    format!("<script type=\"application/json\" id=\"fd-data\">{json}</script>\n")
}

/// The page's script (plain ES5-level DOM code; builds nodes with `textContent`, never
/// parses text as HTML).
pub const SCRIPT: &str = r#"<script>
(function () {
  'use strict';
  var data = null, el = document.getElementById('fd-data');
  if (el) { try { data = JSON.parse(el.textContent); } catch (e) { data = null; } }
  var tip = document.createElement('div');
  tip.id = 'fd-tip'; tip.hidden = true; document.body.appendChild(tip);
  var enc = new TextEncoder(), dec = new TextDecoder();
  function num(v) { return (v === null || v === undefined || !isFinite(v)) ? '-' : Number(v).toFixed(4); }
  function node(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) { n.className = cls; }
    if (text !== undefined) { n.textContent = text; }
    return n;
  }
  function highlighted(text, ranges) {
    var p = node('p'), bytes = enc.encode(text), at = 0;
    ranges.forEach(function (r) {
      if (r[0] > at) { p.appendChild(document.createTextNode(dec.decode(bytes.subarray(at, r[0])))); }
      p.appendChild(node('mark', 'fd-shared', dec.decode(bytes.subarray(r[0], r[1]))));
      at = r[1];
    });
    if (at < bytes.length) { p.appendChild(document.createTextNode(dec.decode(bytes.subarray(at)))); }
    return p;
  }
  function errorNode(e) {
    var d = node('details', 'fd-err'), s = node('summary');
    s.appendChild(node('span', 'fd-kind ' + e[2], e[2].replace('-', ' ')));
    s.appendChild(document.createTextNode(' '));
    s.appendChild(node('code', null, e[3]));
    s.appendChild(document.createTextNode(' \u00d7 '));
    s.appendChild(node('code', null, e[4]));
    s.appendChild(document.createTextNode(' \u2014 exact ' + num(e[5]) + ', estimate ' + num(e[6]) +
      ', score ' + num(e[7]) + ', shared ' + (e[8] === null ? '-' : e[8])));
    d.appendChild(s);
    var v = e[9] === null ? null : data.views[e[9]];
    if (v) {
      var cols = node('div', 'fd-cols');
      [[v[0], v[2]], [v[1], v[3]]].forEach(function (side) {
        var doc = data.docs[side[0]], col = node('div', 'fd-col');
        col.appendChild(node('h4', null, doc[0]));
        col.appendChild(highlighted(doc[1], side[1]));
        cols.appendChild(col);
      });
      d.appendChild(cols);
    } else {
      d.appendChild(node('p', 'note', 'A document of this pair is not in the corpus.'));
    }
    return d;
  }
  function targets(m, t) {
    return Array.prototype.filter.call(document.querySelectorAll('.fd-hits circle'), function (c) {
      return c.getAttribute('data-m') === m && parseFloat(c.getAttribute('data-t')) === t;
    });
  }
  function pick(m, t) {
    var box = document.getElementById('fd-picked');
    if (!data || !box) { return; }
    Array.prototype.forEach.call(document.querySelectorAll('.fd-hits circle.fd-on'), function (c) { c.classList.remove('fd-on'); });
    targets(m, t).forEach(function (c) { c.classList.add('fd-on'); });
    var run = data.runs.filter(function (r) { return r[0] === m && r[1] === t; })[0];
    var list = data.errors.filter(function (e) { return e[0] === m && e[1] === t; });
    box.textContent = '';
    box.appendChild(node('h3', null, m + ' at ' + t + ' (picked in a plot)'));
    var fp = list.filter(function (e) { return e[2] === 'false-positive'; }).length;
    box.appendChild(node('p', 'note', (run ? run[2] : '?') + ' false positives (listed ' + fp + '), ' +
      (run ? run[3] : '?') + ' misses (listed ' + (list.length - fp) + ').'));
    list.forEach(function (e, i) {
      var d = errorNode(e);
      if (i === 0) { d.open = true; }
      box.appendChild(d);
    });
    box.hidden = false;
  }
  function show(c) {
    var t = c.querySelector('title'), r = c.getBoundingClientRect();
    tip.textContent = t ? t.textContent : '';
    tip.style.left = (r.right + window.scrollX + 6) + 'px';
    tip.style.top = (r.top + window.scrollY - 30) + 'px';
    tip.hidden = false;
  }
  Array.prototype.forEach.call(document.querySelectorAll('.fd-hits circle'), function (c) {
    c.addEventListener('mouseenter', function () { show(c); });
    c.addEventListener('mouseleave', function () { tip.hidden = true; });
    c.addEventListener('click', function () {
      pick(c.getAttribute('data-m'), parseFloat(c.getAttribute('data-t')));
      var box = document.getElementById('fd-picked');
      if (box && !box.hidden) { box.scrollIntoView({behavior: 'smooth', block: 'start'}); }
    });
  });
  // The fragment: `&`-separated parts pick=METHOD@T, hover=METHOD@T, focus=ID (hide what
  // comes before element ID, so that a headless browser's screenshot starts there).
  var focus = null;
  decodeURIComponent(location.hash.slice(1)).split('&').forEach(function (part) {
    var f = /^focus=(.+)$/.exec(part);
    if (f) { focus = document.getElementById(f[1]); }
  });
  if (focus) {
    for (var n = document.body.firstElementChild; n && n !== focus; n = n.nextElementSibling) {
      n.style.display = 'none';
    }
  }
  decodeURIComponent(location.hash.slice(1)).split('&').forEach(function (part) {
    var mm = /^(pick|hover)=(.+)@([^@]+)$/.exec(part);
    if (!mm) { return; }
    var m = mm[2], t = parseFloat(mm[3]);
    if (mm[1] === 'pick') {
      pick(m, t);
      var box = document.getElementById('fd-picked');
      if (box && !box.hidden && !focus) { box.scrollIntoView({block: 'start'}); }
    } else {
      var c = targets(m, t)[0];
      if (c) {
        if (!focus) { c.scrollIntoView({block: 'center'}); }
        c.classList.add('fd-on');
        show(c);
      }
    }
  });
})();
</script>
"#;
