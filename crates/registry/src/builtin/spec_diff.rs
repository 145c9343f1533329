//! The diff kube appends to its long `Forbidden` messages (apimachinery's `diff.Diff`): a
//! unified line diff with three lines of context and no file headers, of the old and the
//! new value as one-space-indented JSON. Upstream marshals its internal Go types (Go field
//! names, every field); kapi renders the versioned JSON it holds, matches lines by longest
//! common subsequence rather than difflib's SequenceMatcher, and keeps at most
//! [`MAX_LINES`] lines, so only the text before the diff is upstream's byte for byte.

use serde_json::Value;
use serde_json::ser::{PrettyFormatter, Serializer};

/// The most lines of diff a message carries.
pub const MAX_LINES: usize = 40;

/// Lines of context around each change (difflib's `Context: 3`).
const CONTEXT: usize = 3;

/// Past this many line pairs the changed middle is shown as one replaced block.
const MAX_CELLS: usize = 1_000_000;

/// `json.MarshalIndent(v, "", " ")`: one space per level.
pub fn pretty(value: &Value) -> String {
    let mut out = Vec::new();
    let mut ser = Serializer::with_formatter(&mut out, PrettyFormatter::with_indent(b" "));
    match serde::Serialize::serialize(value, &mut ser) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => value.to_string(),
    }
}

/// The diff of `old` and `new` (`null` when absent) as upstream's messages carry it.
pub fn json_diff(old: Option<&Value>, new: Option<&Value>) -> String {
    let (a, b) = (
        pretty(old.unwrap_or(&Value::Null)),
        pretty(new.unwrap_or(&Value::Null)),
    );
    bounded(&unified_diff(&a, &b))
}

/// A unified diff of two texts, line by line, without headers (empty when equal).
pub fn unified_diff(a: &str, b: &str) -> String {
    let (a, b) = (split_lines(a), split_lines(b));
    let mut out = String::new();
    for group in grouped(opcodes(&a, &b)) {
        let (first, last) = (group[0], group[group.len() - 1]);
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(first.a.0, last.a.1),
            range(first.b.0, last.b.1)
        ));
        for op in &group {
            let (removed, added) = (&a[op.a.0..op.a.1], &b[op.b.0..op.b.1]);
            if op.equal {
                removed.iter().for_each(|l| out.push_str(&format!(" {l}")));
                continue;
            }
            removed.iter().for_each(|l| out.push_str(&format!("-{l}")));
            added.iter().for_each(|l| out.push_str(&format!("+{l}")));
        }
    }
    out
}

/// At most [`MAX_LINES`] lines of a diff, then how many were left out.
fn bounded(diff: &str) -> String {
    let total = diff.lines().count();
    if total <= MAX_LINES {
        return diff.to_owned();
    }
    let mut kept: String = diff.split_inclusive('\n').take(MAX_LINES).collect();
    kept.push_str(&format!("... ({} more lines)\n", total - MAX_LINES));
    kept
}

/// difflib's `SplitLines`: every line keeps its `\n`, the last one gets one.
fn split_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    match lines.last_mut() {
        Some(last) if !last.ends_with('\n') => last.push('\n'),
        None => lines.push("\n".to_owned()),
        _ => {}
    }
    lines
}

/// One run of a and b: equal lines, or lines of a replaced by lines of b.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Op {
    equal: bool,
    a: (usize, usize),
    b: (usize, usize),
}

/// The runs that turn `a` into `b`: common prefix and suffix, and a longest common
/// subsequence of the middle.
fn opcodes(a: &[String], b: &[String]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_end, b_end) = (a.len() - suffix, b.len() - suffix);
    let mut matches = vec![(0, 0, prefix)];
    matches.extend(
        common_lines(&a[prefix..a_end], &b[prefix..b_end])
            .into_iter()
            .map(|(i, j)| (prefix + i, prefix + j, 1)),
    );
    matches.push((a_end, b_end, suffix));
    let mut ops = Vec::new();
    let (mut i, mut j) = (0, 0);
    for (mi, mj, len) in matches {
        if i < mi || j < mj {
            ops.push(Op {
                equal: false,
                a: (i, mi),
                b: (j, mj),
            });
        }
        if len > 0 {
            match ops.last_mut() {
                Some(op) if op.equal && op.a.1 == mi && op.b.1 == mj => {
                    op.a.1 += len;
                    op.b.1 += len;
                }
                _ => ops.push(Op {
                    equal: true,
                    a: (mi, mi + len),
                    b: (mj, mj + len),
                }),
            }
        }
        (i, j) = (mi + len, mj + len);
    }
    ops
}

