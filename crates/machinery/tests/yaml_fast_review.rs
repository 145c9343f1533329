//! Review of the YAML fast path (`serializer::yaml_fast`, used by `yaml_to_value`): for each
//! document it must give the general path's value or error. The general path is serde-saphyr
//! with the serializer's options, called here directly.

use kapi_machinery::serializer::yaml::yaml_to_value;
use serde_saphyr::{DuplicateKeyPolicy, Options};

/// The general path of `yaml_to_value` (serde-saphyr alone, same options, same error text).
fn general(doc: &str) -> Result<serde_json::Value, String> {
    let mut options = Options::default();
    options.duplicate_keys = DuplicateKeyPolicy::PassThrough;
    options.legacy_octal_numbers = true;
    if let Some(budget) = options.budget.as_mut() {
        budget.max_depth = 64;
    }
    serde_saphyr::from_slice_multiple_with_options::<serde_json::Value>(doc.as_bytes(), options)
        .map(|docs| docs.into_iter().next().unwrap_or(serde_json::Value::Null))
        .map_err(|e| format!("error converting YAML to JSON: {e}"))
}

fn fast(doc: &str) -> Result<serde_json::Value, String> {
    yaml_to_value(doc.as_bytes()).map_err(|e| e.to_string())
}

fn assert_same(doc: &str) {
    assert_eq!(fast(doc), general(doc), "document: {doc:?}");
}

/// A leading BOM sends `yaml_to_value` down its own general path: the helper above agrees.
#[test]
fn the_general_helper_is_the_serializers_own_general_path() {
    for doc in ["a: ---\n", "a: 1\n\n  2\n", "null: a\n", "a: --- x\n"] {
        assert_eq!(fast(&format!("\u{feff}{doc}")), general(doc), "{doc:?}");
    }
}

#[test]
fn yaml_1_1_words_numbers_and_nulls_resolve_like_the_general_path() {
    assert_same("a: Inf\nb: INF\nc: NAN\nd: Nan\ne: y\nf: N\ng: On\nh: nULL\ni: ~\nj:\n");
    assert_same("a: +1\nb: .5\nc: 1.\nd: 0o17\ne: 0b1\nf: -0\ng: 00\nh: +0x1\ni: 08\nj: 0009\n");
    assert_same("a: 999999999999999999\nb: 9223372036854775807\nc: 9223372036854775808\n");
    assert_same("a: 1:20\nb: 0x\nc: 1e\nd: -.5e-3\ne: 2001-12-14t21:59:43.10-05:00\n");
}

#[test]
fn plain_words_with_leading_dashes_or_indicators_resolve_like_the_general_path() {
    assert_same("a: ----\nb: -- x\nc: ... x\nd: :x\ne: ?x\nf: 1 - 2\ng: 1#c\n");
}

#[test]
fn keys_that_are_yaml_1_1_words_or_quoted_merge_keys_read_like_the_general_path() {
    assert_same("y: a\non: b\noff: c\nYes: 1\ninf: 2\n'null': 3\n");
    assert_same("\"<<\": {a: 1}\n");
    assert_same("? a\n: 1\n");
}

#[test]
fn block_scalars_with_chomping_and_single_line_folding_read_like_the_general_path() {
    assert_same("a: |+\n  x\n\nb: 1\n");
    assert_same("a: >-\n  x\n  y\n");
    assert_same("a: >\n  1\n");
    assert_same("a: 1\n  b\n");
    assert_same("a: 12\n  34\n");
    assert_same("a: x\n\n  2\n");
    assert_same("a: 1\n\n  ... 2\n");
}

#[test]
fn document_markers_comments_and_empty_streams_read_like_the_general_path() {
    for doc in [
        "a: 1\n...\n",
        "a: 1\n...\n---\nb: 2\n",
        "a: 1\n---\n",
        "--- a\n",
        "---\n",
        "",
        "# only\n",
        "a: b\n# c\n",
        "a: 1 # c\n",
        "%YAML 1.2\n---\na: yes\n",
    ] {
        assert_same(doc);
    }
}

#[test]
fn tabs_escapes_and_non_ascii_read_like_the_general_path() {
    assert_same("a: b\tc\n");
    assert_same("a:\tb\n");
    assert_same("a: \"\\u00e9\\x41\\/\"\n");
    assert_same("a: \"\\0\"\n");
    assert_same("a: \u{a0}1\nb: é\né: 1\n");
}

#[test]
fn repeated_keys_keep_the_last_value_like_the_general_path() {
    assert_same("a: 1\na: {b: 2}\n");
    assert_same("a: {b: 1, b: 2}\n");
}

#[test]
fn syntax_errors_have_the_general_paths_text() {
    for doc in [
        "a: '\u{1}'\n",
        "a: :\n",
        "[-]\n",
        "{a: -}\n",
        "a: -1\nb: - 1\n",
    ] {
        assert!(fast(doc).is_err(), "{doc:?}");
        assert_same(doc);
    }
}

#[test]
fn flow_collections_read_like_the_general_path() {
    assert_same("x: [1, 2,]\n");
    assert_same("[1\n\n  , 2]\n");
    assert_same("a:\n  - b: 1\n    c: 2\n  - d\n");
}

// Divergences: the fast path resolves a non-letter plain scalar by parsing its (already
// folded) text again as a whole document (`resolve_plain_scalar`), which re-reads document
// markers and re-folds the line breaks that blank lines left in it.

