//! The Kubernetes CEL libraries available to `x-kubernetes-validations` through kube-cel
//! (R6.19). What is missing is listed in docs/apiextensions.md.

use kapi_apiextensions::Structural;
use kapi_apiextensions::cel::CelValidator;
use kapi_apiextensions::structural::ValidationRule;
use serde_json::json;

fn assert_all_true(exprs: &[&str]) {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "s": {"type": "string"}, "l": {"type": "array", "items": {"type": "integer"}},
        "m": {"type": "object", "additionalProperties": {"type": "string"}},
        "t": {"type": "string", "format": "date-time"}, "d": {"type": "string", "format": "duration"},
        "ios": {"x-kubernetes-int-or-string": true}}}}});
    let base = Structural::from_json(&schema).unwrap();
    let obj = json!({"spec": {"s": "abc", "l": [1, 2, 3], "m": {"a": "x"}, "t": "2026-01-01T00:00:00Z", "d": "5s", "ios": 80}});
    for e in exprs {
        let mut s = base.clone();
        if let Some(spec) = s.properties.get_mut("spec") {
            spec.validations = vec![ValidationRule {
                rule: (*e).to_string(),
                ..ValidationRule::default()
            }];
        }
        let errs = CelValidator::new(&s).validate(&obj, None);
        assert!(errs.is_empty(), "{e}: {errs:?}");
    }
}

#[test]
fn cel_strings_library_works() {
    assert_all_true(&[
        "self.s.charAt(0) == 'a'",
        "self.s.indexOf('b') == 1",
        "self.s.lowerAscii() == 'abc'",
        "self.s.upperAscii() == 'ABC'",
        "self.s.replace('a', 'x') == 'xbc'",
        "self.s.split('b').size() == 2",
        "self.s.substring(1) == 'bc'",
        "self.s.trim() == 'abc'",
        "['a', 'b'].join('-') == 'a-b'",
        "'%s-%d'.format(['a', 1]) == 'a-1'",
        "self.s.reverse() == 'cba'",
        "strings.quote('a') == '\"a\"'",
    ]);
}

#[test]
fn cel_lists_and_sets_libraries_work() {
    assert_all_true(&[
        "self.l.isSorted()",
        "self.l.sum() == 6",
        "self.l.min() == 1",
        "self.l.max() == 3",
        "self.l.indexOf(2) == 1",
        "self.l.lastIndexOf(2) == 1",
        "[1, 2].distinct() == [1, 2]",
        "[[1], [2]].flatten() == [1, 2]",
        "lists.range(3) == [0, 1, 2]",
        "[3, 1].sort() == [1, 3]",
        "[1, 2, 3].slice(1, 2) == [2]",
        "sets.contains([1, 2, 3], [1])",
        "sets.equivalent([1, 2], [2, 1])",
        "sets.intersects([1], [1, 2])",
    ]);
}

#[test]
fn cel_regex_url_ip_semver_libraries_work() {
    assert_all_true(&[
        "self.s.find('[a-z]') == 'a'",
        "self.s.findAll('[a-z]').size() == 3",
        "self.s.matches('^a')",
        "isURL('https://x.com/p')",
        "url('https://x.com/p').getHost() == 'x.com'",
        "url('https://x.com:8/p').getPort() == '8'",
        "isIP('1.2.3.4')",
        "ip('1.2.3.4').family() == 4",
        "cidr('10.0.0.0/8').containsIP(ip('10.1.1.1'))",
        "isCIDR('10.0.0.0/8')",
        "isSemver('1.2.3')",
        "semver('1.2.3').major() == 1",
        "semver('1.2.3').isLessThan(semver('1.3.0'))",
    ]);
}

#[test]
fn cel_quantity_format_math_encoders_jsonpatch_libraries_work() {
    assert_all_true(&[
        "isQuantity('1Gi')",
        "quantity('1Gi').isGreaterThan(quantity('1Mi'))",
        "quantity('1k').asInteger() == 1000",
        "format.dns1123Label().validate('abc').hasValue() == false",
        "math.greatest(1, 2) == 2",
        "math.least([1, 2]) == 1",
        "math.ceil(1.2) == 2.0",
        "math.abs(-1) == 1",
        "base64.encode(b'a') == 'YQ=='",
        "base64.decode('YQ==') == b'a'",
        "jsonpatch.escapeKey('a/b') == 'a~1b'",
        "optional.of(1).hasValue()",
        "optional.none().orValue(2) == 2",
    ]);
}

#[test]
fn cel_macros_and_typed_values_work() {
    assert_all_true(&[
        "self.l.exists(x, x == 2)",
        "self.l.exists_one(x, x == 2)",
        "self.l.all(x, x > 0)",
        "self.l.map(x, x * 2) == [2, 4, 6]",
        "self.l.filter(x, x > 1).size() == 2",
        "has(self.s)",
        "!has(self.nope)",
        "size(self.m) == 1",
        "self.m['a'] == 'x'",
        "self.t < timestamp('2030-01-01T00:00:00Z')",
        "self.d > duration('1s')",
        "timestamp('2024-01-01T00:00:00Z').getFullYear() == 2024",
        "int('5') == 5",
        "string(5) == '5'",
        "double(1) == 1.0",
        "self.ios == 80 || self.ios == 'http'",
    ]);
}