/// Index pairs of a longest common subsequence of two line lists (none past
/// [`MAX_CELLS`]).
fn common_lines(a: &[String], b: &[String]) -> Vec<(usize, usize)> {
    if a.is_empty() || b.is_empty() || a.len().saturating_mul(b.len()) > MAX_CELLS {
        return Vec::new();
    }
    let w = b.len() + 1;
    let mut len = vec![0u32; (a.len() + 1) * w];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            len[i * w + j] = if a[i] == b[j] {
                len[(i + 1) * w + j + 1] + 1
            } else {
                len[(i + 1) * w + j].max(len[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            out.push((i, j));
            (i, j) = (i + 1, j + 1);
        } else if len[(i + 1) * w + j] >= len[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// difflib's `GetGroupedOpCodes(3)`: hunks of changes with their context.
fn grouped(mut ops: Vec<Op>) -> Vec<Vec<Op>> {
    if ops.iter().all(|op| op.equal) {
        return Vec::new();
    }
    if let Some(first) = ops.first_mut().filter(|op| op.equal) {
        first.a.0 = first.a.0.max(first.a.1.saturating_sub(CONTEXT));
        first.b.0 = first.b.0.max(first.b.1.saturating_sub(CONTEXT));
    }
    if let Some(last) = ops.last_mut().filter(|op| op.equal) {
        last.a.1 = last.a.1.min(last.a.0 + CONTEXT);
        last.b.1 = last.b.1.min(last.b.0 + CONTEXT);
    }
    let mut groups = Vec::new();
    let mut group = Vec::new();
    for mut op in ops {
        if op.equal && op.a.1 - op.a.0 > 2 * CONTEXT {
            group.push(Op {
                equal: true,
                a: (op.a.0, op.a.0 + CONTEXT),
                b: (op.b.0, op.b.0 + CONTEXT),
            });
            groups.push(std::mem::take(&mut group));
            op.a.0 = op.a.1 - CONTEXT;
            op.b.0 = op.b.1 - CONTEXT;
        }
        group.push(op);
    }
    let only_context = group.len() == 1 && group[0].equal;
    if !group.is_empty() && !only_context {
        groups.push(group);
    }
    groups
}

/// difflib's `formatRangeUnified`.
fn range(start: usize, stop: usize) -> String {
    let length = stop - start;
    match length {
        1 => format!("{}", start + 1),
        0 => format!("{start},0"),
        _ => format!("{},{length}", start + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_is_indented_by_one_space_as_marshal_indent() {
        assert_eq!(
            pretty(&json!({"a": [1], "b": {}})),
            "{\n \"a\": [\n  1\n ],\n \"b\": {}\n}"
        );
    }

    #[test]
    fn a_changed_line_is_a_hunk_with_three_lines_of_context() {
        let a = "1\n2\n3\n4\n5\n6\n7\n8\n9";
        let b = "1\n2\n3\n4\nfive\n6\n7\n8\n9";
        assert_eq!(
            unified_diff(a, b),
            "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }

    #[test]
    fn ranges_of_one_line_and_of_none_follow_difflib() {
        assert_eq!(unified_diff("a", "b"), "@@ -1 +1 @@\n-a\n+b\n");
        assert_eq!(unified_diff("a", "a\nb"), "@@ -1 +1,2 @@\n a\n+b\n");
        assert_eq!(unified_diff("a\nb", "b"), "@@ -1,2 +1 @@\n-a\n b\n");
    }

    #[test]
    fn distant_changes_make_separate_hunks() {
        let a: Vec<String> = (0..20).map(|i| i.to_string()).collect();
        let mut b = a.clone();
        b[1] = "x".into();
        b[18] = "y".into();
        let diff = unified_diff(&a.join("\n"), &b.join("\n"));
        assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
    }

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(unified_diff("a\nb", "a\nb"), "");
    }

    #[test]
    fn a_long_diff_is_cut_after_forty_lines() {
        let old = json!((0..100).collect::<Vec<_>>());
        let new = json!((0..100).map(|i| i * 2).collect::<Vec<_>>());
        let diff = json_diff(Some(&old), Some(&new));
        assert_eq!(diff.lines().count(), MAX_LINES + 1);
        assert!(diff.ends_with("more lines)\n"), "{diff}");
    }
}