#[test]
fn plain_scalar_starting_with_a_document_marker_stays_text() {
    assert_same("a: --- x\n");
    assert_same("- --- x\n");
    assert_same("[--- x]\n");
    assert_same("{a: --- x}\n");
    assert_same("--- --- x\n");
}

#[test]
fn plain_scalar_that_is_a_document_marker_stays_text() {
    assert_same("a: ---\n");
    assert_same("a: ...\n");
    assert_same("a: --- #c\n");
    assert_same("- ...\n");
    assert_same("[---]\n");
    assert_same("{a: ...}\n");
    assert_same("--- ...\n");
}

#[test]
fn multi_line_plain_scalar_keeps_the_line_break_of_a_blank_line() {
    assert_same("a: 1\n\n  2\n");
    assert_same("a: 1\r\n\r\n  2\r\n");
    assert_same("- 1\n\n  2\n");
    assert_same("{a: 1\n\n 2}\n");
    assert_same("a: 1\n\n\n  2\n");
}

#[test]
fn multi_line_plain_scalar_with_a_later_document_marker_stays_text() {
    assert_same("a: 1\n\n  --- 2\n");
    assert_same("a: ---\n\n  x\n");
}

#[test]
fn plain_null_word_keys_are_refused_like_the_general_path() {
    assert_same("null: a\n");
    assert_same("Null: a\n");
    assert_same("NULL: a\n");
    assert_same("{null: a}\n");
}

/// Plain scalars the YAML 1.1 rules treat specially, or nearly so.
const TRICKY_SCALARS: &[&str] = &[
    "y",
    "Y",
    "yes",
    "No",
    "ON",
    "oFF",
    "true",
    "False",
    "nUll",
    "~",
    "0",
    "00",
    "007",
    "0755",
    "08",
    "0x1F",
    "0X1F",
    "0o17",
    "0O17",
    "0b101",
    "0B1",
    "+0b1",
    "-0b1",
    "1_000",
    "1__0",
    "_1",
    "1_",
    "+1",
    "-1",
    "+-1",
    "1e3",
    "1E3",
    "1e+3",
    "1e-3",
    ".5",
    "5.",
    "+.5",
    "-.5",
    ".",
    "..",
    "....",
    "-",
    "--",
    "----",
    "-- -",
    ".inf",
    ".Inf",
    ".INF",
    "+.inf",
    "-.inf",
    ".nan",
    ".NaN",
    ".NAN",
    "inf",
    "nan",
    "1:30",
    "1:30:00",
    "-1:30",
    "190:20:30.15",
    "2001-12-14",
    "2001-12-14 21:59:43.10 -5",
    "12345678901234567890",
    "123456789012345678",
    "1234567890123456789",
    "-9223372036854775808",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "0.1e1",
    "1.0",
    "1.",
    "0.",
    "-0",
    "-0.0",
    "+0",
    "0e0",
    "1e400",
    "-1e400",
    "a b",
    "1 2",
    "1 #x",
    "%x",
    "@x",
    "`x",
    "a:b",
    "1:b",
    "?x",
    ":x",
    "=",
    "<<",
    "<",
    "<<<",
    "é",
    "ü1",
    "\u{a0}",
    "1\u{a0}",
    "x\\y",
    "'x'",
    "\"x\"",
    "x'",
    "1'",
    "#",
    "a#b",
    "!",
    "&",
    "*",
    "|",
    ">",
    "1 - 2",
    "... x",
    "---x",
    "...x",
    "-\tx",
    "TRUE",
    "tRUE",
    "Off",
    "n",
    "N",
    "o",
    "0.0.0",
    "1.2.3",
    "v1",
    "1v",
    "0xg",
    "0x",
    "0o",
    "0b",
    "0b2",
    "0o8",
    "09",
    "0_9",
    "1e",
    "e1",
    "E",
    "1.5e",
    "1..5",
];

/// Every tricky scalar as a value, a sequence item, a flow item, a key, a root and a single-line
/// continuation (the divergent forms, document markers, null-word keys and blank-line
/// continuations, are pinned by the ignored tests above).
#[test]
fn tricky_plain_scalars_in_every_single_line_position_read_like_the_general_path() {
    for t in TRICKY_SCALARS {
        for doc in [
            format!("a: {t}\n"),
            format!("- {t}\n"),
            format!("[{t}]\n"),
            format!("{{a: {t}}}\n"),
            format!("{t}: 1\n"),
            format!("{{{t}: 1}}\n"),
            format!("a: {t}\n  {t}\n"),
            format!("a: x\n  {t}\n"),
            format!("--- {t}\n"),
            format!("{t}\n"),
        ] {
            assert_same(&doc);
        }
    }
}

#[test]
fn nesting_around_the_depth_limit_reads_like_the_general_path() {
    for depth in 58..=68 {
        assert_same(&format!("{}1{}", "[".repeat(depth), "]".repeat(depth)));
        assert_same(&format!("{}1{}", "{a: ".repeat(depth), "}".repeat(depth)));
        let block: String = (0..depth)
            .map(|i| format!("{}k:\n", " ".repeat(i)))
            .collect();
        assert_same(&format!("{block}{}v\n", " ".repeat(depth)));
    }
}

#[test]
fn a_bom_and_crlf_line_ends_read_like_the_general_path() {
    assert_same("\u{feff}a: 1\n");
    assert_same("a: 1\r\nb:\r\n  - x\r\n");
}
